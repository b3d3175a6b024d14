import type { BeaconEvent } from "../../core/events/model.js";
import type { EventBuffer } from "../../core/events/ports.js";

/** Held events in order, with the cache's bound. */
export class MemoryEventBuffer implements EventBuffer {
  readonly held: BeaconEvent[] = [];
  failing = false;

  constructor(private readonly bound = Number.POSITIVE_INFINITY) {}

  async hold(events: BeaconEvent[]) {
    if (this.failing) throw new Error("cache unavailable");
    const taken = events.slice(0, Math.max(0, this.bound - this.held.length));
    this.held.push(...taken.map((event) => structuredClone(event)));
    return { refused: events.length - taken.length };
  }

  async peek(limit: number) {
    return this.held.slice(0, limit).map((event) => structuredClone(event));
  }

  async drop(count: number) {
    this.held.splice(0, count);
  }
}
