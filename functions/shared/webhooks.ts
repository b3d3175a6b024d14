import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Logger } from "@aws-lambda-powertools/logger";
import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoDeliveryQueue } from "../adapters/dynamodb/delivery-queue.js";
import { DynamoSubscriptionStore } from "../adapters/dynamodb/subscription-store.js";
import { HttpsWebhookSender } from "../adapters/http/webhook-sender.js";
import { KinesisEventSink } from "../adapters/kinesis/event-sink.js";
import type { EventSink } from "../core/events/ports.js";
import type { Clock } from "../core/ports.js";
import type { DeliveryReport, WebhookDependencies } from "../core/webhooks/delivery.js";
import { makeKinesisClient } from "./aws-clients.js";
import type { WebhookConfig, WebhookDeliveryConfig } from "./config.js";
import { FunctionTimeouts } from "./function-timeouts.js";
import { countUnpublished, MetricNames, metrics } from "./observability.js";

/**
 * A subscription's test answers within the console API's own time: the dispatcher gives up on the receiver after
 * half of it, and the console on the dispatcher three seconds later (room for a cold start outside the VPC).
 */
export const WebhookTestTimeouts = {
  receiverMs: (FunctionTimeouts.consoleApi * 1000) / 2,
  invocationMs: (FunctionTimeouts.consoleApi * 1000) / 2 + 3_000,
} as const;

/**
 * Outside the VPC these functions reach no cache to hold what the stream refuses: a webhook.disabled event the
 * stream does not take is lost, counted, and logged by the caller.
 */
function countingLost(stream: EventSink): EventSink {
  return {
    publish: (events) =>
      stream.publish(events).catch((error: unknown) => {
        countUnpublished({ held: 0, staged: 0, lost: events.length });
        throw error;
      }),
  };
}

/** The HTTPS sender of deliveries, with the configured address policy and, locally, the receivers' CA. */
export function makeWebhookSender(config: WebhookConfig, timeoutMs: number): HttpsWebhookSender {
  return new HttpsWebhookSender({
    policy: config.policy,
    timeoutMs,
    ca: config.caFile ? readFileSync(config.caFile, "utf8") : undefined,
  });
}

/**
 * What delivering to event subscriptions takes, on the Beacon table, the stream and HTTPS: built once per
 * container, a sender of its own (kept-alive connections) giving up on a receiver after `timeoutMs`.
 */
export function composeWebhookDependencies(
  config: WebhookDeliveryConfig,
  documents: DynamoDBDocumentClient,
  timeoutMs: number,
  clock: Clock = { now: () => Date.now() },
): WebhookDependencies & { close(): void } {
  const sender = makeWebhookSender(config, timeoutMs);
  const kinesis = makeKinesisClient();
  return {
    subscriptions: new DynamoSubscriptionStore(documents, config.tableName),
    queue: new DynamoDeliveryQueue(documents, config.tableName, config.retentionDays),
    sender,
    events: countingLost(new KinesisEventSink(kinesis, config.streamName)),
    clock,
    ids: { newId: () => randomUUID() },
    random: Math.random,
    close: () => {
      sender.close();
      kinesis.destroy();
    },
  };
}

/** A run's deliveries as metrics, and its troubles in the log. */
export function recordDeliveryReport(report: DeliveryReport, logger: Logger, what: string): void {
  metrics.addMetric(MetricNames.webhookDeliveries, MetricUnit.Count, report.delivered);
  metrics.addMetric(MetricNames.webhookFailures, MetricUnit.Count, report.failed);
  metrics.addMetric(MetricNames.webhooksDisabled, MetricUnit.Count, report.disabled);
  if (report.streamError !== undefined) {
    metrics.addMetric(MetricNames.streamFailures, MetricUnit.Count, 1);
    logger.error("webhook.disabled events not put on the stream", { error: String(report.streamError) });
  }
  const { streamError: _error, ...counts } = report;
  if (report.disabled > 0) logger.warn(`${what}: subscriptions disabled`, counts);
  else if (report.leftOver > 0) logger.info(`${what}: deliveries left for later`, counts);
}
