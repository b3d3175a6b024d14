import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { Cluster, Redis } from "ioredis";
import type { DocumentClient } from "../adapters/dynamodb/direct-calls.js";
import { DynamoEventOutbox } from "../adapters/dynamodb/event-outbox.js";
import { CoalescingEventSink } from "../adapters/kinesis/event-sink.js";
import { RedisEventBuffer } from "../adapters/redis/event-buffer.js";
import type { EventBufferBounds } from "../core/events/ports.js";
import { clearingStaged, holdingWhenDown } from "../core/events/publishing.js";
import { countUnpublished, functionLogger, MetricNames, metrics } from "../shared/observability.js";
import { streamForDirectCalls } from "./aws-clients/direct.js";

const logger = functionLogger();

/**
 * The stream a function puts its events on, with what keeps the events the stream does not take: the outbox
 * its operation changes stage their events in, and the cache's buffer for the rest, or the outbox again when
 * the buffer cannot hold them. `events` holds what the stream refused, and forgets staged events once the
 * stream has them; `stream` puts on the stream alone (the relays').
 */
export function composeEventStream(
  documents: DocumentClient,
  redis: Redis | Cluster,
  config: { tableName: string; streamName: string; eventBuffer: EventBufferBounds },
) {
  const outbox = new DynamoEventOutbox(documents, config.tableName);
  const buffer = new RedisEventBuffer(redis, config.streamName, config.eventBuffer);
  // Requests a process answers at once put their events in one call; a Lambda invocation's alone, at once.
  const stream = new CoalescingEventSink(streamForDirectCalls(), config.streamName);
  const holding = holdingWhenDown(stream, buffer, outbox, (outcome) => {
    countUnpublished(outcome);
    // Whole, so that they can be put on the stream again from the log.
    if (outcome.lost.length > 0)
      logger.error("events kept nowhere: the stream, the cache and the table refused them", {
        events: outcome.lost,
      });
  });
  const events = clearingStaged(holding, outbox, (error, cleared) => {
    metrics.addMetric(MetricNames.outboxClearFailures, MetricUnit.Count, cleared.length);
    logger.warn("events on the stream stay staged: the relay will put them again", {
      error: String(error),
      eventIds: cleared.map((event) => event.eventId),
    });
  });
  return { outbox, buffer, stream, events };
}
