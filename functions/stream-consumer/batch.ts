import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import type { Logger } from "@aws-lambda-powertools/logger";
import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type {
  Context,
  KinesisStreamBatchResponse,
  KinesisStreamEvent,
  KinesisStreamRecord,
} from "aws-lambda";
import { consumeFirstRecords } from "../core/events/copies.js";
import type { EventConsumer, KeptEvents, StreamRecord } from "../core/events/ports.js";
import { MetricNames, metrics } from "../shared/observability.js";
import { type DecodedRecord, decodeRecord } from "./records.js";

/** The failure every record from the first one a consumer did not take is reported with. */
class NotConsumed extends Error {
  constructor(consumers: string[]) {
    super(`not taken by ${consumers.join(", ")}; delivered again from the first such record`);
    this.name = "NotConsumed";
  }
}

/**
 * The stream consumer's handler over `consumers`. A batch (the records of one shard, in order) is decoded;
 * records that are not Beacon events are logged, counted and passed over, as nothing would ever make them
 * valid. The events go to every consumer; when one fails, the partial batch response names every record
 * from the first record it did not take, so Lambda delivers the batch again from there (it resumes at the
 * lowest sequence number named). When that is the whole batch, the invocation fails, and Lambda bisects it.
 */
export function makeStreamHandler(
  consumers: readonly EventConsumer[],
  kept: KeptEvents,
  logger: Logger,
): (event: KinesisStreamEvent, context: Context) => Promise<KinesisStreamBatchResponse> {
  return async (event, context) => {
    logger.addContext(context);
    try {
      const decoded = event.Records.map((record) => ({ record, decoded: decodeRecord(record) }));
      const events: StreamRecord[] = [];
      const batchIndexOf: number[] = [];
      decoded.forEach(({ decoded: outcome }, index) => {
        if ("record" in outcome) {
          events.push(outcome.record);
          batchIndexOf.push(index);
        }
      });
      const consumption = await consumeFirstRecords(events, consumers, kept);
      for (const failure of consumption.failures)
        logger.error("consumer failed", {
          consumer: failure.consumer,
          fromPosition: events[failure.from]?.position,
          error: failure.error as Error,
        });
      const failedFrom =
        consumption.failedFrom === undefined
          ? event.Records.length
          : (batchIndexOf[consumption.failedFrom] as number);
      reportRefusals(decoded.slice(0, failedFrom), logger);
      const copies = new Set(consumption.copies);
      const consumed = events.filter(
        (_, index) => (batchIndexOf[index] as number) < failedFrom && !copies.has(index),
      );
      if (copies.size > 0)
        metrics.addMetric(MetricNames.eventCopiesPassedOver, MetricUnit.Count, copies.size);
      metrics.addMetric(MetricNames.eventsConsumed, MetricUnit.Count, consumed.length);
      metrics.addMetric(
        MetricNames.heartbeats,
        MetricUnit.Count,
        consumed.filter((record) => record.event.type === "heartbeat").length,
      );
      if (consumption.failures.length > 0)
        metrics.addMetric(MetricNames.consumerFailures, MetricUnit.Count, consumption.failures.length);
      // Lambda resumes at the lowest sequence number named: naming every later one too keeps the response
      // true to what was done, for whoever reads it.
      const failing = new Set(event.Records.slice(failedFrom).map((record) => record.kinesis.sequenceNumber));
      const failure = new NotConsumed(consumption.failures.map((f) => f.consumer));
      return await processPartialResponse(
        event,
        async (record: KinesisStreamRecord) => {
          if (failing.has(record.kinesis.sequenceNumber)) throw failure;
        },
        // One per invocation: made outside one, where invocations share a process (Lambda Managed Instances,
        // the local stack), a processor keeps its state in Lambda's InvokeStore, which has no scope yet.
        new BatchProcessor(EventType.KinesisDataStreams),
        { context, processInParallel: false },
      );
    } finally {
      metrics.publishStoredMetrics();
    }
  };
}

/** Records passed over for good; those after a failure are left for their delivery again. */
function reportRefusals(
  decoded: { record: KinesisStreamRecord; decoded: DecodedRecord }[],
  logger: Logger,
): void {
  let refused = 0;
  for (const { record, decoded: outcome } of decoded) {
    if (!("refused" in outcome)) continue;
    refused++;
    logger.warn("record refused: not a Beacon event", {
      eventID: record.eventID,
      reason: outcome.refused,
    });
  }
  if (refused > 0) metrics.addMetric(MetricNames.eventsRefused, MetricUnit.Count, refused);
}
