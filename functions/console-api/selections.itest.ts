/**
 * A selector over 5,000 agents on the local stack: the console API's own composition, on the backends the
 * integration project's global setup started, over a fleet written as the agent API writes it (writeFleet),
 * queues exactly one operation for every agent the selector picks, a thousand at a time, with no cap. The
 * route is called in process, as the groups bench calls it: the figures are printed, not asserted.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { writeFleet } from "../../scripts/bench/agent-fleet.js";
import { meteredClient } from "../../scripts/bench/group-membership.js";
import { ensureDevCertificates } from "../../scripts/local/certs.js";
import type { Principal } from "../core/identity/principal.js";
import { MAX_LISTED } from "../core/operations/selection.js";
import { makeDynamoDbClient } from "../runtime/aws-clients.js";
import { makeRedisClient } from "../runtime/redis-client.js";
import { agentApiConfig, consoleApiConfig } from "../shared/config.js";
import { EnvNames } from "../shared/env-names.js";
import { composeConsoleApi } from "./composition.js";
import type { ConsoleRoute } from "./routes.js";

const AGENTS = 5_000;
const CLASS = "gateways";
const tenant = `selections-${randomUUID().slice(0, 8)}`;
const principal: Principal = { tenant, role: "operator", subject: "alice" };
const env: Record<string, string> = {
  ...inject("beaconEnv"),
  [EnvNames.agentApiUrl]: "https://127.0.0.1:1",
  [EnvNames.agentCaDir]: path.join(mkdtempSync(path.join(tmpdir(), "beacon-selections-")), "certs"),
  [EnvNames.webhookTesterFunction]: "webhook-dispatcher",
};
const metered = meteredClient(env);
let consoleApi: ReturnType<typeof composeConsoleApi>;

async function call(operationId: string, input: Partial<Parameters<ConsoleRoute>[1]>) {
  const route = consoleApi.routes[operationId] as ConsoleRoute;
  const result = await route(principal, { path: {}, query: {}, ...input } as Parameters<ConsoleRoute>[1]);
  expect(result.status ?? 200, JSON.stringify(result.body).slice(0, 500)).toBeLessThan(300);
  return result.body as Record<string, unknown>;
}

beforeAll(async () => {
  const seeding = DynamoDBDocumentClient.from(makeDynamoDbClient(env), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const redis = makeRedisClient({ url: env[EnvNames.redisUrl] as string, commandTimeoutMs: 10_000 });
  try {
    await writeFleet({
      documents: seeding,
      tableName: env[EnvNames.tableName] as string,
      redis,
      tenant,
      agents: AGENTS,
      agentClass: CLASS,
      intervals: agentApiConfig(env),
      labelsOf: (index) => ({ wave: index % 2 === 0 ? "even" : "odd" }),
    });
  } finally {
    seeding.destroy();
    redis.disconnect();
  }
  await ensureDevCertificates(env[EnvNames.agentCaDir] as string);
  consoleApi = composeConsoleApi(consoleApiConfig(env), metered.documents);
}, 300_000);

afterAll(async () => {
  await consoleApi?.close();
});

/** The agent of every operation of the tenant, page after page of the operations list. */
async function operationAgents(): Promise<string[]> {
  const agents: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await call("listOperations", { query: { limit: "100", ...(cursor ? { cursor } : {}) } });
    agents.push(...(page.items as { agentId: string }[]).map((item) => item.agentId));
    cursor = page.nextCursor as string | undefined;
  } while (cursor !== undefined);
  return agents;
}

it("queues exactly one operation for every one of 5,000 agents a selector picks, with no cap", async () => {
  const before = metered.meter.requests;
  const started = performance.now();
  const created = await call("createOperation", {
    body: { selector: { class: CLASS }, operation: "DESCRIBE", operand: "MANIFEST" },
  });
  const seconds = (performance.now() - started) / 1000;
  const requests = metered.meter.requests - before;
  console.log(
    `${AGENTS} agents selected and queued in ${seconds.toFixed(1)} s, ${requests} DynamoDB requests`,
  );

  expect(created).toMatchObject({ created: AGENTS, skipped: [], skippedCount: 0 });
  expect(created.items).toHaveLength(MAX_LISTED);
  const agents = await operationAgents();
  expect(agents).toHaveLength(AGENTS);
  expect(new Set(agents).size).toBe(AGENTS);

  // A label narrows the selection: half the class, each agent once more.
  const even = await call("createOperation", {
    body: { selector: { class: CLASS, labels: ["wave=even"] }, operation: "DESCRIBE", operand: "MANIFEST" },
  });
  expect(even).toMatchObject({ created: AGENTS / 2, skippedCount: 0 });
  const counts = new Map<string, number>();
  for (const agentId of await operationAgents()) counts.set(agentId, (counts.get(agentId) ?? 0) + 1);
  expect([...counts.values()].filter((count) => count === 2)).toHaveLength(AGENTS / 2);
  expect(counts.size).toBe(AGENTS);
}, 600_000);
