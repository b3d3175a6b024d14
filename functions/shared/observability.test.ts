import { afterEach, describe, expect, it } from "vitest";
import { StreamPublishError } from "../adapters/kinesis/event-sink.js";
import { MemoryEventSink } from "../adapters/memory/index.js";
import type { BeaconEvent } from "../core/events/model.js";
import type { EventSink } from "../core/events/ports.js";
import { countingLostEvents, MetricNames, metrics } from "./observability.js";

const heartbeat = (agentId: string): BeaconEvent =>
  ({ type: "heartbeat", version: 1, eventId: agentId, tenant: "t", agentId, at: 0 }) as BeaconEvent;

/** EventsLost as the next metric line would carry it; undefined when nothing was counted. */
function eventsLost(): unknown {
  if (!metrics.hasStoredMetrics()) return undefined;
  return (metrics.serializeMetrics() as unknown as Record<string, unknown>)[MetricNames.eventsLost];
}

afterEach(() => metrics.clearMetrics());

describe("countingLostEvents", () => {
  it("counts nothing when the events reach the stream", async () => {
    const stream = new MemoryEventSink();
    await countingLostEvents(stream).publish([heartbeat("a"), heartbeat("b")]);
    expect(stream.events).toHaveLength(2);
    expect(eventsLost()).toBeUndefined();
  });

  it("counts the events the stream refused, as the sink reports them, and fails as the sink did", async () => {
    const refused = new StreamPublishError(2, "ProvisionedThroughputExceededException");
    const partlyFailing: EventSink = { publish: () => Promise.reject(refused) };
    const sink = countingLostEvents(partlyFailing);
    await expect(sink.publish([heartbeat("a"), heartbeat("b"), heartbeat("c")])).rejects.toBe(refused);
    expect(eventsLost()).toBe(2);
  });

  it("counts every event of a publish that failed without a count", async () => {
    const stream = new MemoryEventSink();
    stream.failing = true;
    const sink = countingLostEvents(stream);
    await expect(sink.publish([heartbeat("a"), heartbeat("b"), heartbeat("c")])).rejects.toThrow();
    await expect(sink.publish([heartbeat("d")])).rejects.toThrow();
    // Two additions of one metric in one invocation: EMF carries both values.
    expect(eventsLost()).toEqual([3, 1]);
  });
});
