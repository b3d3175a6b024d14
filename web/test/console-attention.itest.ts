/**
 * "Needs attention" in a real browser against `npm start` with simulated agents: an agent sending ERROR
 * bulletins, one whose queue is back-pressured, one whose operation failed and one running a flow its class
 * does not accept each show on the Fleet page and in the Agents filter with its reason, and leave them when
 * the reason goes: the bulletins age out (a 20-second window here), the queue drains, a later operation is
 * carried out, the agent takes its class's target.
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
  signIn,
  simulatedAgents,
  startConsole,
  stopConsole,
} from "./console-harness.js";

/** A class without a target flow: its agents' reasons are their own doing. */
const TROUBLED = "troubled";
/** A class with a target flow, which its agent refuses at first. */
const DRIFTING = "drifting";
const ERRORS = "errors-001";
const PRESSURE = "pressure-001";
const FAILING = "failing-001";
const DRIFTER = "drifter-001";
const json = { "content-type": "application/json" };

/** Each agent, the reason it needs attention for, as the console names it, and how it misbehaves. */
const CASES = [
  { agentId: ERRORS, reason: "errorBulletins", name: "ERROR bulletins" },
  { agentId: PRESSURE, reason: "backPressure", name: "back pressure" },
  { agentId: FAILING, reason: "operationFailed", name: "last operation failed" },
  { agentId: DRIFTER, reason: "offTarget", name: "off target" },
] as const;

const running = new Map<string, ChildProcess>();
let targetHash: string;
let webUrl: string;

/** One simulated agent of the class, heartbeating every 2 s, id `<prefix>001`, in place of any before it. */
async function runAgent(agentClass: string, agentId: string, options: string[] = []) {
  const before = running.get(agentId);
  if (before) await stopGroup(before);
  const prefix = agentId.replace(/001$/, "");
  const args = ["--class", agentClass, "--count", "1", "--interval", "2", "--prefix", prefix];
  running.set(agentId, simulatedAgents([...args, ...options]));
}

/** The agents the console API lists as needing attention for the reason. */
async function listedFor(reason: string): Promise<string[]> {
  const { body } = await api<{ items: { agentId: string }[] }>(`/agents?attention=${reason}`);
  return body.items.map((item) => item.agentId);
}

/** Waits until every agent is listed under its reason (`listed`), or until none is. */
async function untilEachListed(listed: boolean, timeoutMs: number) {
  await untilTrue(
    listed ? "each agent to need attention for its reason" : "each agent to leave its reason",
    async () => {
      for (const { agentId, reason } of CASES)
        if ((await listedFor(reason)).includes(agentId) !== listed) return false;
      return true;
    },
    timeoutMs,
  );
}

/** Queues a DESCRIBE MANIFEST for the failing agent, which fails it or, once it runs clean, carries it out. */
async function queueDescribeOfFailing() {
  const queued = await api("/operations", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ agentId: FAILING, operation: "DESCRIBE", operand: "MANIFEST" }),
  });
  expect(queued.status).toBe(201);
}

beforeAll(async () => {
  ({ webUrl } = await startConsole("web-console-attention", {
    BEACON_SWEEPER_INTERVAL_SECONDS: "2",
    BEACON_ERROR_BULLETIN_WINDOW_SECONDS: "20",
    // The refusing agent is sent its class's target again this soon after it refused it.
    BEACON_CATCH_UP_RETRY_SECONDS: "5",
  }));
  for (const name of [TROUBLED, DRIFTING]) {
    const body = JSON.stringify({ heartbeatIntervalSeconds: 2 });
    expect((await api(`/classes/${name}`, { method: "PUT", headers: json, body })).status).toBe(201);
  }
  const content = flowJson(DRIFTING, "org.apache.nifi.minifi.processors.GenerateFlowFile");
  const published = await api<{ hash: string }>(`/classes/${DRIFTING}/flows`, {
    method: "POST",
    headers: json,
    body: content,
  });
  expect(published.status).toBe(201);
  targetHash = published.body.hash;
  const rollout = await api("/rollouts", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ className: DRIFTING, flowHash: targetHash }),
  });
  expect(rollout.status).toBe(201);
  await untilTrue(
    "the rollout to make the version the class's target",
    async () =>
      (await api<{ flow?: { target: string } }>(`/classes/${DRIFTING}`)).body.flow?.target === targetHash,
    60_000,
  );
  await runAgent(TROUBLED, ERRORS, ["--error-bulletins"]);
  await runAgent(TROUBLED, PRESSURE, ["--back-pressure"]);
  await runAgent(TROUBLED, FAILING, ["--fail-operations", "1"]);
  await runAgent(DRIFTING, DRIFTER, ["--failing", "1", "--refuse", targetHash.slice(0, 12)]);
  await untilTrue(
    "the simulated agents to register",
    async () => {
      const statuses = await Promise.all(CASES.map(({ agentId }) => api(`/agents/${agentId}`)));
      return statuses.every(({ status }) => status === 200);
    },
    120_000,
  );
}, 300_000);

afterAll(async () => {
  for (const agent of running.values()) await stopGroup(agent);
  await stopConsole();
}, 60_000);

describe("needs attention", () => {
  let page: Page;

  beforeAll(async () => {
    ({ page } = await newPage());
    await page.goto(webUrl);
    await signIn(page, "admin");
  }, 120_000);

  /** The Agents page filtered by the reason, as the Fleet page's count links to it. */
  const agentRow = (agentId: string) =>
    page.getByRole("row").filter({ has: page.getByRole("link", { name: agentId, exact: true }) });

  it("shows each agent under its reason on the Fleet page and in the Agents filter", async () => {
    await queueDescribeOfFailing();
    await untilEachListed(true, 120_000);

    await page.goto(webUrl);
    await page.getByRole("heading", { name: "Needs attention", level: 2 }).waitFor();
    for (const { reason } of CASES)
      await page.locator(`[data-reason="${reason}"] dd a`).waitFor({ state: "visible" });
    await capture(page, "fleet-attention");

    for (const { agentId, reason, name } of CASES) {
      await page.goto(webUrl);
      await page.locator(`[data-reason="${reason}"] dd a`).click();
      await page.getByRole("heading", { name: "Agents", level: 1 }).waitFor();
      expect(new URL(page.url()).searchParams.get("attention")).toBe(reason);
      expect(await page.getByLabel("Needs attention for").inputValue()).toBe(reason);
      await agentRow(agentId).getByText(name, { exact: true }).waitFor();
      if (reason === "errorBulletins") await capture(page, "agents-attention");
    }
  }, 300_000);

  it("leaves each agent there once its reason goes", async () => {
    // Healthy again: the same agents, without what they sent; a later operation; the class's target taken.
    await runAgent(TROUBLED, ERRORS);
    await runAgent(TROUBLED, PRESSURE);
    await runAgent(DRIFTING, DRIFTER);
    await queueDescribeOfFailing();
    await untilEachListed(false, 180_000);
    const drifter = await api<{ flowId?: string }>(`/agents/${DRIFTER}`);
    expect(drifter.body.flowId).toBe(targetHash);

    await page.goto(webUrl);
    for (const { reason } of CASES)
      await page.locator(`[data-reason="${reason}"] dd`).getByText("0", { exact: true }).waitFor();
    for (const { agentId, reason } of CASES) {
      await page.goto(`${webUrl}/agents?attention=${reason}`);
      await page.getByText("No agent matches these filters. Loosen or clear them.").waitFor();
      expect(await agentRow(agentId).count()).toBe(0);
    }
    await capture(page, "agents-attention-cleared");
  }, 300_000);

  it("raised no page errors or Content-Security-Policy refusals", () => {
    expect(pageProblems).toEqual([]);
  });
});
