import type { PageRequest } from "../../core/paging.js";
import type { Delivery } from "../../core/webhooks/model.js";
import { deliveryLogKey } from "../../core/webhooks/notifications.js";
import type { DeliveryQueue } from "../../core/webhooks/ports.js";
import { pageOf } from "./paging.js";

const keyOf = ({ tenant, subscriptionId, deliveryId }: Delivery) =>
  `${tenant}/${subscriptionId}/${deliveryId}`;

/** The delivery queue in memory, for core unit tests; it keeps copies, as a table does. */
export class MemoryDeliveryQueue implements DeliveryQueue {
  readonly deliveries = new Map<string, Delivery>();

  async enqueue(deliveries: Delivery[]): Promise<Delivery[]> {
    const added = deliveries.filter((delivery) => !this.deliveries.has(keyOf(delivery)));
    for (const delivery of added) this.deliveries.set(keyOf(delivery), structuredClone(delivery));
    return added;
  }

  async due(now: number, limit: number): Promise<Delivery[]> {
    return [...this.deliveries.values()]
      .filter((delivery) => delivery.state === "pending" && (delivery.nextAttemptAt ?? 0) <= now)
      .sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0))
      .slice(0, limit)
      .map((delivery) => structuredClone(delivery));
  }

  async recordAttempt(current: Delivery, next: Delivery): Promise<boolean> {
    const stored = this.deliveries.get(keyOf(current));
    if (stored?.state !== "pending" || stored.attempts !== current.attempts) return false;
    this.deliveries.set(keyOf(current), structuredClone(next));
    return true;
  }

  async list(tenant: string, subscriptionId: string, request: PageRequest) {
    const entries = [...this.deliveries.values()]
      .filter((delivery) => delivery.tenant === tenant && delivery.subscriptionId === subscriptionId)
      .map((delivery): [string, Delivery] => [deliveryLogKey(delivery), delivery]);
    return pageOf(entries, { ...request, descending: true });
  }
}
