import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChildService } from "../../scripts/local/child-service.js";
import { findFreePort } from "../../scripts/local/ports.js";
import { startRedisServer } from "../../scripts/local/redis-server.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeat, type SeededTenant, seedTenant } from "../../scripts/test-support/console-seed.js";
import { Keys } from "../adapters/dynamodb/keys.js";
import { makeDynamoDbClient } from "../runtime/aws-clients/dynamodb.js";
import { EnvNames } from "../shared/env-names.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: SeededTenant;
let redisStateDir: string;
let redisServer: ChildService | undefined;
/** An agent whose last heartbeat with the cache up checkpointed its last-seen time to the registry. */
let checkpointed: { agentId: string; lastSeen: number };

/**
 * Heartbeats of the tenant's first agent until one of them writes the agent's last-seen item (the agent
 * API checkpoints every 60 ms here, give or take its jitter): that heartbeat's time, as the cache has it.
 */
async function checkpointLastSeen(seeded: SeededTenant): Promise<typeof checkpointed> {
  const fleet = await agentApi.issueCertificate({ tenant: seeded.tenant, fleet: true });
  const agentId = seeded.agentIds[0] as string;
  const documents = DynamoDBDocumentClient.from(makeDynamoDbClient(agentApi.env));
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      expect(await heartbeat(agentApi, fleet, agentId, seeded.className, seeded.manifestHash)).toBe(200);
      const agent = await consoleApi.request("GET", `/api/v1/agents/${agentId}`, {
        token: seeded.adminToken,
      });
      const cached = Date.parse(agent.json().lastSeen as string);
      const { Item } = await documents.send(
        new GetCommand({
          TableName: agentApi.env[EnvNames.tableName],
          Key: Keys.agentSeen(seeded.tenant, agentId),
        }),
      );
      if (Item?.lastSeen === cached) return { agentId, lastSeen: cached };
    }
  } finally {
    documents.destroy();
  }
  throw new Error("No heartbeat checkpointed the agent's last-seen time");
}

beforeAll(async () => {
  const redisPort = await findFreePort();
  redisStateDir = mkdtempSync(path.join(tmpdir(), "beacon-redis-"));
  redisServer = await startRedisServer({ port: redisPort, stateDir: redisStateDir });
  const redis = { BEACON_REDIS_URL: `redis://127.0.0.1:${redisPort}` };
  agentApi = await startAgentApi({ ...redis, [EnvNames.checkpointMinutes]: "0.001" });
  consoleApi = await startConsoleApi(agentApi, redis);
  tenant = await seedTenant(agentApi, consoleApi, `co-${randomUUID().slice(0, 6)}`);
  checkpointed = await checkpointLastSeen(tenant);
  await redisServer.stop();
  redisServer = undefined;
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
  await redisServer?.stop();
  rmSync(redisStateDir, { recursive: true, force: true });
});

describe("the console without its cache", () => {
  const get = (path: string) => consoleApi.request("GET", path, { token: tenant.adminToken });

  it("answers from the registry and says so", async () => {
    const agent = await get(`/api/v1/agents/${tenant.agentIds[0]}`);
    expect(agent.status).toBe(200);
    expect(agent.json()).toMatchObject({ status: "online", lastSeenFrom: "registry" });
    expect(agent.json()).not.toHaveProperty("statusSummary");
    const listed = await get("/api/v1/agents?status=online");
    expect((listed.json().items as unknown[]).length).toBe(3);
    // Why each needs attention is the cache's to tell: absent, not an empty list that would say "none".
    for (const item of listed.json().items as unknown[]) expect(item).not.toHaveProperty("attention");
    const klass = await get(`/api/v1/classes/${tenant.className}`);
    expect(klass.json()).toMatchObject({
      agents: { total: 3, online: 3, offline: 0 },
      countsFrom: "registry",
    });
    const summary = await get("/api/v1/fleet/summary");
    expect(summary.json()).toMatchObject({
      agents: { total: 3 },
      countsFrom: "registry",
      heartbeatsPerMinute: null,
    });
  });

  it("shows the last-seen time of the agent API's latest checkpoint, kept beside the agent's profile", async () => {
    const { agentId, lastSeen } = checkpointed;
    const at = new Date(lastSeen).toISOString();
    expect((await get(`/api/v1/agents/${agentId}`)).json()).toMatchObject({
      lastSeen: at,
      lastSeenFrom: "registry",
    });
    const listed = await get(`/api/v1/agents?lastSeenAfter=${encodeURIComponent(at)}`);
    expect(listed.json().items).toEqual([expect.objectContaining({ agentId, lastSeen: at })]);
  });

  it("still revokes: the registry's revocation list is the truth", async () => {
    const revoked = await consoleApi.request(
      "POST",
      `/api/v1/certificates/${tenant.certificateSerial}/revoke`,
      {
        token: tenant.adminToken,
      },
    );
    expect(revoked.status).toBe(200);
    expect(revoked.json()).toMatchObject({ state: "revoked" });
  });

  it("refuses a pin and an unpin, which heartbeats would not learn of, and changes nothing", async () => {
    const agentId = tenant.agentIds[1] as string;
    const path = `/api/v1/agents/${agentId}/pin`;
    for (const [method, body] of [
      ["PUT", { flowHash: tenant.flowHash }],
      ["DELETE", undefined],
    ] as const) {
      const refused = await consoleApi.request(method, path, { token: tenant.adminToken, body });
      expect(refused.status, refused.body).toBe(503);
      expect(refused.json()).toMatchObject({ error: { code: "cache_unavailable" } });
    }
    expect((await get(`/api/v1/agents/${agentId}`)).json()).not.toHaveProperty("pinnedFlow");
  });
});
