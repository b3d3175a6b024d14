import type { BeaconEvent } from "../../core/events/model.js";
import type { EventOutbox } from "../../core/events/ports.js";

/** Staged events by id, as the table's outbox keeps them. */
export class MemoryEventOutbox implements EventOutbox {
  readonly staged = new Map<string, BeaconEvent>();

  stage(event: BeaconEvent) {
    this.staged.set(`${event.tenant}/${event.eventId}`, structuredClone(event));
  }

  async pending(before: number, limit: number) {
    return [...this.staged.values()]
      .filter((event) => event.at < before)
      .sort((a, b) => a.at - b.at)
      .slice(0, limit)
      .map((event) => structuredClone(event));
  }

  async clear(events: BeaconEvent[]) {
    for (const event of events) this.staged.delete(`${event.tenant}/${event.eventId}`);
  }
}
