import { MetricUnit } from "@aws-lambda-powertools/metrics";
import { DynamoAgentRegistry } from "../adapters/dynamodb/agent-registry.js";
import { DynamoUsage } from "../adapters/dynamodb/usage.js";
import { EventBridgeNotificationBus } from "../adapters/eventbridge/notification-bus.js";
import { S3EventArchive } from "../adapters/s3/event-archive.js";
import { S3EventArchiveReader } from "../adapters/s3/event-archive-reader.js";
import { s3ObjectCalls } from "../adapters/s3/object-calls.js";
import { makeArchiveConsumer } from "../core/archive/consumer.js";
import type { EventConsumer } from "../core/events/ports.js";
import { makeUsageConsumer } from "../core/history/consumer.js";
import type { Clock } from "../core/ports.js";
import { makeNotificationBusConsumer } from "../core/webhooks/bus.js";
import { type FirstAttemptSettings, makeWebhookConsumer } from "../core/webhooks/delivery.js";
import { documentsForDirectCalls, objectsForDirectCalls } from "../runtime/aws-clients/direct.js";
import { busForDirectCalls } from "../runtime/aws-clients/direct-bus.js";
import { composeHistoryConsumer } from "../runtime/history-consumer.js";
import { composeWebhookDependencies } from "../runtime/webhook-delivery.js";
import type { HistoryConsumerConfig, StreamConsumerConfig, WebhookDeliveryConfig } from "../shared/config.js";
import { functionLogger, MetricNames, metrics } from "../shared/observability.js";
import { recordDeliveryReport } from "../shared/webhooks.js";

/** A receiver gets this long to answer a first attempt: a slow one is left to the dispatcher's retries. */
const FIRST_ATTEMPT_TIMEOUT_MS = 5_000;
/**
 * A batch's first attempts: 16 at a time, none started after 10 s, so a batch with deliveries takes at most
 * about 15 s more (the function has 60 s); the rest, due 20 s after they were queued, are the dispatcher's.
 */
const FIRST_ATTEMPTS: Omit<FirstAttemptSettings, "holdMs"> = {
  budgetMs: 10_000,
  concurrency: 16,
  clockSkewMs: 1_000,
  maxCachedTenants: 10_000,
};
const FIRST_ATTEMPT_HOLD_MS = FIRST_ATTEMPTS.budgetMs + FIRST_ATTEMPT_TIMEOUT_MS + 5_000;

/**
 * Wires every reader of the event stream to its backends; called once per container. Tests pass a clock of
 * their own to queue and attempt deliveries as if later.
 */
export function composeStreamConsumers(
  config: StreamConsumerConfig,
  history: HistoryConsumerConfig,
  webhooks: WebhookDeliveryConfig,
  clock?: Clock,
) {
  const s3 = objectsForDirectCalls();
  const archive = s3ObjectCalls(s3, config.archiveBucket);
  const documents = documentsForDirectCalls();
  const logger = functionLogger();
  const delivering = composeWebhookDependencies(webhooks, documents, FIRST_ATTEMPT_TIMEOUT_MS, clock);
  const agents = new DynamoAgentRegistry(documents, webhooks.tableName);
  const consumers: EventConsumer[] = [
    makeArchiveConsumer(new S3EventArchive(archive)),
    composeHistoryConsumer(history, documents),
    makeUsageConsumer(new DynamoUsage(documents, history.tableName)),
    makeWebhookConsumer(
      delivering,
      async (tenant, agentId) => (await agents.get(tenant, agentId))?.agentClass,
      { ...FIRST_ATTEMPTS, holdMs: FIRST_ATTEMPT_HOLD_MS },
      (report) => recordDeliveryReport(report, logger, "first attempts"),
    ),
  ];
  const bus = busConsumerOf(config.notificationBusName);
  if (bus) consumers.push(bus.consumer);
  return {
    consumers,
    // Every record the consumers took is archived: the archive tells a copy from the first record of an event.
    kept: new S3EventArchiveReader(archive),
    close: async () => {
      bus?.client.destroy();
      s3.destroy();
      delivering.close();
      documents.destroy();
    },
  };
}

/** The consumer that puts every notification on the named EventBridge bus, and its client; none without a bus. */
function busConsumerOf(busName: string | undefined) {
  if (busName === undefined) return undefined;
  const client = busForDirectCalls();
  const consumer = makeNotificationBusConsumer(new EventBridgeNotificationBus(client, busName), (refusals) =>
    metrics.addMetric(MetricNames.notificationsRefusedByBus, MetricUnit.Count, refusals.length),
  );
  return { client, consumer };
}
