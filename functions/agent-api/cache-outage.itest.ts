import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { example, exampleText } from "../../scripts/common/c2-examples.js";
import type { ChildService } from "../../scripts/local/child-service.js";
import { findFreePort } from "../../scripts/local/ports.js";
import { startRedisServer } from "../../scripts/local/redis-server.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import type { JsonObject } from "../core/json.js";

let api: AgentApiUnderTest;
let fleet: string;
let redisPort: number;
let redisStateDir: string;
let redisServer: ChildService | undefined;

const HEARTBEAT = "/c2/api/heartbeat";
const fullHeartbeat = (agentId: string) =>
  exampleText("cpp/heartbeat-full.json").replace("9628acfe-b9fe-11ef-a0c0-10f60a596f64", agentId);
const lightHeartbeat = (agentId: string, hash?: string): JsonObject => {
  const heartbeat = example("cpp/heartbeat-light.json");
  const agentInfo = heartbeat.agentInfo as JsonObject;
  agentInfo.identifier = agentId;
  if (hash) agentInfo.agentManifestHash = hash;
  return heartbeat;
};
const dynamoDbRequests = () =>
  Object.values(api.dynamoDb.counts()).reduce((total, count) => total + count, 0);

async function heartbeat(agentId: string, hash?: string) {
  const response = await api.post(HEARTBEAT, lightHeartbeat(agentId, hash), { certificate: fleet });
  expect(response.status).toBe(200);
  return response.json().requestedOperations as { operation: string; operand?: string }[];
}

/** DynamoDB requests one heartbeat of this agent costs right now. */
async function costOfOneHeartbeat(agentId: string) {
  api.dynamoDb.reset();
  expect(await heartbeat(agentId)).toEqual([]);
  return dynamoDbRequests();
}

beforeAll(async () => {
  redisPort = await findFreePort();
  redisStateDir = mkdtempSync(path.join(tmpdir(), "beacon-redis-"));
  redisServer = await startRedisServer({ port: redisPort, stateDir: redisStateDir });
  api = await startAgentApi({ BEACON_REDIS_URL: `redis://127.0.0.1:${redisPort}` });
  fleet = await api.issueCertificate({ tenant: `t-${randomUUID().slice(0, 8)}`, fleet: true });
});

afterAll(async () => {
  await api?.close();
  await redisServer?.stop();
  rmSync(redisStateDir, { recursive: true, force: true });
});

describe("when the cache goes away", () => {
  it("keeps answering correctly from DynamoDB, and returns to the fast path when the cache is back", async () => {
    const known = "outage-known";
    expect((await api.post(HEARTBEAT, fullHeartbeat(known), { certificate: fleet })).status).toBe(200);
    await heartbeat(known);
    expect(await costOfOneHeartbeat(known)).toBe(0);

    await redisServer?.stop();
    redisServer = undefined;

    expect(await costOfOneHeartbeat(known)).toBeGreaterThan(0);
    expect(await heartbeat(known)).toEqual([]);
    const newcomer = "outage-newcomer";
    expect(await heartbeat(newcomer, "UNKNOWN-HASH-1")).toEqual([
      { identifier: expect.any(String), operation: "DESCRIBE", operand: "MANIFEST" },
    ]);
    expect(await heartbeat(newcomer, "UNKNOWN-HASH-1")).toEqual([]);

    redisServer = await startRedisServer({ port: redisPort, stateDir: redisStateDir });
    // The client reconnects on its own schedule, slower on a busy machine: wait for the fast path, not a count.
    let cost = Number.POSITIVE_INFINITY;
    for (const deadline = Date.now() + 60_000; cost > 0 && Date.now() < deadline; ) {
      cost = await costOfOneHeartbeat(known);
      if (cost > 0) await sleep(250);
    }
    expect(cost).toBe(0);
    expect(await heartbeat(newcomer, "UNKNOWN-HASH-1")).toEqual([]);
  });
});
