/**
 * The Usage page: simulated agents send a known number of heartbeats through the real agent API, the stream
 * consumer meters them, and an admin reads them on the page, in the month's statement (units × price) and in
 * the hours' table, sees what the tenant stores once the sweeper has taken the day's snapshot, chooses another
 * month by keyboard (empty), and a viewer finds no Usage section and an
 * error where the page is opened all the same. Debian's Chromium against `npm start`.
 */
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { untilTrue } from "../../scripts/test-support/until.js";
import type { components } from "../src/api/schema.js";
import {
  api,
  capture,
  pageProblems,
  signedIn,
  simulatedAgents,
  startConsole,
  stopConsole,
} from "./console-harness.js";

type Statement = components["schemas"]["UsageStatement"];
type Usage = components["schemas"]["Usage"];

const AGENTS = 3;
const BEATS = 4;
const month = new Date().toISOString().slice(0, 7);
let before: Statement;
let after: Statement;

const statement = async () => (await api<Statement>(`/usage/statement?month=${month}`)).body;
const heartbeatsOf = (priced: Statement) => priced.lines.find((line) => line.unit === "heartbeats")?.quantity;

beforeAll(async () => {
  await startConsole("web-console-usage");
  before = await statement();
  const agents: ChildProcess = simulatedAgents([
    "--class",
    "metered",
    "--count",
    String(AGENTS),
    "--interval",
    "1",
    "--beats",
    String(BEATS),
  ]);
  await once(agents, "exit");
  await untilTrue(
    `the stream consumer to meter the ${AGENTS * BEATS} heartbeats`,
    async () => heartbeatsOf(await statement()) === (heartbeatsOf(before) ?? 0) + AGENTS * BEATS,
    120_000,
  );
  after = await statement();
}, 300_000);

afterAll(stopConsole, 60_000);

describe("the Usage page", () => {
  it("shows an admin the heartbeats sent, priced in the month's statement, and per hour", async () => {
    expect(after.usage.heartbeats).toBe(before.usage.heartbeats + AGENTS * BEATS);
    expect(after.usage.bytesIn).toBeGreaterThan(before.usage.bytesIn);
    const page = await signedIn("admin");
    await page.getByRole("link", { name: "Usage", exact: true }).click();
    await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();

    const lines = page.getByRole("region", { name: `Statement for ${month}` });
    const heartbeats = lines.getByRole("row", { name: /^Heartbeats/ });
    const line = after.lines.find((each) => each.unit === "heartbeats") as Statement["lines"][number];
    const quantity = line.quantity.toLocaleString("en-US");
    await heartbeats.getByRole("cell", { name: quantity, exact: true }).waitFor();
    // Quantity, unit price and amount, each in a column of its own that fits the page at 1280 px.
    expect(await heartbeats.getByRole("cell").allTextContents()).toEqual([
      quantity,
      expect.stringMatching(/^\$\d/),
      expect.stringMatching(/^\$\d/),
    ]);
    expect(await lines.getByRole("row", { name: /^Total \(USD\)/ }).count()).toBe(1);

    // The hours' heartbeats add up to the month's.
    const hours = page.getByRole("region", { name: "Usage per hour" });
    await hours.waitFor();
    const cells = await hours.locator("tbody tr td:nth-child(3)").allTextContents();
    expect(cells.reduce((sum, cell) => sum + Number(cell.replaceAll(",", "")), 0)).toBe(
      after.usage.heartbeats,
    );
    expect(await page.getByRole("img", { name: /^Heartbeats per day: / }).count()).toBe(1);
    // What is metered and not priced, uploads of debug bundles among it, is said under the statement.
    expect(await page.getByText(/priced at nothing: .* [\d,]+ debug bundle uploads \(/).count()).toBe(1);
    await capture(page, "usage");
  });

  it("shows what the tenant stores, from the sweeper's snapshot of the day", async () => {
    const range = `from=${month}-01T00:00:00Z`;
    let usage: Usage | undefined;
    await untilTrue(
      "the sweeper to take the day's snapshot of what the tenant stores",
      async () => {
        usage = (await api<Usage>(`/usage?${range}&to=${new Date(Date.now() + 3_600_000).toISOString()}`))
          .body;
        return usage.storedDays.length > 0;
      },
      150_000,
    );
    const latest = usage?.storedDays.at(-1) as Usage["storedDays"][number];
    // The simulated agents' binary's manifest, from their first full heartbeat.
    expect(latest.manifests.count).toBeGreaterThan(0);
    const page = await signedIn("admin", "/usage");
    const stored = page.getByRole("region", { name: "Stored" });
    const manifests = stored.getByRole("row", { name: /^Manifests/ });
    await manifests.waitFor();
    expect((await manifests.getByRole("cell").allTextContents()).slice(0, 1)).toEqual([
      latest.manifests.count.toLocaleString("en-US"),
    ]);
    expect(await stored.getByRole("row", { name: /^Event archive/ }).count()).toBe(1);
    const line = (await statement()).lines.find((each) => each.unit === "tableGbMonths");
    expect(line?.quantity).toBeGreaterThan(0);
    await capture(page, "usage-stored");
  }, 200_000);

  it("takes another month from the keyboard, and says when it has no usage", async () => {
    const page = await signedIn("admin", "/usage");
    const field = page.getByLabel("Month (UTC)");
    await field.focus();
    await field.fill("2020-01");
    await page.keyboard.press("Enter");
    await page.getByText("No usage in 2020-01").waitFor();
    await page.getByRole("heading", { name: "Statement for 2020-01" }).waitFor();
    const total = page.getByRole("row", { name: /^Total \(USD\)/ });
    expect(await total.textContent()).toContain("$0.00");
    expect(new URL(page.url()).search).toBe("?month=2020-01");
    await capture(page, "usage-empty");
  });

  it("is an admin's: a viewer has no Usage section, and the page opened all the same says why", async () => {
    const page = await signedIn("viewer");
    expect(await page.getByRole("link", { name: "Usage", exact: true }).count()).toBe(0);
    await page.goto(`${new URL(page.url()).origin}/usage`);
    await page.getByRole("alert").first().waitFor();
    expect(await page.getByRole("alert").first().textContent()).toMatch(
      /Could not load the month's statement/,
    );
    await capture(page, "usage-refused");
  });

  it("ran every page without an uncaught error or a Content-Security-Policy refusal", () => {
    expect(pageProblems).toEqual([]);
  });
});
