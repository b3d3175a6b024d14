import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChildService } from "../../scripts/local/child-service.js";
import { findFreePort } from "../../scripts/local/ports.js";
import { startRedisServer } from "../../scripts/local/redis-server.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { type SeededTenant, seedTenant } from "../../scripts/test-support/console-seed.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: SeededTenant;
let redisStateDir: string;
let redisServer: ChildService | undefined;

beforeAll(async () => {
  const redisPort = await findFreePort();
  redisStateDir = mkdtempSync(path.join(tmpdir(), "beacon-redis-"));
  redisServer = await startRedisServer({ port: redisPort, stateDir: redisStateDir });
  const redis = { BEACON_REDIS_URL: `redis://127.0.0.1:${redisPort}` };
  agentApi = await startAgentApi(redis);
  consoleApi = await startConsoleApi(agentApi, redis);
  tenant = await seedTenant(agentApi, consoleApi, `co-${randomUUID().slice(0, 6)}`);
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
});
