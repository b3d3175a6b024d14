import { isValidIdentifier } from "../identity/credentials.js";
import { toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { Notification } from "./model.js";
import type {
  SubscriptionStore,
  WebhookSender,
  WebhookTester,
  WebhookTestOutcome,
  WebhookTestRequest,
} from "./ports.js";
import { notificationBody, webhookRequestOf } from "./requests.js";
import { isSubscriptionId } from "./subscriptions.js";

export interface WebhookTestSenderDependencies {
  subscriptions: SubscriptionStore;
  /** Gives up on a receiver within the time the console waits for the answer. */
  sender: WebhookSender;
  clock: Clock;
}

/**
 * Posts a subscription's signed `webhook.test` from where receivers can be reached (the webhook dispatcher, on
 * AWS outside the VPC). It reads the subscription itself, so its secret never travels with the request, and
 * finds it only under the tenant the request names.
 */
export function makeWebhookTestSender(deps: WebhookTestSenderDependencies): WebhookTester {
  const { subscriptions, sender, clock } = deps;
  return {
    async test(request) {
      const subscription = await subscriptions.get(request.tenant, request.subscriptionId);
      if (!subscription) return { found: false };
      const now = clock.now();
      const notification: Notification = {
        id: request.notificationId,
        type: "webhook.test",
        tenant: request.tenant,
        at: toIso(now) as string,
        data: { subscriptionId: request.subscriptionId, requestedBy: request.requestedBy },
      };
      const response = await sender.send(
        webhookRequestOf(subscription, notification.id, notificationBody(notification), now),
      );
      return { found: true, response };
    },
  };
}

/** The key a test request is carried under in an invocation's payload, telling it from a schedule's event. */
const TEST_REQUEST_KEY = "webhookTest";
/** Ids and subjects Beacon makes or tokens carry are far shorter; anything longer is no request of the console's. */
const MAX_FIELD_LENGTH = 256;

/** A test request as the payload of an invocation of the function that posts it. */
export const webhookTestPayload = (request: WebhookTestRequest): Record<string, WebhookTestRequest> => ({
  [TEST_REQUEST_KEY]: {
    tenant: request.tenant,
    subscriptionId: request.subscriptionId,
    notificationId: request.notificationId,
    requestedBy: request.requestedBy,
  },
});

const isBoundedText = (value: unknown): value is string =>
  typeof value === "string" && value !== "" && value.length <= MAX_FIELD_LENGTH;

/**
 * The test request an invocation's payload carries; undefined when it carries none (a schedule's event).
 * A payload that names a test but is not a well-formed one is refused: it comes from no console.
 */
export function webhookTestRequestOf(payload: unknown): WebhookTestRequest | undefined {
  if (typeof payload !== "object" || payload === null || !(TEST_REQUEST_KEY in payload)) return undefined;
  const request = (payload as Record<string, unknown>)[TEST_REQUEST_KEY];
  const fields = typeof request === "object" && request !== null ? (request as Record<string, unknown>) : {};
  const { tenant, subscriptionId, notificationId, requestedBy } = fields;
  if (
    !isBoundedText(tenant) ||
    !isValidIdentifier(tenant) ||
    !isBoundedText(subscriptionId) ||
    !isSubscriptionId(subscriptionId) ||
    !isBoundedText(notificationId) ||
    !isBoundedText(requestedBy) ||
    Object.keys(fields).length !== 4
  ) {
    throw new Error(
      `A ${TEST_REQUEST_KEY} payload carries exactly tenant, subscriptionId, notificationId and requestedBy`,
    );
  }
  return { tenant, subscriptionId, notificationId, requestedBy };
}

const isOptional = (value: unknown, type: "number" | "string") =>
  value === undefined || typeof value === type;

/** A test's outcome as the function that posted it answered; undefined when the answer is no outcome. */
export function webhookTestOutcomeOf(answer: unknown): WebhookTestOutcome | undefined {
  if (typeof answer !== "object" || answer === null) return undefined;
  const { found, response } = answer as Record<string, unknown>;
  if (found === false) return { found };
  if (found !== true || typeof response !== "object" || response === null) return undefined;
  const { status, error, durationMs } = response as Record<string, unknown>;
  if (!isOptional(status, "number") || !isOptional(error, "string") || typeof durationMs !== "number") {
    return undefined;
  }
  return {
    found,
    response: {
      ...(status === undefined ? {} : { status: status as number }),
      ...(error === undefined ? {} : { error: error as string }),
      durationMs,
    },
  };
}
