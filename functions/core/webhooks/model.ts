/**
 * Event subscriptions: a tenant asks for some of its events to be posted to an HTTPS endpoint of its own.
 * A notification type is a Beacon event's public name (`agent.offline`, `operation.failed`, ...); a
 * subscription names types, or families of them ending in ".*" (`operation.*`).
 */
export interface Subscription {
  tenant: string;
  subscriptionId: string;
  url: string;
  /** Types or families, as the caller gave them. */
  eventTypes: string[];
  /** Only events of this agent class, when set. */
  agentClass?: string;
  description?: string;
  /** The HMAC-SHA256 key deliveries are signed with; shown to the caller once, when the subscription is created. */
  secret: string;
  state: SubscriptionState;
  createdAt: number;
  createdBy: string;
  disabledAt?: number;
  disabledReason?: string;
}

export type SubscriptionState = "active" | "disabled";

/** What a receiver is sent: one Beacon event under its notification type. */
export interface Notification {
  /** The event's id. Deliveries are at least once: a receiver de-duplicates by it. */
  id: string;
  type: string;
  tenant: string;
  /** ISO 8601. */
  at: string;
  agentClass?: string;
  data: Record<string, unknown>;
}

export type DeliveryState = "pending" | "delivered" | "failed";

export interface DeliveryAttempt {
  at: number;
  /** The receiver's HTTP status, absent when no answer came (refused address, timeout, reset). */
  status?: number;
  error?: string;
  durationMs: number;
}

/** One notification on its way to one subscription, and the log of trying. */
export interface Delivery {
  tenant: string;
  subscriptionId: string;
  /** Unique within the subscription: the notification's id, so one event is queued once however often read. */
  deliveryId: string;
  notificationType: string;
  /** The exact body of every attempt, so a receiver's signature check and de-duplication hold across retries. */
  body: string;
  createdAt: number;
  state: DeliveryState;
  attempts: number;
  /** When the next attempt is due; absent once delivered or given up. */
  nextAttemptAt?: number;
  lastAttempt?: DeliveryAttempt;
}
