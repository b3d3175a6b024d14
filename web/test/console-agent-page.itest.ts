/**
 * An agent's page: its load and queues over its latest heartbeats (the chart's numbers are what the simulated
 * agents sent), one list of its certificates whoever looks, and its own debug bundles, read by agent.
 * Debian's Chromium against `npm start` with simulated agents.
 */
import type { ChildProcess } from "node:child_process";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonObject } from "../../functions/core/json.js";
import { cppAgentOf } from "../../scripts/common/c2-examples.js";
import { stopGroup } from "../../scripts/test-support/local-stack.js";
import { untilTrue } from "../../scripts/test-support/until.js";
import {
  api,
  capture,
  issuedAgentCertificate,
  newPage,
  pageProblems,
  type Role,
  signIn,
  simulatedAgents,
  startConsole,
  stopConsole,
} from "./console-harness.js";

const AGENT_CLASS = "paged";
const AGENT_ID = "paged-agent-001";
const OTHER_AGENT_ID = "paged-agent-002";
const SAMPLES_CHARTED = 4;

let agents: ChildProcess;
let webUrl: string;

interface LoadSample {
  at: string;
  cpuUtilization?: number;
  cpuLoadAverage?: number;
  memoryUsage?: number;
  queuedFlowFiles?: number;
  queuedBytes?: number;
}

/**
 * What the simulated (MiNiFi C++) agents send of their host's load and queues in each heartbeat, as Beacon keeps
 * it: the CPU utilization to a tenth of a percent, the load average to two decimals.
 */
function sentByTheAgents() {
  const heartbeat = cppAgentOf(AGENT_ID, AGENT_CLASS).light();
  const system = (heartbeat.deviceInfo as JsonObject).systemInfo as JsonObject;
  const queues = Object.values((heartbeat.flowInfo as JsonObject).queues as JsonObject) as JsonObject[];
  return {
    cpuUtilization: Math.round((system.cpuUtilization as number) * 1000) / 1000,
    cpuLoadAverage: Math.round((system.cpuLoadAverage as number) * 100) / 100,
    memoryUsage: system.memoryUsage as number,
    queuedFlowFiles: queues.reduce((total, queue) => total + (queue.size as number), 0),
    queuedBytes: queues.reduce((total, queue) => total + (queue.dataSize as number), 0),
  };
}

/** A page signed in as `role`, opened at `path`. */
async function signedIn(role: Role, path: string): Promise<Page> {
  const { page } = await newPage();
  await page.goto(webUrl);
  await signIn(page, role);
  await page.goto(`${webUrl}${path}`);
  return page;
}

const samplesOf = async (agentId: string) =>
  (await api<{ loadSamples?: LoadSample[] }>(`/agents/${agentId}`)).body.loadSamples ?? [];

beforeAll(async () => {
  ({ webUrl } = await startConsole("web-console-agent-page"));
  agents = simulatedAgents(["--class", AGENT_CLASS, "--count", "2", "--interval", "1"]);
  await untilTrue(
    "the simulated agents to have heartbeat a few times",
    async () => (await samplesOf(AGENT_ID)).length >= SAMPLES_CHARTED,
    120_000,
  );
}, 300_000);

afterAll(async () => {
  if (agents) await stopGroup(agents);
  await stopConsole();
}, 60_000);

describe("an agent's page", () => {
  it("charts the agent's load and queues over its latest heartbeats, with the numbers they sent", async () => {
    const sent = sentByTheAgents();
    const page = await signedIn("viewer", `/agents/${AGENT_ID}`);
    const section = page.getByRole("region", { name: "Load and queues over time" });
    await section.getByRole("img", { name: /^Queued flow files over \d+ heartbeats/ }).waitFor();
    for (const [figure, latest] of [
      ["CPU in use (%)", `${Math.round(sent.cpuUtilization * 1000) / 10} %`],
      ["Load average", String(sent.cpuLoadAverage)],
      ["Memory in use (bytes)", String(sent.memoryUsage)],
      ["Queued flow files", String(sent.queuedFlowFiles)],
      ["Queued bytes", String(sent.queuedBytes)],
    ] as const) {
      const label = await section
        .getByRole("img", { name: new RegExp(`^${escaped(figure)} over`) })
        .getAttribute("aria-label");
      expect(label).toMatch(new RegExp(`the latest ${escaped(latest)}\\.$`));
    }

    await section.getByText("The numbers").click();
    const table = section.getByRole("table");
    const rows = table.getByRole("row");
    // The heading row, then one row a sample: at least those the API held before the page was opened.
    expect(await rows.count()).toBeGreaterThan(SAMPLES_CHARTED);
    const cells = await rows.nth(1).getByRole("cell").allTextContents();
    expect(cells.slice(1)).toEqual([
      `${Math.round(sent.cpuUtilization * 1000) / 10} %`,
      String(sent.cpuLoadAverage),
      String(sent.memoryUsage),
      String(sent.queuedFlowFiles),
      String(sent.queuedBytes),
    ]);
    // The API holds the same samples: the agent's, each what it sent.
    const samples = await samplesOf(AGENT_ID);
    expect(samples.length).toBeLessThanOrEqual(60);
    expect(samples.map(({ at: _at, ...figures }) => figures)).toEqual(samples.map(() => sent));
    await capture(page, "agent-load");
    await page.context().close();
  });

  it("lists the agent's certificates once, with Revoke for an admin and without it for a viewer", async () => {
    const serial = await issuedAgentCertificate(AGENT_ID);

    const admin = await signedIn("admin", `/agents/${AGENT_ID}`);
    const list = admin.getByRole("region", { name: "Certificates", exact: true });
    const row = list.getByRole("row").filter({ hasText: serial });
    await row.getByRole("button", { name: "Revoke…" }).waitFor();
    expect(await admin.getByText(serial, { exact: true }).count()).toBe(1);
    expect(await admin.getByRole("heading", { name: /certificates/i }).count()).toBe(1);
    await capture(admin, "agent-certificates-one-list");
    await admin.context().close();

    const viewer = await signedIn("viewer", `/agents/${AGENT_ID}`);
    const viewersList = viewer.getByRole("region", { name: "Certificates", exact: true });
    await viewersList.getByRole("row").filter({ hasText: serial }).getByText("valid").waitFor();
    expect(await viewer.getByText(serial, { exact: true }).count()).toBe(1);
    expect(await viewersList.getByRole("button").count()).toBe(0);
    await viewer.context().close();
  });

  it("lists the agent's own debug bundles, read by agent", async () => {
    const operationIds = new Map<string, string>();
    for (const agentId of [AGENT_ID, OTHER_AGENT_ID]) {
      const created = await api<{ items: { operationId: string }[] }>("/operations", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ agentId, operation: "TRANSFER", operand: "DEBUG" }),
      });
      expect(created.status).toBe(201);
      operationIds.set(agentId, created.body.items[0]?.operationId as string);
    }
    const bundlesOf = async (agentId: string) =>
      (await api<{ items: { operationId: string; agentId: string }[] }>(`/debug-bundles?agentId=${agentId}`))
        .body.items;
    await untilTrue(
      "both agents to upload their bundles",
      async () => (await bundlesOf(AGENT_ID)).length === 1 && (await bundlesOf(OTHER_AGENT_ID)).length === 1,
      120_000,
    );
    expect((await bundlesOf(AGENT_ID)).map(({ operationId }) => operationId)).toEqual([
      operationIds.get(AGENT_ID),
    ]);
    expect((await api(`/debug-bundles?agentId=${encodeURIComponent("no/such agent")}`)).status).toBe(400);

    const page = await signedIn("operator", `/agents/${AGENT_ID}`);
    const listed = page.getByRole("region", { name: "The agent's debug bundles" });
    await listed.getByText(operationIds.get(AGENT_ID) as string).waitFor();
    expect(await listed.getByText(operationIds.get(OTHER_AGENT_ID) as string).count()).toBe(0);
    await capture(page, "agent-debug-bundles-by-agent");
    await page.context().close();
  });

  it("met no console error, failed request or accessibility problem on the way", () => {
    expect(pageProblems).toEqual([]);
  });
});

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
