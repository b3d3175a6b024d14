import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { StreamPublishError } from "../adapters/kinesis/event-sink.js";
import type { BeaconEvent } from "../core/events/model.js";
import type { EventSink } from "../core/events/ports.js";

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
   * Events a publish did not put on the stream, however the use case went on. Operation events among them
   * are not lost: the outbox kept them, and the sweeper's relay puts them on the stream later (OutboxRelayed).
   */
  eventsLost: "EventsLost",
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
  /** Stream records every consumer took (the stream consumer). */
  eventsConsumed: "EventsConsumed",
  /** Stream records passed over for good: not Beacon events. */
  eventsRefused: "EventsRefused",
  /** Consumers that failed a batch, which is then delivered again from the first record one did not take. */
  consumerFailures: "ConsumerFailures",
  /** Deliveries of event subscriptions their receivers took (the stream consumer's first attempts, the dispatcher). */
  webhookDeliveries: "WebhookDeliveries",
  /** Deliveries given up: out of retries, answered 410 Gone, or their subscription gone. */
  webhookFailures: "WebhookFailures",
  /** Subscriptions disabled because their receivers kept failing. */
  webhooksDisabled: "WebhooksDisabled",
  /** Console changes answered whose audit record could not be written (the record is in the error log line). */
  auditWriteFailed: "AuditWriteFailed",
} as const;

/**
 * The sink, counting in EventsLost every event a publish could not put on the stream: the sink's own count
 * when it has one (a partly failed PutRecords), else the whole publish. Counted here, where each failed
 * publish is seen, because the use cases keep going and report one stream error for all of a run's.
 */
export function countingLostEvents(sink: EventSink): EventSink {
  return {
    async publish(events: BeaconEvent[]): Promise<void> {
      try {
        await sink.publish(events);
      } catch (error) {
        const lost = error instanceof StreamPublishError ? error.failedCount : events.length;
        metrics.addMetric(MetricNames.eventsLost, MetricUnit.Count, lost);
        throw error;
      }
    },
  };
}
