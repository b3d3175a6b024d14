import { describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryFleetRegistry } from "../../adapters/memory/fleet-registry.js";
import { MemoryAgentEventLog, MemoryFleetHistory } from "../../adapters/memory/history.js";
import type { HeartbeatEvent } from "../events/model.js";
import type { Principal } from "../identity/principal.js";
import { makeHistoryApi } from "./console-history.js";
import { makeHistoryConsumer } from "./consumer.js";

const MINUTE = 60_000;

function subject(history = new MemoryFleetHistory()) {
  const agentEvents = new MemoryAgentEventLog();
  const registry = new MemoryFleetRegistry();
  const clock = new ManualClock();
  return {
    clock,
    history,
    registry,
    consumer: makeHistoryConsumer({ history, agentEvents }),
    api: makeHistoryApi({ history, agentEvents, registry, clock }),
  };
}

const viewer: Principal = { tenant: "acme", role: "viewer", subject: "v" };
const heartbeat = (agentId: string, at: number, firstSight = false): HeartbeatEvent => ({
  type: "heartbeat",
  version: 1,
  eventId: `${agentId}-${at}`,
  tenant: "acme",
  agentId,
  at,
  agentClass: "pumps",
  firstSight,
  operationsSent: [],
});

describe("the fleet history a chart reads", () => {
  it("answers a point per step over whole minutes, the last hour by default, zeros where nothing was counted", async () => {
    const { api, clock, consumer } = subject();
    const now = clock.now() + 30_000;
    clock.time = now;
    const events = [0, 1, 2, 5].flatMap((minutesAgo) =>
      ["pump-1", "pump-2"].map((agentId) => heartbeat(agentId, now - minutesAgo * MINUTE)),
    );
    await consumer.consume(
      events.map((event, index) => ({ shard: "s", position: String(index + 1), event })),
    );

    const lastHour = (await api.fleet(viewer, {})).body as { from: string; to: string; points: object[] };
    expect(lastHour.points).toHaveLength(61);
    expect(lastHour.to).toBe(new Date(Math.ceil(now / MINUTE) * MINUTE).toISOString());
    expect(lastHour.points.at(-1)).toMatchObject({ heartbeats: 2, agentsSeen: 2, operationsDone: 0 });
    expect(lastHour.points.at(-5)).toEqual(expect.objectContaining({ heartbeats: 0, agentsSeen: 0 }));

    // Minutes 10 to 6 ago, 5 to 1 ago, and the current one: the last point is as short as the range leaves it.
    const byFive = (
      await api.fleet(viewer, {
        agentClass: "pumps",
        from: now - 10 * MINUTE,
        to: now,
        stepSeconds: 300,
      })
    ).body as { class: string; points: Record<string, unknown>[] };
    expect(byFive.class).toBe("pumps");
    expect(byFive.points.map((point) => [point.heartbeats, point.agentsSeen])).toEqual([
      [0, 0],
      [6, 2],
      [2, 2],
    ]);
    expect(byFive.points[0]).toMatchObject({ operationsDone: 0, operationsFailed: 0, operationsTimedOut: 0 });
  });

  it.each([
    [{ stepSeconds: 90 }, /whole number of minutes/],
    [{ from: 2 * MINUTE, to: MINUTE }, /before/],
    [{ from: 0, to: 24 * 60 * MINUTE + 1 }, /24 hours/],
    [{ to: Number.NaN }, /times/],
    // Year 18: minutes before 1970 have no place in the history's keys.
    [{ to: Date.parse("0018-05-14T23:29:01Z") }, /times/],
    [{ from: -MINUTE, to: MINUTE }, /times/],
  ])("refuses %j", async (request, message) => {
    await expect(subject().api.fleet(viewer, request)).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(message),
    });
  });

  it("reads a minute counted before the offline and online counters existed as zero of them", async () => {
    const { api, clock, consumer, history } = subject();
    clock.advance(30_000);
    await consumer.consume([{ shard: "s", position: "1", event: heartbeat("pump-1", clock.now()) }]);
    for (const { item: bucket } of history.items.values()) {
      const { agentsWentOffline: _offline, agentsCameOnline: _online, ...older } = bucket.counts;
      bucket.counts = older as typeof bucket.counts;
    }
    const points = ((await api.fleet(viewer, {})).body as { points: object[] }).points;
    expect(points.at(-1)).toMatchObject({ heartbeats: 1, agentsWentOffline: 0, agentsCameOnline: 0 });
  });
});

describe("the agent's events a console reads", () => {
  it("pages them newest first, only for an agent of the caller's tenant", async () => {
    const { api, registry, consumer } = subject();
    registry.add({ tenant: "acme", agentId: "pump-1", agentClass: "pumps", firstSeen: 0, lastSeen: 0 });
    const events = [heartbeat("pump-1", 1_000, true), heartbeat("pump-1", 2_000)];
    await consumer.consume(
      events.map((event, index) => ({ shard: "s", position: String(index + 1), event })),
    );
    const page = (await api.agent(viewer, "pump-1", { limit: 1 })).body as {
      items: object[];
      nextCursor: string;
    };
    expect(page.items).toEqual([
      {
        type: "heartbeat",
        eventId: "pump-1-1000",
        agentId: "pump-1",
        at: new Date(1_000).toISOString(),
        agentClass: "pumps",
        firstSight: true,
        operationsSent: [],
      },
    ]);
    expect((await api.agent(viewer, "pump-1", { cursor: page.nextCursor })).body).toEqual({ items: [] });
    await expect(api.agent({ ...viewer, tenant: "other" }, "pump-1", {})).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
