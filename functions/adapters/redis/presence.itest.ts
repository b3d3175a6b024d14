/**
 * The offline sweep's script against a real redis-server of this file's own: it marks the overdue agents of
 * a class index once each, a bounded number per call, oldest first, going on from where it stopped, and
 * the heartbeat's script clears a mark in its one round trip. An agent restarting for an operation is
 * marked only once its restart is over, should it still be silent then, however often the sweep looked.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PrivateRedis, startPrivateRedis } from "../../../scripts/test-support/private-redis.js";
import { makeRedisClient } from "../../shared/redis-client.js";
import { CacheKeys } from "./cache-keys.js";
import { RedisFleetHotState } from "./fleet-hot-state.js";
import { RedisHotState } from "./hot-state.js";
import { RedisPresenceState } from "./presence.js";

const T0 = Date.UTC(2030, 0, 1, 12);
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

/** Agents of the class last seen at the given times, as the heartbeat's script indexes them. */
async function seen(tenant: string, className: string, agents: Record<string, number>) {
  for (const [agentId, at] of Object.entries(agents))
    await client.zadd(CacheKeys.classIndex(tenant, className), at, agentId);
}

const idsOf = (look: { marked: { agentId: string }[] }) => look.marked.map(({ agentId }) => agentId);

describe("the offline sweep's script", () => {
  it("marks the agents last seen before the cutoff once each, oldest first, a bounded number a call", async () => {
    await seen("acme", "pumps", { p1: T0, p2: T0 + 1, p3: T0 + 2, p4: T0 + 3, fresh: T0 + 100 });
    const cutoff = T0 + 50;
    expect(await presence.markOverdue("acme", "pumps", cutoff, 2)).toEqual({
      marked: [
        { agentId: "p1", lastSeen: T0 },
        { agentId: "p2", lastSeen: T0 + 1 },
      ],
      more: true,
    });
    expect(idsOf(await presence.markOverdue("acme", "pumps", cutoff, 2))).toEqual(["p3", "p4"]);
    expect(await presence.markOverdue("acme", "pumps", cutoff, 2)).toEqual({ marked: [], more: false });
    expect(await presence.markOverdue("acme", "pumps", T0 + 1_000, 10)).toEqual({
      marked: [{ agentId: "fresh", lastSeen: T0 + 100 }],
      more: false,
    });
    expect(await client.hgetall(CacheKeys.offlineMarks("acme"))).toEqual({
      p1: String(T0),
      p2: String(T0 + 1),
      p3: String(T0 + 2),
      p4: String(T0 + 3),
      fresh: String(T0 + 100),
    });
  });

  it("goes past many agents last seen in the same millisecond without skipping or repeating one", async () => {
    const agents = Object.fromEntries(Array.from({ length: 7 }, (_, index) => [`v${index}`, T0]));
    await seen("acme", "valves", agents);
    const marked: string[] = [];
    for (let look = 0; look < 4; look++)
      marked.push(...idsOf(await presence.markOverdue("acme", "valves", T0 + 1, 2)));
    expect(marked.sort()).toEqual(Object.keys(agents).sort());
  });

  it("reads only where the previous call stopped, not the agents already marked", async () => {
    await seen(
      "bulk",
      "meters",
      Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`m${index}`, T0 + index])),
    );
    await presence.markOverdue("bulk", "meters", T0 + 1_000, 40);
    expect(await client.hget(CacheKeys.offlineCursors("bulk"), "meters")).toBe(`${T0 + 39}:1`);
    // Without their marks, the agents already looked at would be marked again by a call that read them.
    await client.del(CacheKeys.offlineMarks("bulk"));
    const rest = await presence.markOverdue("bulk", "meters", T0 + 1_000, 40);
    expect(idsOf(rest)).toEqual(Array.from({ length: 10 }, (_, index) => `m${40 + index}`));
    expect(rest.more).toBe(false);
  });

  it("leaves an agent that heartbeat again to be marked anew when it next goes silent", async () => {
    await hotState.rememberRevocations("back", []);
    const beat = (now: number) =>
      hotState.recordSighting({
        tenant: "back",
        agentId: "b1",
        agentClass: "pumps",
        serialNumber: "01",
        now,
        checkpointIntervalMs: 600_000,
        catchUpRetryMs: 1_800_000,
      });
    await beat(T0);
    expect(idsOf(await presence.markOverdue("back", "pumps", T0 + 1, 10))).toEqual(["b1"]);
    const back = await beat(T0 + 500);
    expect(back.recorded && back.sighting.offlineLastSeen).toBe(T0);
    const steady = await beat(T0 + 600);
    expect(steady.recorded && steady.sighting.offlineLastSeen).toBeUndefined();
    expect(await presence.markOverdue("back", "pumps", T0 + 601, 10)).toEqual({
      marked: [{ agentId: "b1", lastSeen: T0 + 600 }],
      more: false,
    });
  });

  it("marks a restarting agent once its restart is over, though an earlier look went past it", async () => {
    await seen("rs", "pumps", { r1: T0, quiet: T0 + 1 });
    await hotState.rememberRestart("rs", "r1", T0 + 100);
    expect(await presence.markOverdue("rs", "pumps", T0 + 50, 10)).toEqual({
      marked: [{ agentId: "quiet", lastSeen: T0 + 1 }],
      more: false,
    });
    expect(await client.zrange(CacheKeys.restartsPassed("rs", "pumps"), 0, -1, "WITHSCORES")).toEqual([
      "r1",
      String(T0 + 100),
    ]);
    // Not before the cutoff is past the restart's deadline.
    expect(idsOf(await presence.markOverdue("rs", "pumps", T0 + 100, 10))).toEqual([]);
    expect(await presence.markOverdue("rs", "pumps", T0 + 101, 10)).toEqual({
      marked: [{ agentId: "r1", lastSeen: T0 }],
      more: false,
    });
    expect(idsOf(await presence.markOverdue("rs", "pumps", T0 + 1_000, 10))).toEqual([]);
    expect(await client.exists(CacheKeys.restarts("rs"), CacheKeys.restartsPassed("rs", "pumps"))).toBe(0);
  });

  it("never marks a restarting agent that came back, and holds one sent another restart for the later one", async () => {
    await hotState.rememberRevocations("rb", []);
    const beat = (agentId: string, now: number) =>
      hotState.recordSighting({
        tenant: "rb",
        agentId,
        agentClass: "pumps",
        serialNumber: "01",
        now,
        checkpointIntervalMs: 600_000,
        catchUpRetryMs: 1_800_000,
      });
    await beat("back", T0);
    await beat("again", T0);
    await hotState.rememberRestart("rb", "back", T0 + 100);
    await hotState.rememberRestart("rb", "again", T0 + 100);
    expect(idsOf(await presence.markOverdue("rb", "pumps", T0 + 50, 10))).toEqual([]);
    await beat("back", T0 + 200);
    await beat("again", T0 + 200);
    await hotState.rememberRestart("rb", "again", T0 + 300);
    expect(await client.hgetall(CacheKeys.restarts("rb"))).toEqual({ again: String(T0 + 300) });

    expect(idsOf(await presence.markOverdue("rb", "pumps", T0 + 150, 10))).toEqual([]);
    expect(await client.zrange(CacheKeys.restartsPassed("rb", "pumps"), 0, -1, "WITHSCORES")).toEqual([
      "again",
      String(T0 + 300),
    ]);
    await beat("back", T0 + 350);
    expect(await presence.markOverdue("rb", "pumps", T0 + 301, 10)).toEqual({
      marked: [{ agentId: "again", lastSeen: T0 + 200 }],
      more: false,
    });
    // Silent again later, it is announced as any agent is.
    expect(await presence.markOverdue("rb", "pumps", T0 + 1_000, 10)).toEqual({
      marked: [{ agentId: "back", lastSeen: T0 + 350 }],
      more: false,
    });
  });

  it("counts the restarts it looks at again against its limit", async () => {
    await seen("rl", "pumps", { a: T0, b: T0 + 1, c: T0 + 2, d: T0 + 3 });
    for (const agentId of ["a", "b", "c"]) await hotState.rememberRestart("rl", agentId, T0 + 100);
    expect(await presence.markOverdue("rl", "pumps", T0 + 50, 10)).toEqual({
      marked: [{ agentId: "d", lastSeen: T0 + 3 }],
      more: false,
    });
    expect(await presence.markOverdue("rl", "pumps", T0 + 101, 2)).toEqual({
      marked: [
        { agentId: "a", lastSeen: T0 },
        { agentId: "b", lastSeen: T0 + 1 },
      ],
      more: true,
    });
    expect(await presence.markOverdue("rl", "pumps", T0 + 101, 2)).toEqual({
      marked: [{ agentId: "c", lastSeen: T0 + 2 }],
      more: false,
    });
  });

  it("forgets the restart of an agent the console forgets", async () => {
    await hotState.rememberRestart("rf", "gone", T0 + 100);
    await hotState.rememberRestart("rf", "kept", T0 + 100);
    await new RedisFleetHotState(client).forgetAgent("rf", "gone", ["pumps"]);
    expect(await client.hgetall(CacheKeys.restarts("rf"))).toEqual({ kept: String(T0 + 100) });
  });

  it("keeps a steady heartbeat at one round trip with the offline mark in its script", async () => {
    await hotState.rememberRevocations("steady", []);
    const sighting = {
      tenant: "steady",
      agentId: "s1",
      agentClass: "pumps",
      serialNumber: "01",
      now: T0,
      checkpointIntervalMs: 600_000,
      catchUpRetryMs: 1_800_000,
    };
    await hotState.recordSighting(sighting);
    const { roundTrips } = await server.countRoundTrips(() =>
      hotState.recordSighting({ ...sighting, now: T0 + 1 }),
    );
    expect(roundTrips).toEqual(["evalsha"]);
  });
});
