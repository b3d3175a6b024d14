import { expect, it } from "vitest";
import type { BeaconEvent } from "../../core/events/model.js";
import type { EventBuffer, EventBufferBounds } from "../../core/events/ports.js";
import { contract } from "./contract.js";

/** The bounds every case's buffer is made with. */
export const BUFFER_BOUNDS: EventBufferBounds = { maxEvents: 5, maxEventsPerTenant: 3 };

/**
 * Events held in order, under a bound and a bound per tenant, read without being taken and forgotten only when
 * told.
 */
export const eventBufferContract = contract<EventBuffer>("the event buffer", (the) => {
  const heartbeat = (index: number, tenant = the.tenant): BeaconEvent => ({
    type: "heartbeat",
    version: 1,
    eventId: `h-${index}`,
    tenant,
    agentId: "agent-1",
    at: Date.UTC(2026, 10, 24) + index,
    firstSight: false,
    operationsSent: [],
  });
  const other = (index: number) => heartbeat(index, `${the.tenant}-other`);
  const third = (index: number) => heartbeat(index, `${the.tenant}-third`);
  const ids = (events: BeaconEvent[]) => events.map((event) => event.eventId);

  it("keeps events in the order held, and reads them without taking them", async () => {
    const buffer = the.subject;
    expect(await buffer.hold([heartbeat(1), heartbeat(2)])).toEqual({ refused: [] });
    expect(await buffer.hold([heartbeat(3)])).toEqual({ refused: [] });
    expect(await buffer.peek(2)).toEqual([heartbeat(1), heartbeat(2)]);
    expect(ids(await buffer.peek(10))).toEqual(["h-1", "h-2", "h-3"]);
  });

  it("forgets the oldest only when told, and keeps what was held since", async () => {
    const buffer = the.subject;
    await buffer.hold([heartbeat(1), heartbeat(2), other(3)]);
    const read = await buffer.peek(2);
    await buffer.hold([other(4)]);
    await buffer.drop(read);
    expect(ids(await buffer.peek(10))).toEqual(["h-3", "h-4"]);
    await buffer.drop([]);
    expect(ids(await buffer.peek(10))).toEqual(["h-3", "h-4"]);
  });

  it("refuses what does not fit under its bound, holding what does in order", async () => {
    const buffer = the.subject;
    await buffer.hold([heartbeat(1), heartbeat(2), other(3)]);
    expect(await buffer.hold([other(4), third(5), third(6), third(7)])).toEqual({
      refused: [third(6), third(7)],
    });
    expect(await buffer.hold([heartbeat(8)])).toEqual({ refused: [heartbeat(8)] });
    expect(ids(await buffer.peek(10))).toEqual(["h-1", "h-2", "h-3", "h-4", "h-5"]);
    await buffer.drop(await buffer.peek(10));
    expect(await buffer.peek(10)).toEqual([]);
    expect(await buffer.hold([heartbeat(9)])).toEqual({ refused: [] });
  });

  it("refuses a tenant's events past its share, holding the other tenants' in their place", async () => {
    const buffer = the.subject;
    expect(await buffer.hold([heartbeat(1), heartbeat(2), other(3), heartbeat(4), heartbeat(5)])).toEqual({
      refused: [heartbeat(5)],
    });
    expect(await buffer.hold([heartbeat(6), other(7)])).toEqual({ refused: [heartbeat(6)] });
    expect(ids(await buffer.peek(10))).toEqual(["h-1", "h-2", "h-3", "h-4", "h-7"]);
    // What the stream took no longer counts against its tenant.
    await buffer.drop(await buffer.peek(2));
    expect(await buffer.hold([heartbeat(8), heartbeat(9)])).toEqual({ refused: [] });
    expect(ids(await buffer.peek(10))).toEqual(["h-3", "h-4", "h-7", "h-8", "h-9"]);
  });
});
