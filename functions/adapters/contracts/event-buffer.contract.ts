import { expect, it } from "vitest";
import type { BeaconEvent } from "../../core/events/model.js";
import type { EventBuffer } from "../../core/events/ports.js";
import { contract } from "./contract.js";

/** The bound every case's buffer is made with. */
export const BUFFER_BOUND = 5;

/** Events held in order, under a bound, read without being taken and forgotten only when told. */
export const eventBufferContract = contract<EventBuffer>("the event buffer", (the) => {
  const heartbeat = (index: number): BeaconEvent => ({
    type: "heartbeat",
    version: 1,
    eventId: `h-${index}`,
    tenant: the.tenant,
    agentId: "agent-1",
    at: Date.UTC(2026, 10, 24) + index,
    firstSight: false,
    operationsSent: [],
  });
  const ids = (events: BeaconEvent[]) => events.map((event) => event.eventId);

  it("keeps events in the order held, and reads them without taking them", async () => {
    const buffer = the.subject;
    expect(await buffer.hold([heartbeat(1), heartbeat(2)])).toEqual({ refused: 0 });
    expect(await buffer.hold([heartbeat(3)])).toEqual({ refused: 0 });
    expect(await buffer.peek(2)).toEqual([heartbeat(1), heartbeat(2)]);
    expect(ids(await buffer.peek(10))).toEqual(["h-1", "h-2", "h-3"]);
  });

  it("forgets the oldest only when told, and keeps what was held since", async () => {
    const buffer = the.subject;
    await buffer.hold([heartbeat(1), heartbeat(2), heartbeat(3)]);
    const read = await buffer.peek(2);
    await buffer.hold([heartbeat(4)]);
    await buffer.drop(read.length);
    expect(ids(await buffer.peek(10))).toEqual(["h-3", "h-4"]);
    await buffer.drop(0);
    expect(ids(await buffer.peek(10))).toEqual(["h-3", "h-4"]);
  });

  it("refuses what does not fit under its bound, holding what does in order", async () => {
    const buffer = the.subject;
    await buffer.hold([heartbeat(1), heartbeat(2), heartbeat(3)]);
    expect(await buffer.hold([heartbeat(4), heartbeat(5), heartbeat(6), heartbeat(7)])).toEqual({
      refused: 2,
    });
    expect(await buffer.hold([heartbeat(8)])).toEqual({ refused: 1 });
    expect(ids(await buffer.peek(10))).toEqual(["h-1", "h-2", "h-3", "h-4", "h-5"]);
    await buffer.drop(BUFFER_BOUND);
    expect(await buffer.peek(10)).toEqual([]);
    expect(await buffer.hold([heartbeat(9)])).toEqual({ refused: 0 });
  });
});
