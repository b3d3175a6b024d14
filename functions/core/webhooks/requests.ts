import type { Notification, Subscription } from "./model.js";
import type { WebhookRequest } from "./ports.js";
import { signatureHeaders } from "./signing.js";

/** What a receiver is posted for one notification: its JSON, exactly as every attempt sends it. */
export const notificationBody = (notification: Notification): string => JSON.stringify(notification);

/** One attempt at posting `body` to the subscription, signed with its secret at `now` under the delivery's id. */
export const webhookRequestOf = (
  subscription: Pick<Subscription, "url" | "secret">,
  deliveryId: string,
  body: string,
  now: number,
): WebhookRequest => ({
  url: subscription.url,
  headers: {
    "content-type": "application/json",
    ...signatureHeaders(subscription.secret, deliveryId, Math.floor(now / 1000), body),
  },
  body,
});
