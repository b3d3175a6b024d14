import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import type { BeaconEvent } from "../core/events/model.js";
import { EventsKeptForRelay, type UnpublishedEvents } from "../core/events/publishing.js";

/**
 * Service name, namespace and log level come from the POWERTOOLS_* variables the function construct
 * sets; a value given here (or to the loggers below) would override them and detach the metrics from
 * their alarms.
 */
export const metrics = new Metrics();

/**
 * A function's logger, which each handler module makes for itself and gives every invocation's Lambda context
 * (`addContext`): its records then carry the request id, the function's name and whether the invocation was a
 * cold start, which a logger reports for its first invocation only. One per handler, so that the flag is right
 * for each function also where the local stack runs all three in one process.
 */
export const functionLogger = (): Logger => new Logger();

export const MetricNames = {
  /** Heartbeat events the stream consumer took: every heartbeat the agent API accepted, counted a batch at a time. */
  heartbeats: "Heartbeats",
  acknowledgements: "Acknowledgements",
  registrations: "Registrations",
  manifestsStored: "ManifestsStored",
  describeSent: "DescribeSent",
  cacheFallbacks: "CacheFallbacks",
  /** Of the CacheFallbacks, the requests that did not call the cache at all, its breaker open. */
  cacheBypassed: "CacheBypassed",
  /** Times a container's cache breaker opened, after the cache failed its requests again and again. */
  cacheBreakerOpened: "CacheBreakerOpened",
  streamFailures: "StreamFailures",
  /** Requests answered, their change saved, while their stream put was still under way, at their deadline. */
  streamPutsNotAwaited: "StreamPutsNotAwaited",
  /**
   * Events a publish did not put on the stream and nothing keeps: not staged in the outbox (operation events
   * are, for the sweeper's relay), not held in the buffer, nor kept in the outbox for want of it (the stream,
   * the cache and the table all down at once).
   */
  eventsLost: "EventsLost",
  /** Events the stream did not take that wait in the cache's buffer for the sweeper to put them on it. */
  eventsHeld: "EventsHeld",
  /**
   * Events the stream did not take and the buffer could not hold (the cache unreachable, the buffer or the
   * tenant's share of it full), kept in the outbox for the sweeper to put them on the stream.
   */
  eventsHeldInOutbox: "EventsHeldInOutbox",
  /** Held events the sweeper put on the stream, the buffer's and those kept in the outbox. */
  heldEventsRelayed: "HeldEventsRelayed",
  /** Staged events the sweeper put on the stream because their writers did not. */
  outboxRelayed: "OutboxRelayed",
  /** Staged events on the stream whose outbox entries could not be removed: each will be put again, a duplicate. */
  outboxClearFailures: "OutboxClearFailures",
  /** Heartbeats answered 200 with no operations after an internal error (agents cannot act on errors). */
  heartbeatsFailed: "HeartbeatsFailed",
  rejectedRequests: "RejectedRequests",
  operationsTimedOut: "OperationsTimedOut",
  operationsCancelled: "OperationsCancelled",
  rolloutBatchesStarted: "RolloutBatchesStarted",
  rolloutsCompleted: "RolloutsCompleted",
  rolloutsRolledBack: "RolloutsRolledBack",
  rolloutsAborted: "RolloutsAborted",
  rolloutsPaused: "RolloutsPaused",
  /** Certificates the sweeper announced as entering the expiry window. */
  certificatesExpiring: "CertificatesExpiring",
  agentsWentOffline: "AgentsWentOffline",
  agentsDecommissioned: "AgentsDecommissioned",
  /** Stream records every consumer took (the stream consumer). */
  eventsConsumed: "EventsConsumed",
  /**
   * Stream records passed over as copies of an event an earlier record carried (a put whose outcome was unknown,
   * then put again): no consumer counts, archives or announces an event twice.
   */
  eventCopiesPassedOver: "EventCopiesPassedOver",
  /** Stream records passed over for good: not Beacon events. */
  eventsRefused: "EventsRefused",
  /** Consumers that failed a batch, which is then delivered again from the first record one did not take. */
  consumerFailures: "ConsumerFailures",
  /**
   * Notifications the EventBridge bus still refused after the stream consumer's retries: their batch is
   * delivered again from the first of them.
   */
  notificationsRefusedByBus: "NotificationsRefusedByBus",
  /** Deliveries of event subscriptions their receivers took (the stream consumer's first attempts, the dispatcher). */
  webhookDeliveries: "WebhookDeliveries",
  /** Deliveries given up: out of retries, answered 410 Gone, or their subscription gone. */
  webhookFailures: "WebhookFailures",
  /** Subscriptions disabled because their receivers kept failing. */
  webhooksDisabled: "WebhooksDisabled",
  /** DESCRIBE answers an accepted acknowledgement brought that could not be kept: the operation's result is lost. */
  operationResultsLost: "OperationResultsLost",
  /** Console changes answered whose audit record could not be written (the record is in the error log line). */
  auditWriteFailed: "AuditWriteFailed",
} as const;

/**
 * Counts what became of the events a publish could not put on the stream: held in the buffer (EventsHeld) or,
 * failing it, in the outbox (EventsHeldInOutbox), left staged in the outbox (not counted: the outbox's relay has
 * them), or lost (EventsLost). Counted where each failed publish is seen, because the use cases keep going and
 * report one stream error for all of a run's. Published at once: a put that outlived its request (the agent
 * service answers before a slow stream gives up) fails after the request's own metrics went out, and its count
 * would otherwise never be.
 */
export function countUnpublished(outcome: UnpublishedEvents): void {
  const counts: [string, number][] = [
    [MetricNames.eventsHeld, outcome.held],
    [MetricNames.eventsHeldInOutbox, outcome.heldInOutbox],
    [MetricNames.eventsLost, outcome.lost.length],
  ];
  const counted = counts.filter(([, count]) => count > 0);
  for (const [name, count] of counted) metrics.addMetric(name, MetricUnit.Count, count);
  if (counted.length > 0) metrics.publishStoredMetrics();
}

/**
 * Counts a publish the stream failed, if it did (StreamFailures, the stream's health), and logs it: a warning when every
 * event it did not put is kept for a relay, which will put it there; an error otherwise, with `events` whole when
 * the caller has them, so that they can be put on the stream again from the log. `what` names the events
 * ("events of rollouts").
 */
export function reportStreamFailure(
  logger: Logger,
  streamError: unknown,
  what: string,
  events?: BeaconEvent[],
): void {
  if (streamError === undefined) return;
  metrics.addMetric(MetricNames.streamFailures, MetricUnit.Count, 1);
  if (streamError instanceof EventsKeptForRelay) {
    logger.warn(`${what} not put on the stream yet: kept for the relay`, {
      error: String(streamError.streamError),
    });
    return;
  }
  logger.error(`${what} not put on the stream`, {
    error: String(streamError),
    ...(events === undefined ? {} : { events }),
  });
}
