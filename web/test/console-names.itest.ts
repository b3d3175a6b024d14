/**
 * Names instead of hashes in the web console, in a real browser against `npm start` with simulated agents:
 * flow versions by number and label where hashes were, relabelling a version, and the Binaries page with its
 * counts per class and binary (two MiNiFi C++ builds from the simulator's `--build`).
 */
import type { ChildProcess } from "node:child_process";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopGroup } from "../../scripts/test-support/local-stack.js";
import { untilTrue } from "../../scripts/test-support/until.js";
import {
  api,
  capture,
  flowJson,
  newPage,
  pageProblems,
  sha256,
  signIn,
  simulatedAgents,
  startConsole,
  stopConsole,
} from "./console-harness.js";

/** Two agents of the C++ example's build. */
const PUMPS = "names-pumps";
/** One agent of the example's build and one of another build (the simulator's `--build`). */
const MIXED = "names-mixed";
const OTHER_BUILD = "0.15.0";
const RUNNABLE = "org.apache.nifi.minifi.processors.GenerateFlowFile";
const json = { "content-type": "application/json" };

let pumps: ChildProcess;
let mixed: ChildProcess;
let upgraded: ChildProcess;
let webUrl: string;

async function published(className: string, content: string, label: string): Promise<string> {
  const { status } = await api(`/classes/${className}/flows?label=${encodeURIComponent(label)}`, {
    method: "POST",
    headers: json,
    body: content,
  });
  expect(status).toBe(201);
  return sha256(content);
}

type BinaryCounts = {
  countedAt?: number;
  items: { className: string; manifestId?: string; name: string; agents: number }[];
};

beforeAll(async () => {
  ({ webUrl } = await startConsole("web-console-names", {
    BEACON_SWEEPER_INTERVAL_SECONDS: "2",
    // The counting pass by binary every few seconds, so that the page follows the agents here.
    BEACON_GROUP_COUNT_MINUTES: "0.05",
  }));
  pumps = simulatedAgents(["--class", PUMPS, "--count", "2", "--interval", "2"]);
  mixed = simulatedAgents(["--class", MIXED, "--count", "1", "--interval", "2"]);
  upgraded = simulatedAgents([
    "--class",
    MIXED,
    "--count",
    "1",
    "--interval",
    "2",
    "--build",
    OTHER_BUILD,
    "--prefix",
    "names-upgraded-",
  ]);
  await untilTrue(
    "the simulated agents to register with their manifests",
    async () => {
      const { body } = await api<{ items: { binaryName?: string }[] }>("/agents?limit=10");
      return body.items?.length === 4 && body.items.every((agent) => agent.binaryName !== undefined);
    },
    300_000,
  );
}, 420_000);

afterAll(async () => {
  if (pumps) await stopGroup(pumps);
  if (mixed) await stopGroup(mixed);
  if (upgraded) await stopGroup(upgraded);
  await stopConsole();
}, 60_000);

describe("names in the web console", () => {
  let operator: Page;
  let first: string;

  beforeAll(async () => {
    ({ page: operator } = await newPage());
    await operator.goto(webUrl);
    await signIn(operator, "operator");
  }, 120_000);

  it("shows flow versions by number and label where their hashes were", async () => {
    first = await published(PUMPS, flowJson(PUMPS, RUNNABLE), "first light");
    await published(PUMPS, flowJson(PUMPS, RUNNABLE, "second"), "second");
    const plan = {
      canary: { count: 1 },
      batchSize: 2,
      batchIntervalSeconds: 0,
      soakSeconds: 1,
      failureThreshold: { count: 1 },
      onFailure: "pause",
    };
    const started = await api<{ rolloutId: string }>("/rollouts", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ className: PUMPS, flowHash: first, plan }),
    });
    expect(started.status).toBe(201);
    await untilTrue(
      "the pumps to run the first version",
      async () => {
        const { body } = await api<{ items: { flowId?: string }[] }>(`/agents?class=${PUMPS}`);
        return body.items?.length === 2 && body.items.every((agent) => agent.flowId === first);
      },
      180_000,
    );
    // The classes page shows a class's target, which the rollout sets when it completes: after the agents run it.
    const rolloutPath = `/rollouts/${encodeURIComponent(started.body.rolloutId)}`;
    await untilTrue(
      "the rollout of the first version to complete",
      async () => (await api<{ state: string }>(rolloutPath)).body.state === "completed",
      180_000,
    );

    await operator.goto(`${webUrl}/agents?class=${PUMPS}`);
    const rows = operator.getByRole("region", { name: "Agents", exact: true }).getByRole("row");
    await rows.filter({ hasText: `v1 "first light"` }).nth(1).waitFor();
    await capture(operator, "names-agents");

    await operator.goto(`${webUrl}/classes`);
    await operator
      .getByRole("row", { name: new RegExp(PUMPS) })
      .getByText(`v1 "first light"`)
      .waitFor();

    await operator.goto(`${webUrl}/classes/${PUMPS}`);
    const running = operator.getByRole("region", { name: "Flow ids the agents report" });
    await running.getByText(`v1 "first light"`).waitFor();
    await operator.goto(`${webUrl}/classes/${PUMPS}?flow=${first}`);
    await operator
      .getByRole("heading", { name: `Validation of v1 "first light" ${first.slice(0, 12)}` })
      .waitFor();
    await operator.getByRole("link", { name: /Start a rollout of v1 "first light"/ }).waitFor();
    await capture(operator, "names-class");
  }, 300_000);

  it("relabels a version from the class's versions, confirming first, and says what the API refuses", async () => {
    await operator.goto(`${webUrl}/classes/${PUMPS}`);
    const versions = operator.getByRole("region", { name: "Flow versions" });
    await versions.getByRole("button", { name: /Relabel… v2 "second"/ }).click();
    const form = operator.getByRole("form", { name: `Relabel v2 "second"` });
    await form.getByText(/Its hash, number and content stay/).waitFor();
    // Keeping it changes nothing.
    await form.getByRole("button", { name: "Keep it" }).click();
    await versions.getByText(`v2 "second"`).first().waitFor();

    await versions.getByRole("button", { name: /Relabel… v2 "second"/ }).click();
    const label = form.getByLabel("New label");
    // A tab inside a label is refused by the API's validation, in words, and changes nothing.
    await label.evaluate((input) => {
      (input as unknown as { value: string }).value = "kafka\ttls";
    });
    await form.getByRole("button", { name: "Relabel", exact: true }).click();
    await form.getByRole("alert").waitFor();
    await capture(operator, "names-relabel-refused");
    expect(
      (await api<{ items: { label?: string }[] }>(`/classes/${PUMPS}/flows`)).body.items
        .map(({ label }) => label)
        .sort(),
    ).toEqual(["first light", "second"]);

    await label.fill("kafka tls");
    await form.getByRole("button", { name: "Relabel", exact: true }).click();
    await operator.getByText(/is now v2 "kafka tls"/).waitFor();
    await versions.getByText(`v2 "kafka tls"`).first().waitFor();
    const { body } = await api<{ items: { hash: string; label?: string }[] }>(`/classes/${PUMPS}/flows`);
    expect(body.items.find((version) => version.hash !== first)?.label).toBe("kafka tls");
    expect(body.items.find((version) => version.hash === first)?.label).toBe("first light");
  }, 120_000);

  it("counts the agents by binary and class on the Binaries page, with a bar and links to them", async () => {
    await untilTrue(
      "a counting pass to count the four agents",
      async () => {
        const { body } = await api<BinaryCounts>("/fleet/binaries");
        return body.items?.reduce((sum, item) => sum + item.agents, 0) === 4;
      },
      120_000,
    );
    const { body } = await api<BinaryCounts>("/fleet/binaries");
    const counts = body.items.map(({ className, name, agents }) => [className, name.split(" · ")[0], agents]);
    expect(counts).toEqual(
      expect.arrayContaining([
        [PUMPS, "MiNiFi C++ 1.0.0", 2],
        [MIXED, `MiNiFi C++ ${OTHER_BUILD}`, 1],
        [MIXED, "MiNiFi C++ 1.0.0", 1],
      ]),
    );
    expect(counts).toHaveLength(3);

    await operator.goto(`${webUrl}/binaries`);
    await operator.getByRole("heading", { name: "Binaries", level: 1 }).waitFor();
    const bars = operator.getByRole("region", { name: "Agents by binary version" });
    await bars.getByRole("listitem").nth(1).waitFor();
    const barWords = await bars.getByRole("listitem").allTextContents();
    expect(barWords.map((words) => words.replace(/\s+/g, " ").replace(/ · \w+/, ""))).toEqual([
      "MiNiFi C++ 1.0.0 3 agents",
      `MiNiFi C++ ${OTHER_BUILD} 1 agent`,
    ]);
    const table = operator.getByRole("region", { name: "Binaries", exact: true });
    const cpp = table.getByRole("row").filter({ hasText: "MiNiFi C++ 1.0.0" });
    await cpp.getByRole("link", { name: `${PUMPS}: 2` }).waitFor();
    await cpp.getByRole("link", { name: `${MIXED}: 1` }).waitFor();
    const other = table.getByRole("row").filter({ hasText: `MiNiFi C++ ${OTHER_BUILD}` });
    expect(await other.getByRole("cell").nth(1).textContent()).toBe("MiNiFi C++");
    expect(await other.getByRole("cell").nth(2).textContent()).toBe(OTHER_BUILD);
    await capture(operator, "binaries");

    await table
      .getByRole("row")
      .filter({ hasText: `MiNiFi C++ ${OTHER_BUILD}` })
      .getByRole("link", { name: `${MIXED}: 1` })
      .click();
    await operator.getByRole("heading", { name: "Agents", level: 1 }).waitFor();
    const agents = operator.getByRole("region", { name: "Agents", exact: true });
    await agents.getByRole("link", { name: "names-upgraded-001" }).waitFor();
    expect(await agents.getByRole("row").count()).toBe(2);
    expect(operator.url()).toContain("manifestId=");
    await capture(operator, "binaries-agents");
  }, 180_000);

  it("had no uncaught error or refused resource on any page", () => {
    expect(pageProblems).toEqual([]);
  });
});
