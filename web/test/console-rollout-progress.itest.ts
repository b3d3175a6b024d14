/**
 * The web console's rollout progress and what it says of agents it cannot see now, in a real browser against
 * `npm start` with simulated agents. The sweeper runs once an hour here, so what the page shows between its
 * runs is what the agents report, not what a run wrote.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalStack, repositoryRoot } from "../../scripts/test-support/local-stack.js";
import { untilTrue } from "../../scripts/test-support/until.js";
import {
  api,
  capture,
  flowJson,
  pageProblems,
  sha256,
  signedIn,
  simulatedAgents,
  startConsole,
  stopConsole,
  untilRegistered,
} from "./console-harness.js";

const PROGRESS = "progress";
const PROGRESS_AGENTS = ["progress-agent-001", "progress-agent-002", "progress-agent-003"];
/** A class whose agents heartbeat every second: its one agent, once silent, is offline within seconds. */
const QUIET = "quiet";
const QUIET_AGENT = "quiet-agent-001";
const SWEEPER_SECONDS = 3600;
const UNKNOWN_MANIFEST_AGENT = "unknown-manifest-001";
const JAVA_HEARTBEAT = path.join(repositoryRoot, "schemas/c2/examples/java-2.3.0/heartbeat-light.json");
const json = { "content-type": "application/json" };

let webUrl: string;
let stack: LocalStack;

beforeAll(async () => {
  ({ webUrl, stack } = await startConsole("web-console-rollout-progress", {
    BEACON_SWEEPER_INTERVAL_SECONDS: String(SWEEPER_SECONDS),
  }));
  for (const [name, heartbeatIntervalSeconds] of [
    [PROGRESS, 2],
    [QUIET, 1],
  ] as const) {
    const body = JSON.stringify({ heartbeatIntervalSeconds });
    expect((await api(`/classes/${name}`, { method: "PUT", headers: json, body })).status).toBe(201);
  }
  simulatedAgents(["--class", PROGRESS, "--count", "3", "--interval", "2"]);
  simulatedAgents(["--class", QUIET, "--count", "1", "--interval", "1", "--beats", "1"]);
  await untilRegistered(PROGRESS, PROGRESS_AGENTS.length, { others: [QUIET_AGENT] });
}, 300_000);

afterAll(stopConsole, 60_000);

describe("the web console", () => {
  let admin: Page;

  beforeAll(async () => {
    admin = await signedIn("admin");
  }, 120_000);

  it("shows an offline agent's run status, queues and bulletins as of its last heartbeat", async () => {
    await untilTrue(
      "the quiet agent to be offline",
      async () => (await api<{ status: string }>(`/agents/${QUIET_AGENT}`)).body.status === "offline",
      60_000,
    );
    await admin.goto(`${webUrl}/agents/${QUIET_AGENT}`);
    await admin.getByRole("heading", { name: QUIET_AGENT, level: 1 }).waitFor();
    const runStatus = admin
      .locator("dt", { hasText: "Flow run status" })
      .locator("xpath=following-sibling::dd");
    await runStatus.getByText(/as of its last heartbeat/).waitFor();
    expect(await admin.getByText(/The agent is offline: this is as of its last heartbeat/).count()).toBe(4);
    await capture(admin, "agent-offline");
  }, 120_000);

  it("asks an agent whose manifest Beacon does not know for it", async () => {
    // A MiNiFi Java heartbeat names its manifest by hash only: Beacon does not know it until asked.
    const heartbeat = JSON.parse(readFileSync(JAVA_HEARTBEAT, "utf8"));
    heartbeat.agentInfo.identifier = UNKNOWN_MANIFEST_AGENT;
    const certs = path.join(repositoryRoot, ".beacon", "certs");
    await new Promise<void>((resolve, reject) =>
      execFile(
        "curl",
        ["-sf", "--cacert", path.join(certs, "ca.pem"), "--cert", path.join(certs, "dev-fleet.pem")]
          .concat(["--key", path.join(certs, "dev-fleet.key"), "-H", "content-type: application/json"])
          .concat([
            "--data",
            JSON.stringify(heartbeat),
            `https://127.0.0.1:${stack.ports.agent}/c2/api/heartbeat`,
          ]),
        (error) => (error ? reject(error) : resolve()),
      ),
    );
    await admin.goto(`${webUrl}/agents/${UNKNOWN_MANIFEST_AGENT}`);
    await admin.getByRole("heading", { name: UNKNOWN_MANIFEST_AGENT, level: 1 }).waitFor();
    await admin.getByRole("button", { name: "Ask for its manifest" }).click();
    await admin.getByText("Queued: the agent is asked for its manifest at its next heartbeat.").waitFor();
    type Operations = { items: { operation: string; operand?: string; state: string }[] };
    const { body } = await api<Operations>(`/operations?agentId=${UNKNOWN_MANIFEST_AGENT}`);
    expect(body.items).toContainEqual(
      expect.objectContaining({ operation: "DESCRIBE", operand: "MANIFEST", state: "queued" }),
    );
  }, 120_000);

  it("draws a rollout's progress per batch with the expected times, and follows the agents between sweeper runs", async () => {
    const content = flowJson(PROGRESS, "org.apache.nifi.minifi.processors.GenerateFlowFile");
    const published = await api(`/classes/${PROGRESS}/flows`, {
      method: "POST",
      headers: json,
      body: content,
    });
    expect(published.status).toBe(201);
    const plan = {
      canary: { count: 1 },
      batchSize: 1,
      batchIntervalSeconds: 10,
      soakSeconds: 30,
      failureThreshold: { count: 1 },
      onFailure: "pause",
    };
    const started = await api<{ rolloutId: string; sweeperIntervalSeconds: number }>("/rollouts", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ className: PROGRESS, flowHash: sha256(content), plan }),
    });
    expect(started.status).toBe(201);
    // The rollout says how often the sweeper really runs: this stack's timer's interval.
    expect(started.body.sweeperIntervalSeconds).toBe(SWEEPER_SECONDS);
    const { rolloutId } = started.body;

    await admin.goto(`${webUrl}/rollouts/${encodeURIComponent(rolloutId)}`);
    await admin.getByRole("heading", { name: "Progress by batch" }).waitFor();
    // A batch takes two heartbeats to a sweeper run and the soak to another: two runs of an hour.
    await admin
      .getByText(`About ${2 * SWEEPER_SECONDS} s a batch: the sweeper runs every ${SWEEPER_SECONDS} s`)
      .waitFor();
    const bars = admin.getByRole("img");
    await bars.first().waitFor();
    const labels = await bars.evaluateAll((images) =>
      images.map((image) => image.getAttribute("aria-label")),
    );
    expect(labels).toHaveLength(3);
    expect(labels[1]).toMatch(/^batch 1: 1 to come, expected to start /);
    expect(labels[2]).toMatch(/^batch 2: 1 to come, expected to start /);

    // The canary's agent runs the new version well before the sweeper's next run: the page says so at once.
    await admin
      .getByRole("img", { name: /^canary: 1 on the new version, soaking/ })
      .waitFor({ timeout: 60_000 });
    await admin.getByText("(reports the new version: soaking from the sweeper's next run)").waitFor();
    await capture(admin, "rollout-progress");
  }, 180_000);

  it("raised no uncaught error or Content-Security-Policy refusal on any page", () => {
    expect(pageProblems).toEqual([]);
  });
});
