/**
 * The hot state in a process too busy to read the cache's answers in time, as the agent API is while it parses
 * a herd's large first heartbeats: every call a new agent's first heartbeat makes is one round trip, so that the
 * deadline, which lets the process read what arrived before it fails a call, never fails one the cache answered.
 * A call of two round trips sent its second only once the first answer was read, after the deadline.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sharedRedis } from "../contracts/local-stack.js";
import { withDeadline } from "./deadline.js";
import { RedisHotState } from "./hot-state.js";

const redis = sharedRedis();
const DEADLINE_MS = 20;

/** Keeps the event loop from its timers and sockets for `ms`, as parsing a herd's manifests does. */
function busyFor(ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

/**
 * Starts `call` and keeps the process busy well past its deadline before it may read any answer: long enough
 * for the cache, another process on a machine as busy as CI's, to have answered meanwhile.
 */
function answeredWhileBusy<T>(call: () => Promise<T>): Promise<T> {
  const answer = call();
  busyFor(DEADLINE_MS * 10);
  return answer;
}

describe("the hot state in a busy process", () => {
  it("answers each call of a new agent's first heartbeat within its deadline", async () => {
    const unhurried = new RedisHotState(redis.client);
    const hotState = withDeadline(unhurried, DEADLINE_MS);
    const tenant = `busy-${randomUUID().slice(0, 8)}`;
    const agentId = "agent-1";
    const now = Date.now();
    const sighting = (id: string) => ({
      tenant,
      agentId: id,
      serialNumber: "0A",
      now,
      checkpointIntervalMs: 600_000,
      catchUpRetryMs: 1_800_000,
    });
    // The server learns the sighting script at its first call since it started (a second round trip, once).
    // Without a deadline: on a busy machine that first call, not what this test is about, can take longer.
    await unhurried.recordSighting(sighting("agent-0"));
    await expect(answeredWhileBusy(() => hotState.recordSighting(sighting(agentId)))).resolves.toBeDefined();
    await expect(answeredWhileBusy(() => hotState.rememberClass(tenant, "pumps"))).resolves.toBe(true);
    await expect(answeredWhileBusy(() => hotState.rememberClass(tenant, "pumps"))).resolves.toBe(false);
    await expect(
      answeredWhileBusy(() =>
        hotState.markRegistered(tenant, agentId, { now, ownValues: new Map(), agentClass: "pumps" }),
      ),
    ).resolves.toBe(false);
    await expect(answeredWhileBusy(() => hotState.isManifestStored(tenant, "binary-1"))).resolves.toBe(false);
  });
});
