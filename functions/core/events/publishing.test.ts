import { describe, expect, it } from "vitest";
import { MemoryEventOutbox, MemoryEventSink } from "../../adapters/memory/index.js";
import type { OperationEvent } from "./model.js";
import { clearingStaged, relayStaged } from "./publishing.js";

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
