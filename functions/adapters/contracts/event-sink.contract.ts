import { expect, it } from "vitest";
import type { BeaconEvent, OperationEvent } from "../../core/events/model.js";
import type { EventSink } from "../../core/events/ports.js";
import { AGENTS_PER_SELECTION_STEP } from "../../core/operations/selection.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);

/** The event sink, and what its consumers read of a tenant's events from the stream, oldest first. */
export interface EventSinkSubject {
  sink: EventSink;
  published(tenant: string): Promise<BeaconEvent[]>;
}

export const eventSinkContract = contract<EventSinkSubject>("the event sink", (the) => {
  const queued = (agentId: string, index: number): OperationEvent => ({
    type: "operation",
    version: 1,
    eventId: `event-${agentId}-${index}`,
    tenant: the.tenant,
    agentId,
    at: START + index,
    operationId: `op-${index}`,
    operation: "RESTART",
    state: "queued",
  });
  const eventIdsOf = (events: BeaconEvent[], agentId?: string) =>
    events
      .filter((event) => agentId === undefined || ("agentId" in event && event.agentId === agentId))
      .map((event) => event.eventId);

  it("puts every event on the stream whole, each agent's in the order given", async () => {
    const { sink, published } = the.subject;
    const events: BeaconEvent[] = [
      {
        type: "heartbeat",
        version: 1,
        eventId: "event-1",
        tenant: the.tenant,
        agentId: "agent-1",
        at: START,
        agentClass: "pumps",
        device: { hostname: "pump-7" },
        firstSight: true,
        operationsSent: ["op-1"],
      },
      queued("agent-2", 2),
      { ...queued("agent-1", 3), from: "queued", state: "delivered" },
      {
        type: "ack",
        version: 1,
        eventId: "event-4",
        tenant: the.tenant,
        agentId: "agent-1",
        at: START + 4,
        operationId: "op-1",
        state: "FULLY_APPLIED",
        matched: true,
      },
    ];
    await sink.publish(events);
    await sink.publish([]);
    const read = await published(the.tenant);
    expect(read).toHaveLength(events.length);
    expect(read).toEqual(expect.arrayContaining(events));
    expect(eventIdsOf(read, "agent-1")).toEqual(eventIdsOf(events, "agent-1"));
  });

  it("puts the events of publishes made at once, each publish's agents' in order", async () => {
    const { sink, published } = the.subject;
    const publishes = Array.from({ length: 20 }, (_, agent) =>
      Array.from({ length: 3 }, (_, index) => queued(`agent-${agent}`, index)),
    );
    await Promise.all(publishes.map((events) => sink.publish(events)));
    const read = await published(the.tenant);
    for (const [agent, events] of publishes.entries())
      expect(eventIdsOf(read, `agent-${agent}`)).toEqual(eventIdsOf(events));
    expect(read).toHaveLength(60);
  });

  it("puts as many events as one step of a selection makes", async () => {
    const { sink, published } = the.subject;
    const events = Array.from({ length: AGENTS_PER_SELECTION_STEP }, (_, index) =>
      queued(`agent-${index}`, index),
    );
    await sink.publish(events);
    expect(eventIdsOf(await published(the.tenant)).sort()).toEqual(eventIdsOf(events).sort());
  });
});
