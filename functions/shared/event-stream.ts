import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoEventOutbox } from "../adapters/dynamodb/event-outbox.js";
import { KinesisEventSink } from "../adapters/kinesis/event-sink.js";
import { clearingStaged } from "../core/events/publishing.js";
import { makeKinesisClient } from "./aws-clients.js";
import { countingLostEvents, functionLogger, MetricNames, metrics } from "./observability.js";

const logger = functionLogger();

/**
 * The stream a function puts its events on and the outbox its operation changes stage them in: `events`
 * forgets staged events once the stream has them; `stream` puts without looking at the outbox (the relay's).
 */
export function composeEventStream(
  documents: DynamoDBDocumentClient,
  config: { tableName: string; streamName: string },
) {
  const outbox = new DynamoEventOutbox(documents, config.tableName);
  const stream = countingLostEvents(new KinesisEventSink(makeKinesisClient(), config.streamName));
  const events = clearingStaged(stream, outbox, (error, cleared) => {
    metrics.addMetric(MetricNames.outboxClearFailures, MetricUnit.Count, cleared.length);
    logger.warn("events on the stream stay staged: the relay will put them again", {
      error: String(error),
      eventIds: cleared.map((event) => event.eventId),
    });
  });
  return { outbox, stream, events };
}
