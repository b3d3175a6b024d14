import type { BeaconEvent } from "../../core/events/model.js";
import type { EventSink } from "../../core/events/ports.js";

export class MemoryEventSink implements EventSink {
  readonly events: BeaconEvent[] = [];
  failing = false;
  /** As a stream too busy to answer: a publish never settles. */
  stalled = false;

  async publish(events: BeaconEvent[]) {
    if (this.stalled) return new Promise<void>(() => {});
    if (this.failing) throw new Error("stream unavailable");
    this.events.push(...events);
  }
}
