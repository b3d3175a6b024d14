import { describe, expect, it } from "vitest";
import { MemoryEventBuffer } from "../../adapters/memory/event-buffer.js";
import { MemoryEventOutbox } from "../../adapters/memory/event-outbox.js";
import { MemoryEventSink } from "../../adapters/memory/event-sink.js";
import type { BeaconEvent, OperationEvent } from "./model.js";
import type { KeptEvents } from "./ports.js";
import {
  clearingStaged,
  EventsKeptForRelay,
  holdingWhenDown,
  nextHeldBatch,
  PublishFailure,
  relayHeld,
  relayStaged,
  resending,
  type UnpublishedEvents,
} from "./publishing.js";

const START = Date.UTC(2026, 10, 24);
/** Every put whose outcome was unknown has long settled: the relays need not wait for any. */
const SETTLED = Number.POSITIVE_INFINITY;

const staged = (outbox: MemoryEventOutbox, minutes: number): OperationEvent => {
  const event: OperationEvent = {
    type: "operation",
    version: 1,
    eventId: `e-${minutes}`,
    tenant: "acme",
    agentId: "a-1",
    at: START + minutes * 60_000,
    operationId: `op-${minutes}`,
    operation: "RESTART",
    state: "queued",
  };
  outbox.stage(event);
  return event;
};

describe("publishing through the outbox", () => {
  it("forgets staged events once the stream has them, and keeps them when it does not", async () => {
    const outbox = new MemoryEventOutbox();
    const stream = new MemoryEventSink();
    const sink = clearingStaged(stream, outbox, () => {});
    const first = staged(outbox, 1);
    const second = staged(outbox, 2);
    stream.failing = true;
    await expect(sink.publish([first])).rejects.toThrow();
    stream.failing = false;
    await sink.publish([second]);
    expect([...outbox.staged.values()]).toEqual([first]);
    expect(stream.events).toEqual([second]);
  });

  it("reports a clearance that failed instead of failing a publish the stream took", async () => {
    const outbox = new MemoryEventOutbox();
    outbox.clear = async () => {
      throw new Error("table unavailable");
    };
    const reported: string[] = [];
    const sink = clearingStaged(new MemoryEventSink(), outbox, (error, events) =>
      reported.push(`${(error as Error).message}: ${events.map((event) => event.eventId)}`),
    );
    await sink.publish([staged(outbox, 1)]);
    expect(reported).toEqual(["table unavailable: e-1"]);
  });
});

describe("the relay", () => {
  it("puts the oldest staged events written before the time given on the stream, at most the limit, and forgets them", async () => {
    const outbox = new MemoryEventOutbox();
    const stream = new MemoryEventSink();
    const events = [3, 1, 2, 9].map((minutes) => staged(outbox, minutes));
    const before = START + 5 * 60_000;
    expect(await relayStaged(outbox, stream, before, 2)).toEqual({ relayed: 2, more: true });
    expect(stream.events).toEqual([events[1], events[2]]);
    expect(await relayStaged(outbox, stream, before, 2)).toEqual({ relayed: 1, more: false });
    expect(stream.events).toEqual([events[1], events[2], events[0]]);
    // Younger than `before`: its writer may still be putting it.
    expect([...outbox.staged.values()]).toEqual([events[3]]);
    expect(await relayStaged(outbox, stream, before, 2)).toEqual({ relayed: 0, more: false });
  });

  it("keeps what it could not put, for the next run", async () => {
    const outbox = new MemoryEventOutbox();
    const stream = new MemoryEventSink();
    const event = staged(outbox, 1);
    stream.failing = true;
    await expect(relayStaged(outbox, stream, START + 60 * 60_000, 10)).rejects.toThrow();
    expect([...outbox.staged.values()]).toEqual([event]);
  });
});

describe("holding events when the stream is down", () => {
  const heartbeat = (id: string): BeaconEvent =>
    ({
      type: "heartbeat",
      version: 1,
      eventId: id,
      tenant: "acme",
      agentId: "a-1",
      at: START,
    }) as BeaconEvent;
  const ids = (events: BeaconEvent[]) => events.map((event) => event.eventId);
  const down = () => {
    const stream = new MemoryEventSink();
    stream.failing = true;
    return stream;
  };

  it("holds what the stream did not take and nothing else keeps, and resolves as if published", async () => {
    const stream = new MemoryEventSink();
    const buffer = new MemoryEventBuffer();
    const outbox = new MemoryEventOutbox();
    const reports: UnpublishedEvents[] = [];
    const sink = holdingWhenDown(stream, buffer, outbox, (outcome) => reports.push(outcome));
    const [first, second] = [heartbeat("h-1"), heartbeat("h-2")];
    await sink.publish([first as BeaconEvent]);
    stream.failing = true;
    await sink.publish([second as BeaconEvent]);
    expect(stream.events).toEqual([first]);
    expect(buffer.held).toEqual([second]);
    expect(outbox.keptEvents.size).toBe(0);
    expect(reports).toEqual([{ held: 1, heldInOutbox: 0, staged: 0, lost: [] }]);
  });

  it("asks neither the buffer nor the outbox when the stream takes the events", async () => {
    const buffer = new MemoryEventBuffer();
    const outbox = new MemoryEventOutbox();
    buffer.failing = true;
    outbox.failing = true;
    const reports: UnpublishedEvents[] = [];
    const sink = holdingWhenDown(new MemoryEventSink(), buffer, outbox, (outcome) => reports.push(outcome));
    await sink.publish([heartbeat("h-1")]);
    expect(reports).toEqual([]);
  });

  it("holds only the events a partly failed publish did not put, and leaves staged ones to the outbox", async () => {
    const outbox = new MemoryEventOutbox();
    const operation = staged(outbox, 1);
    const [put, refused] = [heartbeat("h-1"), heartbeat("h-2")];
    const partly = {
      publish: async () => {
        throw new PublishFailure("one put, two not", [refused as BeaconEvent, operation]);
      },
    };
    const buffer = new MemoryEventBuffer();
    const reports: UnpublishedEvents[] = [];
    const sink = holdingWhenDown(partly, buffer, outbox, (outcome) => reports.push(outcome));
    // The publish still fails: the operation event's outbox entry must stay for the outbox's relay.
    const failure = await sink
      .publish([put as BeaconEvent, refused as BeaconEvent, operation])
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EventsKeptForRelay);
    expect(failure).toMatchObject({ unpublished: [refused, operation] });
    expect(String((failure as EventsKeptForRelay).streamError)).toContain("one put, two not");
    expect(buffer.held).toEqual([refused]);
    expect(outbox.keptEvents.size).toBe(0);
    expect(reports).toEqual([{ held: 1, heldInOutbox: 0, staged: 1, lost: [] }]);
  });

  it("keeps in the outbox what a full or unreachable buffer refused, and resolves as if published", async () => {
    const buffer = new MemoryEventBuffer(1);
    const outbox = new MemoryEventOutbox();
    const reports: UnpublishedEvents[] = [];
    const sink = holdingWhenDown(down(), buffer, outbox, (outcome) => reports.push(outcome));
    await sink.publish([heartbeat("h-1"), heartbeat("h-2")]);
    buffer.failing = true;
    await sink.publish([heartbeat("h-3")]);
    expect(ids(buffer.held)).toEqual(["h-1"]);
    expect(ids(await outbox.kept(10))).toEqual(["h-2", "h-3"]);
    expect(reports).toEqual([
      { held: 1, heldInOutbox: 1, staged: 0, lost: [] },
      { held: 0, heldInOutbox: 1, staged: 0, lost: [] },
    ]);
  });

  it("keeps in the outbox a tenant's events past its share of the buffer, and holds the other tenants'", async () => {
    const buffer = new MemoryEventBuffer(10, 2);
    const outbox = new MemoryEventOutbox();
    const reports: UnpublishedEvents[] = [];
    const sink = holdingWhenDown(down(), buffer, outbox, (outcome) => reports.push(outcome));
    const flood = ["f-1", "f-2", "f-3", "f-4"].map(heartbeat);
    const other = { ...heartbeat("o-1"), tenant: "globex" };
    await sink.publish(flood);
    await sink.publish([other]);
    expect(ids(buffer.held)).toEqual(["f-1", "f-2", "o-1"]);
    expect(ids(await outbox.kept(10))).toEqual(["f-3", "f-4"]);
    expect(reports.map(({ held, heldInOutbox }) => [held, heldInOutbox])).toEqual([
      [2, 2],
      [1, 0],
    ]);
  });

  it("reports as lost, whole, what neither the buffer nor the outbox could keep, and fails the publish", async () => {
    const buffer = new MemoryEventBuffer();
    const outbox = new MemoryEventOutbox();
    buffer.failing = true;
    outbox.failing = true;
    const reports: UnpublishedEvents[] = [];
    const sink = holdingWhenDown(down(), buffer, outbox, (outcome) => reports.push(outcome));
    const event = heartbeat("h-1");
    const failure = await sink.publish([event]).catch((error: unknown) => error);
    expect(failure).not.toBeInstanceOf(EventsKeptForRelay);
    expect(String(failure)).toContain("stream unavailable");
    expect(reports).toEqual([{ held: 0, heldInOutbox: 0, staged: 0, lost: [event] }]);
  });

  it("are put on the stream by the relay, oldest first, and forgotten once it has them", async () => {
    const stream = new MemoryEventSink();
    const buffer = new MemoryEventBuffer();
    const outbox = new MemoryEventOutbox();
    const events = ["h-1", "h-2", "h-3"].map(heartbeat);
    await buffer.hold(events);
    stream.failing = true;
    await expect(relayHeld(buffer, outbox, stream, 2, SETTLED)).rejects.toThrow();
    expect(buffer.held).toEqual(events);
    stream.failing = false;
    expect(await relayHeld(buffer, outbox, stream, 2, SETTLED)).toEqual({ relayed: 2, more: true });
    expect(await relayHeld(buffer, outbox, stream, 2, SETTLED)).toEqual({ relayed: 1, more: false });
    expect(stream.events).toEqual(events);
    expect(await relayHeld(buffer, outbox, stream, 2, SETTLED)).toEqual({ relayed: 0, more: false });
  });

  it("are put on the stream with those kept in the outbox, merged by time, and both forgotten", async () => {
    const stream = new MemoryEventSink();
    const buffer = new MemoryEventBuffer();
    const outbox = new MemoryEventOutbox();
    const at = (id: string, seconds: number) => ({ ...heartbeat(id), at: START + seconds * 1_000 });
    // The cache went away between the first and the second, and came back before the fourth.
    await buffer.hold([at("h-1", 1), at("h-4", 4), at("h-5", 5)]);
    await outbox.keep([at("h-2", 2), at("h-3", 3)]);
    expect(await relayHeld(buffer, outbox, stream, 3, SETTLED)).toEqual({ relayed: 3, more: true });
    expect(ids(stream.events)).toEqual(["h-1", "h-2", "h-3"]);
    expect(await relayHeld(buffer, outbox, stream, 3, SETTLED)).toEqual({ relayed: 2, more: false });
    expect(ids(stream.events)).toEqual(["h-1", "h-2", "h-3", "h-4", "h-5"]);
    expect(buffer.held).toEqual([]);
    expect(outbox.keptEvents.size).toBe(0);
  });

  it("waits for the cache before putting what the outbox kept, so an agent's older events go first", async () => {
    const stream = new MemoryEventSink();
    const buffer = new MemoryEventBuffer();
    const outbox = new MemoryEventOutbox();
    await buffer.hold([heartbeat("h-1")]);
    await outbox.keep([{ ...heartbeat("h-2"), at: START + 1 }]);
    buffer.failing = true;
    await expect(relayHeld(buffer, outbox, stream, 10, SETTLED)).rejects.toThrow("cache unavailable");
    expect(stream.events).toEqual([]);
    expect(outbox.keptEvents.size).toBe(1);
  });
});

describe("the held events' next batch", () => {
  const event = (id: string, seconds: number): BeaconEvent => ({
    type: "heartbeat",
    version: 1,
    eventId: id,
    tenant: "acme",
    agentId: "a-1",
    at: START + seconds * 1_000,
    firstSight: false,
    operationsSent: [],
  });
  const ids = (events: BeaconEvent[]) => events.map((held) => held.eventId);

  it("takes the older of the two sides' next events, each side in its own order, the buffer's first at a tie", () => {
    const buffered = [event("b-1", 1), event("b-3", 3), event("b-2", 2)];
    const kept = [event("k-1", 1), event("k-2", 2), event("k-4", 4)];
    const batch = nextHeldBatch(buffered, kept, 10, SETTLED);
    expect(ids(batch.events)).toEqual(["b-1", "k-1", "k-2", "b-3", "b-2", "k-4"]);
    expect(ids(batch.fromBuffer)).toEqual(["b-1", "b-3", "b-2"]);
    expect(ids(batch.fromOutbox)).toEqual(["k-1", "k-2", "k-4"]);
  });

  it("stops at the limit, naming only what it took from each side", () => {
    const batch = nextHeldBatch(
      [event("b-1", 1), event("b-5", 5)],
      [event("k-2", 2), event("k-3", 3)],
      3,
      SETTLED,
    );
    expect(ids(batch.events)).toEqual(["b-1", "k-2", "k-3"]);
    expect(ids(batch.fromBuffer)).toEqual(["b-1"]);
    expect(ids(batch.fromOutbox)).toEqual(["k-2", "k-3"]);
  });

  it("stops at the first event whose put's outcome was unknown and may still reach the stream", () => {
    const doubtful = { ...event("b-3", 3), resent: true as const };
    const settledBefore = START + 3_000;
    const batch = nextHeldBatch(
      [event("b-1", 1), doubtful, event("b-4", 4)],
      [event("k-2", 2)],
      10,
      settledBefore,
    );
    expect(ids(batch.events)).toEqual(["b-1", "k-2"]);
    expect(ids(batch.fromBuffer)).toEqual(["b-1"]);
    expect(batch.unsettled).toBe(true);
    // Once it has settled, it goes with the rest.
    expect(ids(nextHeldBatch([doubtful, event("b-4", 4)], [], 10, settledBefore + 1).events)).toEqual([
      "b-3",
      "b-4",
    ]);
  });

  it("is empty when both sides are", () => {
    expect(nextHeldBatch([], [], 5, SETTLED)).toEqual({
      events: [],
      fromBuffer: [],
      fromOutbox: [],
      unsettled: false,
    });
  });
});

describe("a relay's sink", () => {
  const event = (id: string): BeaconEvent => ({
    type: "heartbeat",
    version: 1,
    eventId: id,
    tenant: "acme",
    agentId: "a-1",
    at: START,
    firstSight: false,
    operationsSent: [],
  });
  /** What the stream carried: the events `carried` put, as the archive would show them. */
  const archiveOf = (carried: MemoryEventSink): KeptEvents => ({
    async keptAmong(events) {
      const ids = new Set(carried.events.map((kept) => kept.eventId));
      const span = { shard: "shardId-000000000000", first: "1", last: "1" };
      return new Map(
        events.filter((sought) => ids.has(sought.eventId)).map((kept) => [kept.eventId, [span]]),
      );
    },
  });

  it("puts again, marked as resent, only what the stream did not carry already", async () => {
    const stream = new MemoryEventSink();
    await stream.publish([event("carried")]);
    await resending(stream, archiveOf(stream)).publish([event("carried"), event("lost")]);
    expect(stream.events).toEqual([event("carried"), { ...event("lost"), resent: true }]);
  });

  it("puts nothing when the stream carried every event, and fails when the archive cannot tell", async () => {
    const stream = new MemoryEventSink();
    await stream.publish([event("carried")]);
    await resending(stream, archiveOf(stream)).publish([event("carried")]);
    expect(stream.events).toHaveLength(1);
    const unreadable: KeptEvents = { keptAmong: () => Promise.reject(new Error("archive unreachable")) };
    await expect(resending(stream, unreadable).publish([event("lost")])).rejects.toThrow(
      "archive unreachable",
    );
    expect(stream.events).toHaveLength(1);
  });
});
