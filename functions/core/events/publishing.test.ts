import { describe, expect, it } from "vitest";
import { MemoryEventBuffer } from "../../adapters/memory/event-buffer.js";
import { MemoryEventOutbox } from "../../adapters/memory/event-outbox.js";
import { MemoryEventSink } from "../../adapters/memory/event-sink.js";
import type { BeaconEvent, OperationEvent } from "./model.js";
import type { KeptEvents } from "./ports.js";
import {
  clearingStaged,
  holdingWhenDown,
  PublishFailure,
  relayHeld,
  relayStaged,
  resending,
  type UnpublishedEvents,
} from "./publishing.js";

const START = Date.UTC(2026, 10, 24);

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

  it("holds what the stream did not take and nothing else keeps, and resolves as if published", async () => {
    const stream = new MemoryEventSink();
    const buffer = new MemoryEventBuffer();
    const reports: UnpublishedEvents[] = [];
    const sink = holdingWhenDown(stream, buffer, (outcome) => reports.push(outcome));
    const [first, second] = [heartbeat("h-1"), heartbeat("h-2")];
    await sink.publish([first as BeaconEvent]);
    stream.failing = true;
    await sink.publish([second as BeaconEvent]);
    expect(stream.events).toEqual([first]);
    expect(buffer.held).toEqual([second]);
    expect(reports).toEqual([{ held: 1, staged: 0, lost: 0 }]);
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
    const sink = holdingWhenDown(partly, buffer, (outcome) => reports.push(outcome));
    // The publish still fails: the operation event's outbox entry must stay for the outbox's relay.
    await expect(sink.publish([put as BeaconEvent, refused as BeaconEvent, operation])).rejects.toThrow(
      "one put, two not",
    );
    expect(buffer.held).toEqual([refused]);
    expect(reports).toEqual([{ held: 1, staged: 1, lost: 0 }]);
  });

  it("reports as lost what a full or unreachable buffer refused, and fails the publish", async () => {
    const stream = new MemoryEventSink();
    stream.failing = true;
    const buffer = new MemoryEventBuffer(1);
    const reports: UnpublishedEvents[] = [];
    const sink = holdingWhenDown(stream, buffer, (outcome) => reports.push(outcome));
    await expect(sink.publish([heartbeat("h-1"), heartbeat("h-2")])).rejects.toThrow();
    buffer.failing = true;
    await expect(sink.publish([heartbeat("h-3")])).rejects.toThrow();
    expect(buffer.held.map((event) => event.eventId)).toEqual(["h-1"]);
    expect(reports).toEqual([
      { held: 1, staged: 0, lost: 1 },
      { held: 0, staged: 0, lost: 1 },
    ]);
  });

  it("are put on the stream by the relay, oldest first, and forgotten once it has them", async () => {
    const stream = new MemoryEventSink();
    const buffer = new MemoryEventBuffer();
    const events = ["h-1", "h-2", "h-3"].map(heartbeat);
    await buffer.hold(events);
    stream.failing = true;
    await expect(relayHeld(buffer, stream, 2)).rejects.toThrow();
    expect(buffer.held).toEqual(events);
    stream.failing = false;
    expect(await relayHeld(buffer, stream, 2)).toEqual({ relayed: 2, more: true });
    expect(await relayHeld(buffer, stream, 2)).toEqual({ relayed: 1, more: false });
    expect(stream.events).toEqual(events);
    expect(await relayHeld(buffer, stream, 2)).toEqual({ relayed: 0, more: false });
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
