import type { BeaconEvent } from "../../core/events/model.js";
import type { EventOutbox } from "../../core/events/ports.js";

const idOf = (event: BeaconEvent) => `${event.tenant}/${event.eventId}`;

/** Staged events by id, as the table's outbox keeps them, and apart the events kept for want of the buffer. */
export class MemoryEventOutbox implements EventOutbox {
  readonly staged = new Map<string, BeaconEvent>();
  readonly keptEvents = new Map<string, BeaconEvent>();
  failing = false;

  stage(event: BeaconEvent) {
    this.staged.set(idOf(event), structuredClone(event));
  }

  async pending(before: number, limit: number) {
    return oldestFirst(
      [...this.staged.values()].filter((event) => event.at < before),
      limit,
    );
  }

  async keep(events: BeaconEvent[]) {
    if (this.failing) throw new Error("table unavailable");
    for (const event of events) this.keptEvents.set(idOf(event), structuredClone(event));
  }

  async kept(limit: number) {
    return oldestFirst([...this.keptEvents.values()], limit);
  }

  async clear(events: BeaconEvent[]) {
    for (const event of events) {
      this.staged.delete(idOf(event));
      this.keptEvents.delete(idOf(event));
    }
  }
}

/** By time, and events of one time in the order they came (a stable sort). */
const oldestFirst = (events: BeaconEvent[], limit: number) =>
  events
    .sort((a, b) => a.at - b.at)
    .slice(0, limit)
    .map((event) => structuredClone(event));
