import type { PageRequest } from "../../core/paging.js";
import type { Subscription } from "../../core/webhooks/model.js";
import type { SubscriptionStore } from "../../core/webhooks/ports.js";
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

  async enable(tenant: string, subscriptionId: string) {
    const subscription = this.subscriptions.get(`${tenant}/${subscriptionId}`);
    if (subscription?.state !== "disabled") return false;
    subscription.state = "active";
    delete subscription.disabledAt;
    delete subscription.disabledReason;
    return true;
  }
}
