import type { KinesisClient } from "@aws-sdk/client-kinesis";
import { type BeaconEvent, partitionKeyOf } from "../../core/events/model.js";
import type { EventSink } from "../../core/events/ports.js";
import { PublishFailure } from "../../core/events/publishing.js";
import { kinesisPutRecords, type PutRecords, type RecordEntry } from "./put-records.js";

export interface EventSinkOptions {
  /** PutRecords calls per publish, the first included; each resends only what the last one failed. */
  maxAttempts: number;
  /** Pause before the first resend, doubled after each. */
  backoffMs: number;
}

export class StreamPublishError extends PublishFailure {
  constructor(
    unpublished: BeaconEvent[],
    readonly lastErrorCode: string | undefined,
  ) {
    super(
      `${unpublished.length} event(s) could not be put on the stream (last error: ${lastErrorCode ?? "unknown"})`,
      unpublished,
    );
    this.name = "StreamPublishError";
  }
}

/** Kinesis takes at most this many records in one PutRecords call; a request for many agents makes more events. */
const MAX_RECORDS_PER_CALL = 500;

export class KinesisEventSink implements EventSink {
  private readonly putRecords: PutRecords;

  constructor(
    client: KinesisClient,
    private readonly streamName: string,
    private readonly options: EventSinkOptions = { maxAttempts: 3, backoffMs: 25 },
  ) {
    this.putRecords = kinesisPutRecords(client);
  }

  /** A call at a time, so each agent's events keep their order across calls; a call that fails stops the rest. */
  async publish(events: BeaconEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += MAX_RECORDS_PER_CALL) {
      const end = Math.min(start + MAX_RECORDS_PER_CALL, events.length);
      const failure = await this.put(events.slice(start, end));
      if (failure)
        throw new StreamPublishError([...failure.unpublished, ...events.slice(end)], failure.lastErrorCode);
    }
  }

  /** Puts the events with bounded retries; what could not be put, if anything. */
  private async put(
    events: BeaconEvent[],
  ): Promise<{ unpublished: BeaconEvent[]; lastErrorCode: string | undefined } | undefined> {
    let pending: Array<RecordEntry & { event: BeaconEvent }> = events.map((event) => ({
      Data: Buffer.from(JSON.stringify(event)).toString("base64"),
      PartitionKey: partitionKeyOf(event),
      event,
    }));
    let lastErrorCode: string | undefined;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > 1) await sleep(this.options.backoffMs * 2 ** (attempt - 2));
      try {
        const result = await this.putRecords(
          this.streamName,
          pending.map(({ Data, PartitionKey }) => ({ Data, PartitionKey })),
        );
        const outcomes = result.Records ?? [];
        const failed = pending.filter(
          (_, index) => outcomes[index]?.ErrorCode !== undefined || !outcomes[index],
        );
        lastErrorCode = outcomes.find((outcome) => outcome.ErrorCode)?.ErrorCode ?? lastErrorCode;
        pending = failed;
      } catch (error) {
        lastErrorCode = (error as Error).name;
      }
      if (pending.length > 0 && attempt >= this.options.maxAttempts) {
        return { unpublished: pending.map((entry) => entry.event), lastErrorCode };
      }
    }
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
