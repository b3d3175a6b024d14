import type { BeaconEvent, WebhookDisabledEvent } from "../events/model.js";
import type { EventConsumer, EventSink, StreamRecord } from "../events/ports.js";
import type { Clock, IdGenerator } from "../ports.js";
import type { Delivery, Notification, Subscription } from "./model.js";
import { agentToClassify, deliveryOf, notificationOf, wants } from "./notifications.js";
import { abandoned, afterAttempt, disableReasonOf, RETRY_WINDOW_MS } from "./policy.js";
import type { DeliveryQueue, SubscriptionStore, WebhookSender } from "./ports.js";
import { webhookRequestOf } from "./requests.js";

export interface WebhookDependencies {
  subscriptions: SubscriptionStore;
  queue: DeliveryQueue;
  sender: WebhookSender;
  /** Where webhook.disabled goes. */
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  /** Uniform in [0, 1): the retry waits' jitter. */
  random: () => number;
}

/** The class of an agent as the registry has it, for notifications whose events do not name it. */
export type AgentClassLookup = (tenant: string, agentId: string) => Promise<string | undefined>;

/** What became of the deliveries a run took on, for its metrics and log. */
export interface DeliveryReport {
  delivered: number;
  /** Failed attempts that will be tried again. */
  retrying: number;
  /** Given up: gone, out of retries, or their subscription disabled or deleted meanwhile. */
  failed: number;
  /** Subscriptions disabled by these failures. */
  disabled: number;
  /** Attempts whose outcome another run recorded first (sent twice: receivers de-duplicate by webhook-id). */
  raced: number;
  /** Due but not started: the run's time was up. */
  leftOver: number;
  /** Why a webhook.disabled event could not be put on the stream, if one could not. */
  streamError?: unknown;
}

const emptyReport = (): DeliveryReport => ({
  delivered: 0,
  retrying: 0,
  failed: 0,
  disabled: 0,
  raced: 0,
  leftOver: 0,
});

const deliveryKey = ({ tenant, subscriptionId, deliveryId }: Delivery) =>
  `${tenant}/${subscriptionId}/${deliveryId}`;

/** Deliveries of a subscription read, newest first, when deciding whether it still takes any. */
const SUCCESS_LOOKUP_PAGE = 100;
const SUCCESS_LOOKUP_PAGES = 3;

/**
 * Runs `work` on `items`, at most `concurrency` at a time, starting none once `deadline` has passed; resolves
 * to how many were never started.
 */
async function withinDeadline<T>(
  items: readonly T[],
  concurrency: number,
  deadline: number,
  clock: Clock,
  work: (item: T) => Promise<void>,
): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && clock.now() < deadline) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return items.length - next;
}

/**
 * Attempts deliveries and records what came of them: the request signed with the subscription's secret at the
 * attempt's time, its outcome recorded once (an attempt another run recorded first is left to it), and the
 * subscription disabled, with a webhook.disabled event, when the failure says its receiver is gone.
 */
function makeAttempts(deps: WebhookDependencies) {
  const { subscriptions, queue, sender, events, clock, ids, random } = deps;

  /** When a delivery to the subscription last succeeded, among those that could have since `since`. */
  async function lastSuccessSince(subscription: Subscription, since: number): Promise<number | undefined> {
    let after: string | undefined;
    for (let page = 0; page < SUCCESS_LOOKUP_PAGES; page++) {
      const { items, last } = await queue.list(subscription.tenant, subscription.subscriptionId, {
        limit: SUCCESS_LOOKUP_PAGE,
        after,
      });
      for (const delivery of items) {
        const at = delivery.lastAttempt?.at ?? 0;
        if (delivery.state === "delivered" && at >= since) return at;
        // Older ones were settled, one way or the other, before `since`.
        if (delivery.createdAt < since - RETRY_WINDOW_MS) return undefined;
      }
      if (last === undefined) return undefined;
      after = last;
    }
    return undefined;
  }

  async function disableFor(subscription: Subscription, failed: Delivery, report: DeliveryReport) {
    const lastSuccessAt =
      failed.lastAttempt?.status === 410 ? undefined : await lastSuccessSince(subscription, failed.createdAt);
    const reason = disableReasonOf(failed, lastSuccessAt);
    if (reason === undefined) return;
    const at = clock.now();
    const { tenant, subscriptionId } = subscription;
    if (!(await subscriptions.disable(tenant, subscriptionId, at, reason))) return;
    report.disabled++;
    const event: WebhookDisabledEvent = {
      type: "webhook.disabled",
      version: 1,
      eventId: ids.newId(),
      tenant,
      at,
      subscriptionId,
      reason,
      deliveryId: failed.deliveryId,
    };
    try {
      await events.publish([event satisfies BeaconEvent]);
    } catch (error) {
      report.streamError = error;
    }
  }

  async function attempt(subscription: Subscription, delivery: Delivery, report: DeliveryReport) {
    if (subscription.state !== "active") {
      const why = "The subscription was disabled";
      if (await queue.recordAttempt(delivery, abandoned(delivery, clock.now(), why))) report.failed++;
      return;
    }
    const at = clock.now();
    const response = await sender.send(
      webhookRequestOf(subscription, delivery.deliveryId, delivery.body, at),
    );
    const next = afterAttempt(delivery, response, at, random());
    if (!(await queue.recordAttempt(delivery, next))) {
      report.raced++;
      return;
    }
    if (next.state === "delivered") report.delivered++;
    else if (next.state === "pending") report.retrying++;
    else {
      report.failed++;
      await disableFor(subscription, next, report);
    }
  }

  /** A deleted subscription's pending deliveries are given up unsent. */
  async function abandonOrphan(delivery: Delivery, report: DeliveryReport) {
    const why = "The subscription was deleted";
    if (await queue.recordAttempt(delivery, abandoned(delivery, clock.now(), why))) report.failed++;
  }

  return { attempt, abandonOrphan };
}

export interface FirstAttemptSettings {
  /** Time the consumer gives a batch's first attempts, from when it has queued them; later ones wait. */
  budgetMs: number;
  concurrency: number;
  /**
   * How long a new delivery is left to the consumer's first attempt before the dispatcher may take it: the
   * budget and one request's timeout, so the two do not both send it.
   */
  holdMs: number;
  /**
   * How much later than an event a read of its tenant's subscriptions must be to be reused for it: the clocks of
   * the functions that made the event and the subscription may differ by this much.
   */
  clockSkewMs: number;
  /** Tenants whose subscriptions one container keeps. */
  maxCachedTenants: number;
}

/**
 * The stream's reader for event subscriptions: each notification a batch holds is queued once for every active
 * subscription of its tenant that wants it, then given its first attempt at once, within a time budget so the
 * batch is not held up by slow receivers; what is left is the dispatcher's. A batch read again queues nothing
 * new, and so attempts nothing: deliveries' ids are their events'. A failure to queue fails the batch, which
 * the stream then delivers again.
 */
export function makeWebhookConsumer(
  deps: WebhookDependencies,
  agentClassOf: AgentClassLookup,
  settings: FirstAttemptSettings,
  onReport: (report: DeliveryReport) => void,
) {
  const { subscriptions, queue, clock } = deps;
  const attempts = makeAttempts(deps);
  const cached = new Map<string, { readAt: number; active: Subscription[] }>();

  /**
   * The tenant's active subscriptions as they were at `newest` at least: every subscription made before an event
   * gets it. A read made after the batch's newest event is reused; a batch of newer events reads them again,
   * which costs one read a tenant a batch with notifications (they are few: heartbeats make none).
   */
  async function activeOf(tenant: string, newest: number): Promise<Subscription[]> {
    const now = clock.now();
    const entry = cached.get(tenant);
    if (entry && entry.readAt >= newest + settings.clockSkewMs) return entry.active;
    const active = await subscriptions.active(tenant);
    cached.delete(tenant);
    cached.set(tenant, { readAt: now, active });
    if (cached.size > settings.maxCachedTenants) cached.delete(cached.keys().next().value as string);
    return active;
  }

  /** The batch's deliveries, each with the subscription it is for. */
  async function deliveriesOf(events: BeaconEvent[]): Promise<Map<string, [Subscription, Delivery]>> {
    const byTenant = new Map<string, Notification[]>();
    for (const event of events) {
      const notice = notificationOf(event);
      if (notice === undefined) continue;
      const notices = byTenant.get(notice.tenant) ?? [];
      notices.push(notice);
      byTenant.set(notice.tenant, notices);
    }
    const dueAt = clock.now() + settings.holdMs;
    const deliveries = new Map<string, [Subscription, Delivery]>();
    const classes = new Map<string, Promise<string | undefined>>();
    /** Looked up once a batch per agent, and only for a subscription filtered by class that wants it. */
    const classOf = async (tenant: string, notice: Notification, active: Subscription[]) => {
      const agentId = active.map((subscription) => agentToClassify(subscription, notice)).find(Boolean);
      if (agentId === undefined) return notice.agentClass;
      const key = `${tenant}/${agentId}`;
      const known = classes.get(key) ?? agentClassOf(tenant, agentId);
      classes.set(key, known);
      return known;
    };
    await Promise.all(
      [...byTenant].map(async ([tenant, notices]) => {
        const active = await activeOf(tenant, Math.max(...notices.map((notice) => Date.parse(notice.at))));
        for (const notice of notices) {
          const agentClass = await classOf(tenant, notice, active);
          for (const subscription of active.filter((candidate) => wants(candidate, notice, agentClass))) {
            const delivery = deliveryOf(subscription, notice, dueAt);
            deliveries.set(deliveryKey(delivery), [subscription, delivery]);
          }
        }
      }),
    );
    return deliveries;
  }

  return {
    name: "webhooks",
    async consume(records: StreamRecord[]): Promise<void> {
      const deliveries = await deliveriesOf(records.map((record) => record.event));
      if (deliveries.size === 0) return;
      const added = await queue.enqueue([...deliveries.values()].map(([, delivery]) => delivery));
      const report = emptyReport();
      const deadline = clock.now() + settings.budgetMs;
      report.leftOver = await withinDeadline(added, settings.concurrency, deadline, clock, (delivery) => {
        const [subscription] = deliveries.get(deliveryKey(delivery)) as [Subscription, Delivery];
        return attempts.attempt(subscription, delivery, report);
      });
      onReport(report);
    },
  } satisfies EventConsumer;
}

export interface DispatchSettings {
  /** Due deliveries one run takes on, at most. */
  maxPerRun: number;
  concurrency: number;
}

/**
 * Retries what is due, across tenants: at most `maxPerRun` a run, a few at a time, none started after the
 * deadline. Subscriptions are read once per run; a deleted or disabled one's deliveries are given up unsent.
 */
export function makeWebhookDispatcher(deps: WebhookDependencies, settings: DispatchSettings) {
  const { subscriptions, queue, clock } = deps;
  const attempts = makeAttempts(deps);
  return {
    async dispatch(deadline: number): Promise<DeliveryReport & { more: boolean }> {
      const due = await queue.due(clock.now(), settings.maxPerRun);
      const report = emptyReport();
      const read = new Map<string, Promise<Subscription | undefined>>();
      const subscriptionOf = ({ tenant, subscriptionId }: Delivery) => {
        const key = `${tenant}/${subscriptionId}`;
        const known = read.get(key) ?? subscriptions.get(tenant, subscriptionId);
        read.set(key, known);
        return known;
      };
      report.leftOver = await withinDeadline(due, settings.concurrency, deadline, clock, async (delivery) => {
        const subscription = await subscriptionOf(delivery);
        if (subscription) await attempts.attempt(subscription, delivery, report);
        else await attempts.abandonOrphan(delivery, report);
      });
      return { ...report, more: due.length >= settings.maxPerRun };
    },
  };
}
