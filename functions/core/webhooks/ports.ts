import type { Page, PageRequest } from "../paging.js";
import type { Delivery, Notification, Subscription } from "./model.js";

export interface SubscriptionStore {
  /** Stores a new subscription; a conflict when its id is taken. */
  create(subscription: Subscription): Promise<void>;
  get(tenant: string, subscriptionId: string): Promise<Subscription | undefined>;
  /** A tenant's subscriptions by id. */
  list(tenant: string, request: PageRequest): Promise<Page<Subscription>>;
  /** False when there was none. */
  delete(tenant: string, subscriptionId: string): Promise<boolean>;
  /**
   * The tenant's active subscriptions, to match its events against (a tenant has a bounded number); every one
   * made before the call is in the answer.
   */
  active(tenant: string): Promise<Subscription[]>;
  /** Disables an active subscription; false when it was not active (or not there). */
  disable(tenant: string, subscriptionId: string, at: number, reason: string): Promise<boolean>;
  /**
   * Makes a disabled subscription active again, forgetting when and why it was disabled; false when it was not
   * disabled (or not there).
   */
  enable(tenant: string, subscriptionId: string): Promise<boolean>;
}

export interface DeliveryQueue {
  /**
   * Adds each delivery once, by tenant, subscription and delivery id, however often it is offered; resolves to
   * those it added, so that a batch read again attempts nothing a first reading already queued.
   */
  enqueue(deliveries: Delivery[]): Promise<Delivery[]>;
  /** Pending deliveries whose next attempt is due at `now`, across tenants, at most `limit`. */
  due(now: number, limit: number): Promise<Delivery[]>;
  /**
   * Replaces `current` by `next` only if no attempt was recorded since `current` was read (its attempt count
   * is unchanged): false when another dispatcher got there first, so an attempt's outcome is recorded once.
   */
  recordAttempt(current: Delivery, next: Delivery): Promise<boolean>;
  /** One subscription's deliveries, newest first. */
  list(tenant: string, subscriptionId: string, request: PageRequest): Promise<Page<Delivery>>;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookResponse {
  /** The receiver's HTTP status, absent when no answer came. */
  status?: number;
  /** Why no answer came: a refused address, a timeout, a reset, a TLS failure. */
  error?: string;
  durationMs: number;
}

export interface WebhookSender {
  /** Posts once, following no redirect; never throws: every failure comes back as `error`. */
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

/** A notification a bus did not take, by its place among those given, and why. */
export interface BusRefusal {
  index: number;
  reason: string;
}

/**
 * An event bus for consumers of Beacon's notifications other than webhooks (on AWS, an EventBridge bus): every
 * notification of every tenant goes on it, whatever the subscriptions say.
 */
export interface NotificationBus {
  /**
   * Puts the notifications on the bus, retrying what it refuses a bounded number of times; resolves to those it
   * still refused, in order (none when all are on it), and never rejects.
   */
  put(notifications: readonly Notification[]): Promise<BusRefusal[]>;
}

/** A test of one subscription, as the console asks for it: the tenant is always the caller's own. */
export interface WebhookTestRequest {
  tenant: string;
  subscriptionId: string;
  /** The `webhook-id` the test is posted under, which the console's answer names. */
  notificationId: string;
  /** Who asked: the console user's subject, carried in the notification's data. */
  requestedBy: string;
}

/** How a test went: the receiver's answer, or that the subscription was not there. */
export type WebhookTestOutcome = { found: true; response: WebhookResponse } | { found: false };

export interface WebhookTester {
  /**
   * Posts the subscription's signed `webhook.test` once and answers how the receiver took it; throws a
   * BeaconError when whatever posts it for the caller could not be asked or failed.
   */
  test(request: WebhookTestRequest): Promise<WebhookTestOutcome>;
}
