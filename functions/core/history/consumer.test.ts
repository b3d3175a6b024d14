import { describe, expect, it } from "vitest";
import { MemoryAgentEventLog, MemoryFleetHistory } from "../../adapters/memory/history.js";
import type {
  AgentOfflineEvent,
  AgentOnlineEvent,
  BeaconEvent,
  HeartbeatEvent,
  OperationEvent,
  RolloutEvent,
} from "../events/model.js";
import type { StreamRecord } from "../events/ports.js";
import { comparePositions } from "../events/positions.js";
import { makeHistoryConsumer } from "./consumer.js";
import { MINUTE_MS, WHOLE_FLEET } from "./model.js";
import { estimateAgents } from "./sketch.js";

const T0 = 29_000_000 * MINUTE_MS;
let ids = 0;

const heartbeat = (agentId: string, at: number, extra: Partial<HeartbeatEvent> = {}): HeartbeatEvent => ({
  type: "heartbeat",
  version: 1,
  eventId: `hb-${++ids}`,
  tenant: "acme",
  agentId,
  at,
  agentClass: "pumps",
  firstSight: false,
  operationsSent: [],
  ...extra,
});

const operation = (state: OperationEvent["state"], at: number, agentClass?: string): OperationEvent => ({
  type: "operation",
  version: 1,
  eventId: `op-${++ids}`,
  tenant: "acme",
  agentId: "pump-1",
  ...(agentClass === undefined ? {} : { agentClass }),
  at,
  operationId: `op-1~pump-1`,
  operation: "UPDATE",
  operand: "CONFIGURATION",
  from: "delivered",
  state,
});

const rollout = (at: number): RolloutEvent => ({
  type: "rollout",
  version: 1,
  eventId: `ro-${++ids}`,
  tenant: "acme",
  at,
  rolloutId: "r-1",
  className: "pumps",
  toFlow: "f".repeat(64),
  state: "canary",
  counts: {} as RolloutEvent["counts"],
});

const offline = (agentId: string, at: number): AgentOfflineEvent => ({
  type: "agent.offline",
  version: 1,
  eventId: `off-${++ids}`,
  tenant: "acme",
  agentId,
  at,
  agentClass: "pumps",
  lastSeen: at - 200_000,
  heartbeatPeriodMs: 60_000,
});

const online = (agentId: string, at: number): AgentOnlineEvent => ({
  type: "agent.online",
  version: 1,
  eventId: `on-${++ids}`,
  tenant: "acme",
  agentId,
  at,
  agentClass: "pumps",
  lastSeen: at - 300_000,
});

/** Records of one shard from `first` on, their positions growing in length (1, 8, 15): compared as numbers. */
const onShard = (shard: string, events: BeaconEvent[], first = 1): StreamRecord[] =>
  events.map((event, index) => ({ shard, position: String(first + index * 7), event }));

function subject() {
  const history = new MemoryFleetHistory();
  const agentEvents = new MemoryAgentEventLog();
  return { history, agentEvents, consumer: makeHistoryConsumer({ history, agentEvents }) };
}

const countsIn = async (history: MemoryFleetHistory, agentClass: string, minute: number) => {
  const [bucket] = await history.read("acme", agentClass, minute, minute + 1);
  return bucket && { ...bucket.counts, agentsSeen: estimateAgents(bucket.agentsSeen) };
};

/** A minute's worth of a small fleet: registrations, steady heartbeats, bulletins, operations, a rollout. */
function fleetEvents(): BeaconEvent[] {
  return [
    heartbeat("pump-1", T0 + 1_000, { firstSight: true }),
    heartbeat("pump-2", T0 + 2_000, { firstSight: true, status: { errorBulletins: 2 } }),
    heartbeat("valve-1", T0 + 3_000, { agentClass: "valves" }),
    operation("done", T0 + 4_000, "pumps"),
    heartbeat("pump-1", T0 + 31_000),
    operation("failed", T0 + 32_000, "pumps"),
    // An operation created before its events named its agent's class counts for the whole fleet only.
    operation("timed_out", T0 + 33_000),
    operation("delivered", T0 + 34_000),
    rollout(T0 + 35_000),
    // It lists its ERROR bulletin again: not a new one.
    heartbeat("pump-2", T0 + 36_000, { status: { errorBulletins: 1 }, newErrorBulletins: 0 }),
    offline("pump-3", T0 + 40_000),
    offline("pump-4", T0 + 41_000),
    online("pump-5", T0 + 42_000),
    // Counted nowhere, and kept in no agent's log.
    {
      type: "webhook.disabled",
      version: 1,
      eventId: "webhook-disabled-1",
      tenant: "acme",
      at: T0 + 43_000,
      subscriptionId: "sub-1",
      reason: "The receiver answered 410 Gone",
    },
    heartbeat("pump-1", T0 + MINUTE_MS + 1_000),
  ];
}

const minute0 = T0 / MINUTE_MS;

describe("fleet history, counted from the stream", () => {
  it("counts each class's minute and the whole fleet's, agents seen once however often they heartbeat", async () => {
    const { history, consumer } = subject();
    await consumer.consume(onShard("shard-0", fleetEvents()));
    expect(await countsIn(history, "pumps", minute0)).toEqual({
      heartbeats: 4,
      registrations: 2,
      errorBulletins: 2,
      agentsSeen: 2,
      operationsQueued: 0,
      operationsDelivered: 0,
      operationsCancelled: 0,
      operationsDone: 1,
      operationsFailed: 1,
      operationsTimedOut: 0,
      rolloutTransitions: 1,
      agentsWentOffline: 2,
      agentsCameOnline: 1,
    });
    expect(await countsIn(history, WHOLE_FLEET, minute0)).toEqual({
      heartbeats: 5,
      registrations: 2,
      errorBulletins: 2,
      agentsSeen: 3,
      operationsQueued: 0,
      operationsDelivered: 1,
      operationsCancelled: 0,
      operationsDone: 1,
      operationsFailed: 1,
      operationsTimedOut: 1,
      rolloutTransitions: 1,
      agentsWentOffline: 2,
      agentsCameOnline: 1,
    });
    expect(await countsIn(history, "pumps", minute0 + 1)).toMatchObject({ heartbeats: 1, agentsSeen: 1 });
    expect(await countsIn(history, "valves", minute0)).toMatchObject({ heartbeats: 1, agentsSeen: 1 });
  });

  it("counts operations by the state each entered, in their class: a delivery once, however its effect is confirmed", async () => {
    const { history, consumer } = subject();
    await consumer.consume(
      onShard("shard-0", [
        operation("queued", T0 + 1_000, "pumps"),
        operation("queued", T0 + 2_000, "pumps"),
        operation("cancelled", T0 + 3_000, "pumps"),
        operation("delivered", T0 + 4_000, "pumps"),
        operation("awaiting_effect", T0 + 5_000, "pumps"),
        operation("done", T0 + 6_000, "pumps"),
      ]),
    );
    expect(await countsIn(history, "pumps", minute0)).toMatchObject({
      operationsQueued: 2,
      operationsCancelled: 1,
      operationsDelivered: 1,
      operationsDone: 1,
      operationsFailed: 0,
      operationsTimedOut: 0,
    });
  });

  it("writes nothing when the same batch comes again", async () => {
    const { history, consumer } = subject();
    const records = onShard("shard-0", fleetEvents());
    await consumer.consume(records);
    const before = structuredClone([...history.items]);
    const writes = history.writes;
    await consumer.consume(records);
    expect(history.writes).toBe(writes);
    expect([...history.items]).toEqual(before);
  });

  it("counts a batch split differently on redelivery as it counts it once", async () => {
    const events = fleetEvents();
    const records = [
      ...onShard("shard-0", events.slice(0, 6)),
      ...onShard("shard-1", events.slice(6), 1_000_000_000_000),
    ];
    const once = subject();
    await once.consumer.consume(records);

    const again = subject();
    const shard0 = records.filter((record) => record.shard === "shard-0");
    const shard1 = records.filter((record) => record.shard === "shard-1");
    // Delivered, failed partway, then delivered again in other splits; the shards move on independently.
    await again.consumer.consume([...shard0.slice(0, 4), ...shard1.slice(0, 2)]);
    await again.consumer.consume(shard0.slice(0, 2));
    await Promise.all([again.consumer.consume(shard0.slice(2)), again.consumer.consume(shard1.slice(0, 3))]);
    await again.consumer.consume(shard1);
    await again.consumer.consume(records);

    const bucketsOf = (history: MemoryFleetHistory) =>
      new Map([...history.items].map(([id, { item: bucket }]) => [id, bucket]));
    expect(bucketsOf(again.history)).toEqual(bucketsOf(once.history));
  });

  it("loses no shard's records when two shards update one bucket at once", async () => {
    const { history, consumer } = subject();
    const shards = Array.from({ length: 4 }, (_, shard) =>
      onShard(
        `shard-${shard}`,
        Array.from({ length: 5 }, (_, index) => heartbeat(`pump-${shard}-${index}`, T0 + index)),
      ),
    );
    await Promise.all(shards.map((records) => consumer.consume(records)));
    expect(await countsIn(history, "pumps", minute0)).toMatchObject({ heartbeats: 20, agentsSeen: 20 });
  });

  it("orders positions as numbers: a longer sequence number is a later one", () => {
    expect(comparePositions("9", "10")).toBeLessThan(0);
    expect(
      comparePositions(
        "49590338271490256608559692538361571095921575989136588898",
        "49590338271490256608559692540925702759324208523137515618",
      ),
    ).toBeLessThan(0);
    expect(comparePositions("12", "12")).toBe(0);
  });
});

describe("the agent's event log", () => {
  it("keeps first sightings, acknowledgements and operations by id, not steady heartbeats", async () => {
    const { agentEvents, consumer } = subject();
    const events = fleetEvents();
    const ack: BeaconEvent = {
      type: "ack",
      version: 1,
      eventId: "ack-1",
      tenant: "acme",
      agentId: "pump-1",
      at: T0 + 3_500,
      operationId: "op-1~pump-1",
      state: "FULLY_APPLIED",
      matched: true,
    };
    const unnamed: BeaconEvent = { ...ack, eventId: "ack-2", agentId: undefined };
    await consumer.consume(onShard("shard-0", [...events, ack, unnamed]));
    await consumer.consume(onShard("shard-0", [ack, ...events.slice(0, 3)]));
    const page = await agentEvents.list("acme", "pump-1", { limit: 100, descending: true });
    expect(page.items.map((event) => (event.type === "operation" ? event.state : event.type))).toEqual([
      "delivered",
      "timed_out",
      "failed",
      "done",
      "ack",
      "heartbeat",
    ]);
    expect((await agentEvents.list("acme", "valve-1", { limit: 10 })).items).toEqual([]);
  });

  it("keeps when the agent went offline and when it came back", async () => {
    const { agentEvents, consumer } = subject();
    await consumer.consume(onShard("shard-0", [offline("pump-5", T0 + 1_000), online("pump-5", T0 + 9_000)]));
    const page = await agentEvents.list("acme", "pump-5", { limit: 10 });
    expect(page.items.map((event) => event.type)).toEqual(["agent.offline", "agent.online"]);
  });
});
