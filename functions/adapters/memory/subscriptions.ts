import type { PageRequest } from "../../core/paging.js";
import type { RandomSource } from "../../core/ports.js";
import type { Notification, Subscription } from "../../core/webhooks/model.js";
import type {
  BusRefusal,
  NotificationBus,
  SubscriptionStore,
  WebhookRequest,
  WebhookResponse,
  WebhookSender,
} from "../../core/webhooks/ports.js";
import { pageOf } from "./paging.js";

/** In-process stand-ins for the subscriptions' ports, for core unit tests only. */

export class MemorySubscriptionStore implements SubscriptionStore {
  /** By tenant/subscription id. */
  readonly subscriptions = new Map<string, Subscription>();

  async create(subscription: Subscription) {
    const key = `${subscription.tenant}/${subscription.subscriptionId}`;
    if (this.subscriptions.has(key)) throw new Error(`subscription ${key} exists`);
    this.subscriptions.set(key, structuredClone(subscription));
  }

  async get(tenant: string, subscriptionId: string) {
    const subscription = this.subscriptions.get(`${tenant}/${subscriptionId}`);
    return subscription && structuredClone(subscription);
  }

  private ofTenant(tenant: string): [string, Subscription][] {
    return [...this.subscriptions.values()]
      .filter((subscription) => subscription.tenant === tenant)
      .map((subscription) => [subscription.subscriptionId, subscription]);
  }

  async list(tenant: string, request: PageRequest) {
    return pageOf(this.ofTenant(tenant), request);
  }

  async delete(tenant: string, subscriptionId: string) {
    return this.subscriptions.delete(`${tenant}/${subscriptionId}`);
  }

  async active(tenant: string) {
    return pageOf(this.ofTenant(tenant), { limit: Number.MAX_SAFE_INTEGER }).items.filter(
      (subscription) => subscription.state === "active",
    );
  }

  async disable(tenant: string, subscriptionId: string, at: number, reason: string) {
    const subscription = this.subscriptions.get(`${tenant}/${subscriptionId}`);
    if (subscription?.state !== "active") return false;
    Object.assign(subscription, { state: "disabled", disabledAt: at, disabledReason: reason });
    return true;
  }
}

/** A receiver that answers every request with `response`, keeping what it was sent. */
export class RecordingWebhookSender implements WebhookSender {
  readonly requests: WebhookRequest[] = [];
  response: WebhookResponse = { status: 204, durationMs: 3 };

  async send(request: WebhookRequest) {
    this.requests.push(structuredClone(request));
    return { ...this.response };
  }
}

/** Bytes that differ from call to call, without being random: tests can tell one secret from another. */
export class CountingRandom implements RandomSource {
  private calls = 0;
  bytes(count: number) {
    this.calls++;
    return Uint8Array.from({ length: count }, (_, index) => (this.calls * 31 + index) % 256);
  }
}

/** A bus that keeps what it takes, in order, and refuses what `refuses` says, as a bus throttling some entries. */
export class MemoryNotificationBus implements NotificationBus {
  readonly notifications: Notification[] = [];
  refuses: (notification: Notification) => boolean = () => false;

  async put(notifications: readonly Notification[]) {
    const refusals: BusRefusal[] = [];
    notifications.forEach((notification, index) => {
      if (this.refuses(notification)) refusals.push({ index, reason: "ThrottlingException" });
      else this.notifications.push(structuredClone(notification));
    });
    return refusals;
  }
}
