import { readFileSync } from "node:fs";
import { DynamoDeliveryQueue } from "../adapters/dynamodb/delivery-queue.js";
import type { DocumentClient } from "../adapters/dynamodb/direct-calls.js";
import { DynamoSubscriptionStore } from "../adapters/dynamodb/subscription-store.js";
import { HttpsWebhookSender } from "../adapters/http/webhook-sender.js";
import { KinesisEventSink } from "../adapters/kinesis/event-sink.js";
import type { EventSink } from "../core/events/ports.js";
import type { Clock } from "../core/ports.js";
import type { WebhookDependencies } from "../core/webhooks/delivery.js";
import type { WebhookConfig, WebhookDeliveryConfig } from "../shared/config.js";
import { countUnpublished } from "../shared/observability.js";
import { streamForDirectCalls } from "./aws-clients/direct.js";
import { randomIds, systemClock } from "./system.js";

/**
 * Outside the VPC these functions reach no cache to hold what the stream refuses: a webhook.disabled event the
 * stream does not take is lost, counted, and logged by the caller.
 */
function countingLost(stream: EventSink): EventSink {
  return {
    publish: (events) =>
      stream.publish(events).catch((error: unknown) => {
        countUnpublished({ held: 0, heldInOutbox: 0, staged: 0, lost: events });
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
  documents: DocumentClient,
  timeoutMs: number,
  clock: Clock = systemClock,
): WebhookDependencies & { close(): void } {
  const sender = makeWebhookSender(config, timeoutMs);
  const kinesis = streamForDirectCalls();
  return {
    subscriptions: new DynamoSubscriptionStore(documents, config.tableName),
    queue: new DynamoDeliveryQueue(documents, config.tableName, config.retentionDays),
    sender,
    events: countingLost(new KinesisEventSink(kinesis, config.streamName)),
    clock,
    ids: randomIds,
    random: Math.random,
    close: () => {
      sender.close();
      kinesis.destroy();
    },
  };
}
