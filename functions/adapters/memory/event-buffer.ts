import type { BeaconEvent } from "../../core/events/model.js";
import type { EventBuffer } from "../../core/events/ports.js";

/** Held events in order, with the cache's bound and its bound per tenant. */
export class MemoryEventBuffer implements EventBuffer {
  readonly held: BeaconEvent[] = [];
  failing = false;

  constructor(
    private readonly bound = Number.POSITIVE_INFINITY,
    private readonly tenantBound = Number.POSITIVE_INFINITY,
  ) {}

  async hold(events: BeaconEvent[]) {
    if (this.failing) throw new Error("cache unavailable");
    const refused: BeaconEvent[] = [];
    for (const event of events) {
      const tenantHeld = this.held.filter((held) => held.tenant === event.tenant).length;
      if (this.held.length < this.bound && tenantHeld < this.tenantBound)
        this.held.push(structuredClone(event));
      else refused.push(event);
    }
    return { refused };
  }

  async peek(limit: number) {
    if (this.failing) throw new Error("cache unavailable");
    return this.held.slice(0, limit).map((event) => structuredClone(event));
  }

  async drop(events: BeaconEvent[]) {
    this.held.splice(0, events.length);
  }
}
