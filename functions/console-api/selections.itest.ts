/**
 * A selector over 5,000 agents on the local stack, with a time budget small enough that the request leaves
 * the rest to a selection job: the console API's own composition (called in process, its DynamoDB requests
 * counted) and behind the local gateway, the sweeper's as the schedule runs it, on the backends the
 * integration project's global setup started, over a fleet written as the agent API writes it (writeFleet).
 * Every agent the selector picks gets exactly one operation, however often a step of the job is run again.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DeleteCommand, DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { writeFleet } from "../../scripts/bench/agent-fleet.js";
import { meteredClient } from "../../scripts/bench/dynamodb-meter.js";
import { ensureDevCertificates } from "../../scripts/local/certs.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { Keys } from "../adapters/dynamodb/keys.js";
import { DynamoSelectionJobStore } from "../adapters/dynamodb/selection-job-store.js";
import type { Principal } from "../core/identity/principal.js";
import type { SelectionJob } from "../core/operations/selection-jobs.js";
import { makeDynamoDbClient } from "../runtime/aws-clients/dynamodb.js";
import { makeRedisClient } from "../runtime/redis-client.js";
import { agentApiConfig, consoleApiConfig, sweeperConfig } from "../shared/config.js";
import { EnvNames } from "../shared/env-names.js";
import { composeSweeper } from "../sweeper/composition.js";
import { composeConsoleApi } from "./composition.js";
import type { ConsoleRoute } from "./routes.js";

const AGENTS = 5_000;
const CLASS = "gateways";
const tenant = `selections-${randomUUID().slice(0, 8)}`;
const principal: Principal = { tenant, role: "operator", subject: "alice" };
const certsDir = path.join(mkdtempSync(path.join(tmpdir(), "beacon-selections-")), "certs");
/** A millisecond: the request queues its first thousand agents, then leaves the rest to a job. */
const BUDGET_SECONDS = "0.001";
const env: Record<string, string> = {
  ...inject("beaconEnv"),
  [EnvNames.agentApiUrl]: "https://127.0.0.1:1",
  [EnvNames.agentCaDir]: certsDir,
  [EnvNames.webhookTesterFunction]: "webhook-dispatcher",
  [EnvNames.selectionBudgetSeconds]: BUDGET_SECONDS,
};
const metered = meteredClient(env);
const documents = DynamoDBDocumentClient.from(makeDynamoDbClient(env), {
  marshallOptions: { removeUndefinedValues: true },
});
const jobs = new DynamoSelectionJobStore(documents, env[EnvNames.tableName] as string);
let consoleApi: ReturnType<typeof composeConsoleApi>;
let gateway: ConsoleApiUnderTest;

async function call(operationId: string, input: Partial<Parameters<ConsoleRoute>[1]>) {
  const route = consoleApi.routes[operationId] as ConsoleRoute;
  const result = await route(principal, { path: {}, query: {}, ...input } as Parameters<ConsoleRoute>[1]);
  expect(result.status ?? 200, JSON.stringify(result.body).slice(0, 500)).toBeLessThan(300);
  return { status: result.status ?? 200, body: result.body as Record<string, unknown> };
}

beforeAll(async () => {
  const redis = makeRedisClient({ url: env[EnvNames.redisUrl] as string, commandTimeoutMs: 10_000 });
  try {
    await writeFleet({
      documents,
      tableName: env[EnvNames.tableName] as string,
      redis,
      tenant,
      agents: AGENTS,
      agentClass: CLASS,
      intervals: agentApiConfig(env),
      labelsOf: (index) => ({ wave: index % 2 === 0 ? "even" : "odd" }),
    });
  } finally {
    redis.disconnect();
  }
  await ensureDevCertificates(certsDir);
  consoleApi = composeConsoleApi(consoleApiConfig(env), metered.documents);
  gateway = await startConsoleApi(
    { certsDir, url: env[EnvNames.agentApiUrl] as string },
    { [EnvNames.selectionBudgetSeconds]: BUDGET_SECONDS },
  );
}, 300_000);

afterAll(async () => {
  await consoleApi?.close();
  await gateway?.close();
  documents.destroy();
});

/** How many operations each agent of the tenant has, page after page of the operations list. */
async function operationsPerAgent(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let cursor: string | undefined;
  do {
    const { body } = await call("listOperations", { query: { limit: "100", ...(cursor ? { cursor } : {}) } });
    for (const { agentId } of body.items as { agentId: string }[])
      counts.set(agentId, (counts.get(agentId) ?? 0) + 1);
    cursor = body.nextCursor as string | undefined;
  } while (cursor !== undefined);
  return counts;
}

/** Runs the sweeper's selection step, as the schedule runs it, until the job is no longer running. */
async function sweepUntilSettled(selectionId: string): Promise<{ runs: number; seconds: number }> {
  const started = performance.now();
  const sweeper = composeSweeper(sweeperConfig(env));
  try {
    for (let runs = 1; ; runs++) {
      const outcome = await sweeper.continueSelections(Date.now() + 120_000);
      expect(outcome.errors).toEqual([]);
      const job = (await jobs.get(tenant, selectionId)) as SelectionJob;
      if (job.state !== "running") return { runs, seconds: (performance.now() - started) / 1000 };
      expect(runs, "the job is still running after 10 sweeper runs").toBeLessThan(10);
    }
  } finally {
    await sweeper.close();
  }
}

let selectionId: string;
let leftToTheJob: SelectionJob;

it("answers 202 with a job once its budget ran out, which the sweeper finishes: one operation per agent", async () => {
  const before = metered.meter.requests;
  const started = performance.now();
  const answer = await call("createOperation", {
    body: { selector: { class: CLASS }, operation: "DESCRIBE", operand: "MANIFEST" },
  });
  const requestSeconds = (performance.now() - started) / 1000;
  const requests = metered.meter.requests - before;
  expect(answer.status).toBe(202);
  expect(answer.body).toMatchObject({ state: "running", className: CLASS, created: 1_000, skippedCount: 0 });
  selectionId = answer.body.selectionId as string;
  leftToTheJob = (await jobs.get(tenant, selectionId)) as SelectionJob;

  const sweep = await sweepUntilSettled(selectionId);
  console.log(
    `${AGENTS} agents: the request queued 1,000 in ${requestSeconds.toFixed(1)} s (${requests} DynamoDB ` +
      `requests), the sweeper the rest in ${sweep.seconds.toFixed(1)} s over ${sweep.runs} run(s)`,
  );

  const counts = await operationsPerAgent();
  expect(counts.size).toBe(AGENTS);
  expect([...counts.values()].every((count) => count === 1)).toBe(true);
  const { body } = await call("getOperationSelection", { path: { selectionId } });
  expect(body).toMatchObject({ state: "done", created: AGENTS, skippedCount: 0, skipped: [] });
}, 600_000);

it("runs the job's steps again, as after a crash before each step was written, and makes no second operation", async () => {
  // The job as the request left it, at its first cursor, though the sweeper queued every step since.
  await documents.send(
    new DeleteCommand({
      TableName: env[EnvNames.tableName] as string,
      Key: Keys.selectionJob(tenant, selectionId),
    }),
  );
  await jobs.create(leftToTheJob);
  await sweepUntilSettled(selectionId);

  const counts = await operationsPerAgent();
  expect(counts.size).toBe(AGENTS);
  expect([...counts.values()].every((count) => count === 1)).toBe(true);
  const { body } = await call("getOperationSelection", { path: { selectionId } });
  expect(body).toMatchObject({ state: "done", created: AGENTS, skippedCount: 0 });
}, 600_000);

it("answers 202 through the gateway, and shows the job's progress there until done", async () => {
  const token = await gateway.token({ tenant, role: "operator" });
  const posted = await gateway.request("POST", "/api/v1/operations", {
    token,
    body: { selector: { class: CLASS, labels: ["wave=even"] }, operation: "DESCRIBE", operand: "MANIFEST" },
  });
  expect(posted.status, posted.body).toBe(202);
  const even = posted.json().selectionId as string;
  const running = await gateway.request("GET", `/api/v1/operations/selections/${even}`, { token });
  expect(running.status, running.body).toBe(200);
  expect(running.json()).toMatchObject({ selectionId: even, created: 1_000 });

  await sweepUntilSettled(even);
  const done = await gateway.request("GET", `/api/v1/operations/selections/${even}`, { token });
  expect(done.json()).toMatchObject({ state: "done", created: AGENTS / 2, skippedCount: 0 });
  const counts = await operationsPerAgent();
  expect([...counts.values()].filter((count) => count === 2)).toHaveLength(AGENTS / 2);
  expect(counts.size).toBe(AGENTS);
}, 600_000);
