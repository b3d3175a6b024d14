import { isClassName } from "../c2/class-name.js";
import { BeaconError } from "../errors.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { dropUndefined } from "../json.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { Clock, IdGenerator, RandomSource } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import type { UrlPolicy } from "./address-policy.js";
import { webhookUrlProblem } from "./address-policy.js";
import type { Subscription } from "./model.js";
import { isNotificationPattern, NotificationFamilies, NotificationTypes } from "./notification-types.js";
import type { SubscriptionStore, WebhookTester } from "./ports.js";
import { webhookSecretOf } from "./signing.js";
import {
  isSubscriptionId,
  MAX_DESCRIPTION_LENGTH,
  MAX_SUBSCRIPTIONS_PER_TENANT,
  MAX_URL_LENGTH,
  newSubscriptionId,
  SECRET_BYTES,
  type SubscriptionRequest,
} from "./subscriptions.js";

export interface SubscriptionsDependencies {
  subscriptions: SubscriptionStore;
  /** Posts tests from where receivers can be reached: not the console's own network on AWS. */
  webhookTester: WebhookTester;
  /** Which hosts a subscription may name besides the public internet: none on AWS. */
  webhookUrlPolicy: UrlPolicy;
  clock: Clock;
  ids: IdGenerator;
  random: RandomSource;
}

/** A subscription as the console shows it: never its secret, which only the answer to its creation carries. */
const view = (subscription: Subscription) =>
  dropUndefined({
    subscriptionId: subscription.subscriptionId,
    url: subscription.url,
    eventTypes: subscription.eventTypes,
    agentClass: subscription.agentClass,
    description: subscription.description,
    state: subscription.state,
    createdAt: toIso(subscription.createdAt) as string,
    createdBy: subscription.createdBy,
    disabledAt: toIso(subscription.disabledAt),
    disabledReason: subscription.disabledReason,
  });

function assertValidRequest(request: SubscriptionRequest, policy: UrlPolicy): void {
  const refuse = (message: string) => {
    throw new BeaconError("invalid_request", message);
  };
  if (request.url.length > MAX_URL_LENGTH) refuse(`The url must be at most ${MAX_URL_LENGTH} characters`);
  const problem = webhookUrlProblem(request.url, policy);
  if (problem) refuse(`The url ${problem}`);
  if (request.eventTypes.length === 0) refuse("Name at least one event type");
  const unknown = request.eventTypes.filter((pattern) => !isNotificationPattern(pattern));
  if (unknown.length > 0) {
    refuse(
      `Unknown event types ${unknown.join(", ")}: name one of ${NotificationTypes.join(", ")}, ` +
        `or a family ${NotificationFamilies.join(", ")}`,
    );
  }
  if (request.agentClass !== undefined && !isClassName(request.agentClass)) {
    refuse("The agentClass must be a class name: 1 to 128 characters from A-Z a-z 0-9 . _ -");
  }
  if (request.description !== undefined && request.description.length > MAX_DESCRIPTION_LENGTH) {
    refuse(`The description must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
  }
}

/**
 * A tenant's event subscriptions. Each holds an HTTPS URL on the public internet (or, on the local stack, an
 * allow-listed host) and the secret its deliveries are signed with, which the caller sees once, when the
 * subscription is created: Beacon keeps it to sign with and never shows it again.
 */
export function makeSubscriptionsApi(deps: SubscriptionsDependencies) {
  const { subscriptions, webhookTester, webhookUrlPolicy, clock, ids, random } = deps;

  async function find(tenant: string, subscriptionId: string): Promise<Subscription> {
    const subscription = isSubscriptionId(subscriptionId)
      ? await subscriptions.get(tenant, subscriptionId)
      : undefined;
    if (!subscription) throw new BeaconError("not_found", "No such subscription");
    return subscription;
  }

  return {
    async create(principal: Principal, request: SubscriptionRequest): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      assertValidRequest(request, webhookUrlPolicy);
      // Concurrent creations may each see room for one more; the bound keeps matching cheap, it is no quota.
      const existing = await subscriptions.list(principal.tenant, { limit: MAX_SUBSCRIPTIONS_PER_TENANT });
      if (existing.items.length >= MAX_SUBSCRIPTIONS_PER_TENANT) {
        throw new BeaconError(
          "subscription_limit",
          `A tenant has at most ${MAX_SUBSCRIPTIONS_PER_TENANT} subscriptions; delete one first`,
        );
      }
      const now = clock.now();
      const subscription: Subscription = dropUndefined({
        tenant: principal.tenant,
        subscriptionId: newSubscriptionId(now, ids),
        url: request.url,
        eventTypes: [...new Set(request.eventTypes)],
        agentClass: request.agentClass,
        description: request.description,
        secret: webhookSecretOf(random.bytes(SECRET_BYTES)),
        state: "active" as const,
        createdAt: now,
        createdBy: principal.subject,
      });
      await subscriptions.create(subscription);
      return { status: 201, body: { ...view(subscription), secret: subscription.secret } };
    },

    async list(principal: Principal, request: { cursor?: string; limit?: number }): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      const page = await subscriptions.list(principal.tenant, pageRequestOf(request, isSubscriptionId));
      return { body: pageBodyOf(page, view) };
    },

    async get(principal: Principal, subscriptionId: string): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      return { body: view(await find(principal.tenant, subscriptionId)) };
    },

    /** Deliveries still queued for it are dropped when their turn comes: their subscription is gone. */
    async delete(principal: Principal, subscriptionId: string): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      const subscription = await find(principal.tenant, subscriptionId);
      if (!(await subscriptions.delete(principal.tenant, subscriptionId))) {
        throw new BeaconError("not_found", "No such subscription");
      }
      return { body: view(subscription) };
    },

    /**
     * Makes a disabled subscription active again: events from then on are delivered to it (deliveries given up
     * while it was disabled stay given up). An active one is left as it is, so enabling twice is harmless.
     */
    async enable(principal: Principal, subscriptionId: string): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      const subscription = await find(principal.tenant, subscriptionId);
      if (subscription.state === "active") return { body: view(subscription) };
      if (await subscriptions.enable(principal.tenant, subscriptionId)) {
        const { disabledAt: _at, disabledReason: _reason, ...enabled } = subscription;
        return { body: view({ ...enabled, state: "active" }) };
      }
      // Enabled or deleted by another request between the look above and the write: as it is now.
      return { body: view(await find(principal.tenant, subscriptionId)) };
    },

    /**
     * Posts a signed `webhook.test` notification to the subscription's URL at once, outside the delivery
     * queue (a disabled subscription too, so that a mended receiver can be tried), and answers how it went.
     */
    async test(principal: Principal, subscriptionId: string): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      await find(principal.tenant, subscriptionId);
      const notificationId = ids.newId();
      const outcome = await webhookTester.test({
        tenant: principal.tenant,
        subscriptionId,
        notificationId,
        requestedBy: principal.subject,
      });
      // Deleted between the look above and the test.
      if (!outcome.found) throw new BeaconError("not_found", "No such subscription");
      const { response } = outcome;
      return {
        body: dropUndefined({
          notificationId,
          delivered: response.status !== undefined && response.status >= 200 && response.status < 300,
          status: response.status,
          error: response.error,
          durationMs: response.durationMs,
        }),
      };
    },
  };
}
