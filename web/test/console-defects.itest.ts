/**
 * Defects of the web console an operator met in a first hour, each reproduced in Chromium against
 * `npm start` with simulated agents: tables that hide their actions at a desktop width, forms that send
 * what they should refuse or say nothing, actions a state forbids, ids that should be links, a page a role
 * cannot use, and what every page asks the server for.
 */
import type { ChildProcess } from "node:child_process";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopGroup } from "../../scripts/test-support/local-stack.js";
import { untilTrue } from "../../scripts/test-support/until.js";
import {
  api,
  flowJson,
  newPage,
  pageProblems,
  sha256,
  signedIn,
  signIn,
  simulatedAgents,
  startConsole,
  stopConsole,
  untilRegistered,
  WIDTHS,
} from "./console-harness.js";

/** Agents that keep heartbeating: forms are tried on them. */
const BUSY = "defects";
/** One agent whose rollouts the tests follow, stopped before its last one is aborted. */
const HALTED = "halted";
const HALTED_AGENT = "halted-agent-001";
/** An agent that heartbeats once and then stays quiet: what is queued for it stays queued. */
const IDLE_AGENT = "idle-agent-001";

let webUrl: string;
let haltedAgent: ChildProcess | undefined;
let admin: Page;
/** The rollout of HALTED under way: its canary soaks for an hour. */
let activeRolloutId: string;

const json = { "content-type": "application/json" };
const RUNNABLE = "org.apache.nifi.minifi.processors.GenerateFlowFile";

async function published(className: string, content: string): Promise<string> {
  const { status } = await api(`/classes/${className}/flows`, {
    method: "POST",
    headers: json,
    body: content,
  });
  expect([200, 201]).toContain(status);
  return sha256(content);
}

async function rollout(className: string, flowHash: string, soakSeconds: number): Promise<string> {
  const plan = {
    canary: { count: 1 },
    batchSize: 1,
    batchIntervalSeconds: 0,
    soakSeconds,
    failureThreshold: { count: 1 },
    onFailure: "pause",
  };
  const { status, body } = await api<{ rolloutId: string }>("/rollouts", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ className, flowHash, plan }),
  });
  expect(status).toBe(201);
  return body.rolloutId;
}

const rolloutState = async (rolloutId: string) =>
  (await api<{ state: string }>(`/rollouts/${encodeURIComponent(rolloutId)}`)).body.state;

/** Waits until no part of the page is still loading what it shows. */
async function settled(page: Page): Promise<void> {
  await page.locator("main h1").first().waitFor();
  await page.waitForFunction(() => {
    const { document } = globalThis as unknown as {
      document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> };
    };
    return !Array.from(document.querySelectorAll("[role=status]")).some((status) =>
      (status.textContent ?? "").startsWith("Loading"),
    );
  });
}

/**
 * The cells holding a button or a link, and the column headers, that lie wholly or in part outside the frame
 * their table scrolls in, as the page stands (every frame scrolled to its start): an action, or a column,
 * that an operator cannot see without scrolling.
 */
async function hiddenActionCells(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    type Box = { left: number; right: number; width: number };
    type Element = {
      parentElement: Element | null;
      getBoundingClientRect(): Box;
      querySelector(selector: string): Element | null;
      querySelectorAll(selector: string): ArrayLike<Element>;
      textContent: string | null;
      closest(selector: string): Element | null;
      getAttribute(name: string): string | null;
      tagName: string;
    };
    const scope = globalThis as unknown as {
      document: { querySelectorAll(selector: string): ArrayLike<Element>; documentElement: Element };
      getComputedStyle(element: Element): { overflowX: string };
    };
    const hidden: string[] = [];
    for (const table of Array.from(scope.document.querySelectorAll("main table"))) {
      let frame = table.parentElement;
      while (
        frame !== null &&
        !["auto", "scroll", "hidden"].includes(scope.getComputedStyle(frame).overflowX)
      ) {
        frame = frame.parentElement;
      }
      const bounds = (frame ?? scope.document.documentElement).getBoundingClientRect();
      const label = table.closest("[aria-label]")?.getAttribute("aria-label") ?? "table";
      for (const cell of Array.from(table.querySelectorAll("td, th"))) {
        if (cell.tagName !== "TH" && cell.querySelector("button, a") === null) continue;
        const box = cell.getBoundingClientRect();
        if (box.width === 0) continue;
        if (box.left < bounds.left - 1 || box.right > bounds.right + 1) {
          const heading = table.querySelector("thead")?.textContent ?? "";
          hidden.push(`${label} (${heading}): ${(cell.textContent ?? "").trim().slice(0, 60)}`);
        }
      }
    }
    return hidden;
  });
}

beforeAll(async () => {
  ({ webUrl } = await startConsole("web-console-defects", { BEACON_SWEEPER_INTERVAL_SECONDS: "2" }));
  simulatedAgents(["--class", BUSY, "--count", "2", "--interval", "2"]);
  haltedAgent = simulatedAgents(["--class", HALTED, "--count", "1", "--interval", "2"]);
  simulatedAgents(["--class", "idle", "--count", "1", "--interval", "3600", "--prefix", "idle-agent-"]);
  await untilRegistered(BUSY, 2, { others: [HALTED_AGENT, IDLE_AGENT] });
  // HALTED gets a version rolled out to the end, then a second whose canary soaks for an hour.
  const first = await rollout(HALTED, await published(HALTED, flowJson(HALTED, RUNNABLE)), 0);
  await untilTrue(
    "the first rollout to complete",
    async () => (await rolloutState(first)) === "completed",
    120_000,
  );
  activeRolloutId = await rollout(
    HALTED,
    await published(HALTED, flowJson(HALTED, RUNNABLE, "second")),
    3600,
  );
  await untilTrue(
    "the second rollout's canary to take its version",
    async () => {
      const { body } = await api<{ state: string; counts: { soaking?: number; healthy?: number } }>(
        `/rollouts/${encodeURIComponent(activeRolloutId)}`,
      );
      return body.state === "canary" && (body.counts.soaking ?? 0) + (body.counts.healthy ?? 0) > 0;
    },
    120_000,
  );
  // An operation that stays queued, so the operations tables show its Cancel beside a rollout's long "By".
  const queued = await api("/operations", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ agentId: IDLE_AGENT, operation: "DESCRIBE", operand: "MANIFEST" }),
  });
  expect(queued.status).toBe(201);
  const issued = await api("/certificates", {
    method: "POST",
    headers: json,
    body: JSON.stringify({
      kind: "agent",
      agentId: `${BUSY}-agent-001`,
      validityDays: 30,
      generateKey: true,
    }),
  });
  expect(issued.status).toBe(201);
  admin = await signedIn("admin");
}, 400_000);

afterAll(stopConsole, 60_000);

describe("the web console's defects", () => {
  it(`hides no table's button or link outside its frame at ${WIDTHS[0]} px, on any page`, async () => {
    expect(admin.viewportSize()?.width).toBe(WIDTHS[0]);
    // Every section the menu offers, then one detail page of each kind the sections link to.
    await admin.goto(webUrl);
    await settled(admin);
    const sections = await admin
      .getByRole("navigation", { name: "Console" })
      .getByRole("link")
      .evaluateAll((links) => links.map((link) => (link as unknown as { pathname: string }).pathname));
    const visited = new Set<string>();
    const details = new Map<string, string>();
    const found: string[] = [];
    const check = async (path: string) => {
      await admin.goto(`${webUrl}${path}`);
      await settled(admin);
      visited.add(path);
      found.push(...(await hiddenActionCells(admin)).map((cell) => `${path}: ${cell}`));
      const links = await admin
        .locator("main a[href^='/']")
        .evaluateAll((anchors) =>
          anchors.map((anchor) => (anchor as unknown as { pathname: string }).pathname),
        );
      for (const link of links) {
        const kind = /^\/([a-z-]+)\/[^/]+$/.exec(link)?.[1];
        if (kind !== undefined && !details.has(kind)) details.set(kind, link);
      }
    };
    for (const section of sections) await check(section);
    for (const detail of details.values()) if (!visited.has(detail)) await check(detail);
    expect([...details.keys()]).toEqual(expect.arrayContaining(["agents", "classes", "rollouts"]));
    expect(found).toEqual([]);
  }, 300_000);

  it("refuses an UPDATE PROPERTIES line without '=' in the form, naming it, and sends nothing", async () => {
    const agentId = `${BUSY}-agent-002`;
    await admin.goto(`${webUrl}/operations?agentId=${agentId}`);
    await admin.getByRole("heading", { name: "Operations", level: 1 }).waitFor();
    await admin.getByText("Create operations").click();
    await admin.getByLabel("one agent").check();
    await admin.getByLabel("Agent id", { exact: true }).first().fill(agentId);
    await admin.locator("select[name=kind]").selectOption("UPDATE PROPERTIES");
    await admin
      .getByLabel("Properties, one name=value a line")
      .fill("nifi.log.level=DEBUG\nthis line has no equals sign");
    await admin.getByRole("button", { name: "Queue operations" }).click();
    await admin
      .getByRole("alert")
      .filter({ hasText: "Line 2 (this line has no equals sign) has no '='" })
      .waitFor();
    const { body } = await api<{ items: unknown[] }>(`/operations?agentId=${agentId}`);
    expect(body.items).toEqual([]);
    // The API refuses a property without a name too.
    const refused = await api("/operations", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ agentId, operation: "UPDATE", operand: "PROPERTIES", args: { "": "x" } }),
    });
    expect(refused.status).toBe(400);
  });

  it("says a 0-byte flow file is empty, in place of an earlier failure's message", async () => {
    await admin.goto(`${webUrl}/classes/${BUSY}`);
    await admin.getByRole("heading", { name: BUSY, level: 1 }).waitFor();
    await admin.getByText("Publish a flow version").click();
    const file = admin.getByLabel(/Flow file/);
    const publish = admin.getByRole("button", { name: "Publish", exact: true });
    await file.setInputFiles({ name: "broken.json", mimeType: "application/json", buffer: Buffer.from("{") });
    await publish.click();
    const problem = admin.getByRole("alert");
    await problem.waitFor();
    const earlier = await problem.textContent();
    await file.setInputFiles({ name: "empty.json", mimeType: "application/json", buffer: Buffer.alloc(0) });
    await publish.click();
    await problem.filter({ hasText: "empty.json is empty (0 bytes)" }).waitFor();
    expect(await problem.textContent()).not.toBe(earlier);
    expect(await admin.getByRole("alert").count()).toBe(1);
  });

  it("names the form's checkbox in the words of a refused rollout's message", async () => {
    const version = await published(BUSY, flowJson(BUSY, "com.example.processors.NotOnAnyAgent"));
    await admin.goto(`${webUrl}/rollouts?className=${BUSY}&flow=${version}`);
    await admin.locator(`select[name=flowHash] option[value="${version}"]`).waitFor({ state: "attached" });
    await admin.getByRole("button", { name: "Start rollout" }).click();
    const refusal = admin.getByRole("alert").filter({ hasText: /could not run/ });
    await refusal.waitFor();
    // The refusal says what to set and what for; the form's checkbox for that field says it the same way.
    const advice = /set (\w+) to (.+)$/.exec((await refusal.textContent()) ?? "");
    expect(advice).not.toBeNull();
    const [, field, purpose] = advice as RegExpExecArray;
    const checkbox = admin.getByLabel(new RegExp(purpose as string, "i"));
    expect(await checkbox.getAttribute("name")).toBe(field);
  });

  it("links a class's rollout under way and an operation a rollout created to that rollout", async () => {
    const href = `/rollouts/${encodeURIComponent(activeRolloutId)}`;
    await admin.goto(`${webUrl}/classes/${HALTED}`);
    await admin.getByRole("link", { name: activeRolloutId, exact: true }).waitFor();
    expect(await admin.getByRole("link", { name: activeRolloutId, exact: true }).getAttribute("href")).toBe(
      href,
    );
    await admin.goto(`${webUrl}/operations?agentId=${HALTED_AGENT}`);
    const byRollout = admin.locator(`main table a[href="${href}"]`).first();
    await byRollout.waitFor();
    await byRollout.click();
    await admin.getByRole("heading", { name: `Rollout ${activeRolloutId}`, level: 1 }).waitFor();
  });

  it("offers no Abort, nor any other action, once a rollout is aborted", async () => {
    // With its agent gone, the aborted rollout stays rolling_back: its agent must return to the version before.
    if (haltedAgent) await stopGroup(haltedAgent);
    haltedAgent = undefined;
    await admin.goto(`${webUrl}/rollouts/${encodeURIComponent(activeRolloutId)}`);
    const verdict = admin.locator(".verdict");
    await verdict.getByText("canary", { exact: true }).waitFor();
    await admin.getByRole("button", { name: "Abort…" }).click();
    await admin.getByRole("button", { name: "Abort and return its agents to the previous version" }).click();
    await verdict.getByText(/^(rolling_back|aborted)$/).waitFor();
    expect(await rolloutState(activeRolloutId)).toBe("rolling_back");
    await admin.reload();
    await verdict.getByText("rolling_back", { exact: true }).waitFor();
    expect(await admin.getByRole("button", { name: /Pause|Resume|Finish|Abort/ }).count()).toBe(0);
  });

  it("shows an operator on Certificates what the role may do, with no admin form and no error", async () => {
    const { context, page } = await newPage();
    await page.goto(`${webUrl}/certificates`);
    await signIn(page, "operator", "Certificates");
    await page.getByText("Certificates are an admin's to list, issue and revoke").waitFor();
    expect(await page.getByText("Issue a certificate").count()).toBe(0);
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Try again" }).count()).toBe(0);
    await context.close();
  });

  it("serves a favicon the pages link to, and words a class name's pattern error for a person", async () => {
    const icon = await fetch(`${webUrl}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toMatch(/^image\//);
    expect((await icon.arrayBuffer()).byteLength).toBeGreaterThan(0);
    await admin.goto(`${webUrl}/agents?class=a%2Fb`);
    expect(await admin.locator("link[rel=icon]").getAttribute("href")).toBe("/favicon.ico");
    const problem = admin.getByRole("alert");
    await problem.waitFor();
    const text = (await problem.textContent()) ?? "";
    expect(text).toContain('"a/b"');
    expect(text).toContain("letters, digits");
    expect(text).not.toMatch(/pattern|\^|\[/);
  });

  it("had no uncaught error or refused resource on any page", () => {
    expect(pageProblems).toEqual([]);
  });
});
