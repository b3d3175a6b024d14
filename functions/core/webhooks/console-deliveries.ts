import { BeaconError } from "../errors.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { dropUndefined } from "../json.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { ConsoleResult } from "../result.js";
import type { Delivery } from "./model.js";
import { isDeliveryLogKey } from "./notifications.js";
import type { DeliveryQueue, SubscriptionStore } from "./ports.js";

export interface DeliveryLogDependencies {
  subscriptions: SubscriptionStore;
  deliveries: DeliveryQueue;
}

/** A delivery as the console shows it: what was sent, and how trying went. */
const view = (delivery: Delivery) =>
  dropUndefined({
    deliveryId: delivery.deliveryId,
    notificationType: delivery.notificationType,
    state: delivery.state,
    createdAt: toIso(delivery.createdAt) as string,
    attempts: delivery.attempts,
    nextAttemptAt: toIso(delivery.nextAttemptAt),
    lastAttempt:
      delivery.lastAttempt &&
      dropUndefined({ ...delivery.lastAttempt, at: toIso(delivery.lastAttempt.at) as string }),
    notification: JSON.parse(delivery.body) as unknown,
  });

/** A subscription's delivery log, for the tenant's admins who manage its subscriptions. */
export function makeDeliveryLogApi(deps: DeliveryLogDependencies) {
  return {
    /** Newest first (by the time of their events), kept a week (BEACON_WEBHOOK_DELIVERY_RETENTION_DAYS). */
    async list(
      principal: Principal,
      subscriptionId: string,
      request: { cursor?: string; limit?: number },
    ): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      if (!(await deps.subscriptions.get(principal.tenant, subscriptionId)))
        throw new BeaconError("not_found", "No such subscription");
      const page = await deps.deliveries.list(
        principal.tenant,
        subscriptionId,
        pageRequestOf(request, isDeliveryLogKey),
      );
      return { body: pageBodyOf(page, view) };
    },
  };
}
