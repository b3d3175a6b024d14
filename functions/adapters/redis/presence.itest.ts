/**
 * The offline sweep's script against a real redis-server of this file's own, beside the presence contract
 * (contracts/presence.contract.ts): what it keeps per tenant, and what it costs a heartbeat.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PrivateRedis, startPrivateRedis } from "../../../scripts/test-support/private-redis.js";
import { makeRedisClient } from "../../runtime/redis-client.js";
import { CacheKeys, RetiredCacheKeys } from "./cache-keys.js";
import { RedisFleetHotState } from "./fleet-hot-state.js";
import { RedisHotState } from "./hot-state.js";
import { RedisPresenceState } from "./presence.js";

const T0 = Date.UTC(2030, 0, 1, 12);
const MINUTE = 60_000;
let server: PrivateRedis;
let client: Redis;
let presence: RedisPresenceState;
let hotState: RedisHotState;

beforeAll(async () => {
  server = await startPrivateRedis();
  client = makeRedisClient({ url: server.url, commandTimeoutMs: 2_000 }) as Redis;
  presence = new RedisPresenceState(client);
  hotState = new RedisHotState(client);
});

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

const sighting = (tenant: string, agentId: string, now: number) => ({
  tenant,
  agentId,
  agentClass: "pumps",
  manifestHash: `m-${agentId}`,
  serialNumber: "01",
  now,
  checkpointIntervalMs: 600_000,
  catchUpRetryMs: 1_800_000,
});

async function beat(tenant: string, agentId: string, now: number) {
  await hotState.rememberRevocations(tenant, []);
  await hotState.recordSighting(sighting(tenant, agentId, now));
}

describe("the offline sweep's keys", () => {
  it("schedule each agent by when it is overdue, and keep only those not marked", async () => {
    await beat("keys", "k1", T0);
    await beat("keys", "k2", T0 + 1);
    expect(await client.zrange(CacheKeys.offlineDue("keys"), 0, -1, "WITHSCORES")).toEqual([
      "k1",
      String(T0 + 3 * MINUTE),
      "k2",
      String(T0 + 3 * MINUTE + 1),
    ]);
    expect(await client.hget(CacheKeys.offlineDueAgents("keys"), "k1")).toBe(`${MINUTE}:${T0}:pumps`);
    await hotState.rememberAgentManifest("keys", "k2", {
      hash: "m-k2",
      manifestId: "binary-1",
      supportedOperations: {},
      heartbeatPeriodMs: 5_000,
    });
    expect(await client.zscore(CacheKeys.offlineDue("keys"), "k2")).toBe(String(T0 + 1 + 15_000));
    expect(await client.hget(CacheKeys.agent("keys", "k2"), "heartbeatPeriodMs")).toBe("5000");

    await presence.markOverdue("keys", T0 + 3 * MINUTE + 1, 10);
    expect(await client.zrange(CacheKeys.offlineDue("keys"), 0, -1)).toEqual([]);
    expect(await client.hgetall(CacheKeys.offlineDueAgents("keys"))).toEqual({});
    expect(await client.hgetall(CacheKeys.offlineMarks("keys"))).toEqual({
      k1: String(T0),
      k2: String(T0 + 1),
    });
  });

  it("forget an agent the console forgets, with its restart", async () => {
    await beat("rf", "gone", T0);
    await beat("rf", "kept", T0);
    await hotState.rememberRestart("rf", "gone", T0 + 100);
    await hotState.rememberRestart("rf", "kept", T0 + 100);
    await new RedisFleetHotState(client).forgetAgent("rf", "gone", ["pumps"]);
    expect(await client.hgetall(CacheKeys.restarts("rf"))).toEqual({ kept: String(T0 + 100) });
    expect(await client.zrange(CacheKeys.offlineDue("rf"), 0, -1)).toEqual(["kept"]);
    expect(Object.keys(await client.hgetall(CacheKeys.offlineDueAgents("rf")))).toEqual(["kept"]);
  });

  it("schedule once the agents silent since before scheduling, not those announced offline already", async () => {
    for (const [agentId, at] of [
      ["s1", T0],
      ["s2", T0],
      ["gone", T0 - 1],
    ] as const)
      await client.zadd(CacheKeys.classIndex("since", "pumps"), at, agentId);
    await client.hset(CacheKeys.offlineMarks("since"), "gone", String(T0 - 1));
    expect(await presence.scheduleSilent("since", "pumps", 5_000, 2)).toEqual({ read: 2, done: false });
    expect(await client.hget(CacheKeys.offlineScheduling("since"), "pumps")).toBe(`${T0}:1`);
    expect(await presence.scheduleSilent("since", "pumps", 5_000, 2)).toEqual({ read: 1, done: true });
    expect(await client.hget(CacheKeys.offlineScheduling("since"), "pumps")).toBe("done");
    expect(await client.zrange(CacheKeys.offlineDue("since"), 0, -1, "WITHSCORES")).toEqual([
      "s1",
      String(T0 + 15_000),
      "s2",
      String(T0 + 15_000),
    ]);
    // What the sweep before the schedule kept, with no time to live: let go with the scheduling's progress.
    const retired = RetiredCacheKeys.offlineSweep("since", ["pumps", "valves"]);
    for (const key of retired) await client.set(key, "1");
    await presence.markAllScheduled("since", ["pumps", "valves"]);
    expect(await client.exists(CacheKeys.offlineScheduling("since"), ...retired)).toBe(0);
    expect(await client.sismember(CacheKeys.tenantsScheduled(), "since")).toBe(1);
  });

  it("are read anew from the registry when the cache's copy of a class's policy carries no period", async () => {
    // As Beacon wrote it before it held agents to their own periods.
    await client.hset(CacheKeys.classFlow("old", "pumps"), { loaded: "1" });
    await hotState.rememberRevocations("old", []);
    const outcome = await hotState.recordSighting(sighting("old", "o1", T0));
    expect(outcome.recorded && outcome.sighting.classFlowUnknown).toBe(true);
    await hotState.rememberClassFlow("old", "pumps", undefined, 5 * MINUTE);
    const next = await hotState.recordSighting(sighting("old", "o1", T0 + 1));
    expect(next.recorded && next.sighting.classFlowUnknown).toBe(false);
    expect(await client.zscore(CacheKeys.offlineDue("old"), "o1")).toBe(String(T0 + 1 + 15 * MINUTE));
  });

  it("cost a steady heartbeat nothing beyond its one round trip, and a manifest learned one", async () => {
    await beat("steady", "s1", T0);
    const { roundTrips } = await server.countRoundTrips(() =>
      hotState.recordSighting(sighting("steady", "s1", T0 + 1)),
    );
    expect(roundTrips).toEqual(["evalsha"]);
    const known = { hash: "m-s1", manifestId: "binary-1", supportedOperations: {}, heartbeatPeriodMs: 5_000 };
    const learned = await server.countRoundTrips(() => hotState.rememberAgentManifest("steady", "s1", known));
    expect(learned.roundTrips).toEqual(["evalsha"]);
  });
});
