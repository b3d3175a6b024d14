import { type BeaconEvent, partitionKeyOf, resentOf } from "../../core/events/model.js";
import type { EventSink } from "../../core/events/ports.js";
import { PublishFailure } from "../../core/events/publishing.js";
import { AwsServiceError } from "../aws/retried.js";
import { kinesisPutRecords, type PutRecords, type RecordEntry, type StreamClient } from "./put-records.js";

export interface EventSinkOptions {
  /**
   * PutRecords calls per publish, the first included; each resends only what the last one failed. A call whose
   * outcome is unknown (it timed out, or its connection broke after it was sent) is not made again: the stream
   * may have taken its records, and its events are given back marked as resent, for whoever puts them again.
   */
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

/** Connection errors that leave nothing sent: a call that failed so can be made again without a copy. */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * Whether a call that failed whole may have been taken all the same: Kinesis refuses a call it did not take with
 * a 4xx answer (a throttled call, say), and a connection refused sent nothing; any other failure (a timeout, a
 * connection broken mid-call, a 5xx) leaves its outcome unknown.
 */
const mayHaveBeenTaken = (error: unknown): boolean =>
  error instanceof AwsServiceError
    ? error.statusCode >= 500
    : !NOT_SENT.has(String((error as { code?: unknown })?.code));

/** Kinesis takes at most this many records, and this many bytes of data and partition keys, in one PutRecords call. */
const MAX_RECORDS_PER_CALL = 500;
const MAX_BYTES_PER_CALL = 5 * 2 ** 20;

/** An event as PutRecords takes it, and what the last call that failed it said. */
interface EventRecord extends RecordEntry {
  event: BeaconEvent;
  bytes: number;
  errorCode?: string;
}

/** What a batch's records could not all be put: its events the stream does not have, in order. */
interface Unput {
  unpublished: BeaconEvent[];
  lastErrorCode: string | undefined;
}

const recordOf = (event: BeaconEvent): EventRecord => {
  const data = Buffer.from(JSON.stringify(event));
  const PartitionKey = partitionKeyOf(event);
  return { Data: data.toString("base64"), PartitionKey, event, bytes: data.length + PartitionKey.length };
};

const bytesOf = (records: EventRecord[]) => records.reduce((sum, record) => sum + record.bytes, 0);

/** Whether records can join a call that holds `count` records of `bytes` already. */
const fitsIn = (records: EventRecord[], count: number, bytes: number) =>
  count + records.length <= MAX_RECORDS_PER_CALL && bytes + bytesOf(records) <= MAX_BYTES_PER_CALL;

export class KinesisEventSink implements EventSink {
  private readonly putRecords: PutRecords;

  constructor(
    client: StreamClient,
    private readonly streamName: string,
    private readonly options: EventSinkOptions = { maxAttempts: 3, backoffMs: 25 },
  ) {
    this.putRecords = kinesisPutRecords(client);
  }

  /** A call at a time, so each agent's events keep their order across calls; a call that fails stops the rest. */
  async publish(events: BeaconEvent[]): Promise<void> {
    const records = events.map(recordOf);
    for (let start = 0; start < records.length; ) {
      let end = start + 1;
      let bytes = records[start]?.bytes ?? 0;
      for (; end < records.length && end - start < MAX_RECORDS_PER_CALL; end++) {
        bytes += records[end]?.bytes ?? 0;
        if (bytes > MAX_BYTES_PER_CALL) break;
      }
      const [outcome] = this.putTogether([records.slice(start, end)]);
      const failure = await outcome;
      if (failure)
        throw new StreamPublishError([...failure.unpublished, ...events.slice(end)], failure.lastErrorCode);
      start = end;
    }
  }

  /**
   * Puts the batches' records in one PutRecords call, resending what failed, with bounded retries. Each
   * batch's outcome settles as soon as all its records are on the stream, or once the sink gives up on them.
   */
  protected putTogether(batches: EventRecord[][]): Promise<Unput | undefined>[] {
    const settles = batches.map(() => {
      let settle: (outcome: Unput | undefined) => void = () => {};
      const outcome = new Promise<Unput | undefined>((resolve) => {
        settle = resolve;
      });
      return { outcome, settle };
    });
    const owned = batches.flatMap((records, batch) => records.map((record) => ({ record, batch })));
    void this.putWithRetries(owned, (batch, outcome) => settles[batch]?.settle(outcome));
    return settles.map(({ outcome }) => outcome);
  }

  private async putWithRetries(
    owned: { record: EventRecord; batch: number }[],
    settle: (batch: number, outcome: Unput | undefined) => void,
  ): Promise<void> {
    let pending = owned;
    let outcomeUnknown = false;
    const settled = new Set<number>();
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > 1) await sleep(this.options.backoffMs * 2 ** (attempt - 2));
      try {
        const result = await this.putRecords(
          this.streamName,
          pending.map(({ record }) => ({ Data: record.Data, PartitionKey: record.PartitionKey })),
        );
        const outcomes = result.Records ?? [];
        pending = pending.filter(({ record }, index) => {
          const outcome = outcomes[index];
          if (outcome && outcome.ErrorCode === undefined) return false;
          record.errorCode = outcome?.ErrorCode ?? record.errorCode;
          return true;
        });
      } catch (error) {
        outcomeUnknown = mayHaveBeenTaken(error);
        for (const { record } of pending) {
          record.errorCode = (error as Error).name;
          if (outcomeUnknown) record.event = resentOf(record.event);
        }
      }
      const failing = new Set(pending.map(({ batch }) => batch));
      const givingUp = pending.length > 0 && (outcomeUnknown || attempt >= this.options.maxAttempts);
      for (const { batch } of owned) {
        if (settled.has(batch) || (failing.has(batch) && !givingUp)) continue;
        settled.add(batch);
        const unput = pending.filter((entry) => entry.batch === batch).map(({ record }) => record);
        settle(
          batch,
          unput.length === 0
            ? undefined
            : { unpublished: unput.map(({ event }) => event), lastErrorCode: unput.at(-1)?.errorCode },
        );
      }
      if (givingUp) return;
    }
  }
}

/**
 * A sink that puts the events of the publishes made until the next macrotask together, in as few PutRecords
 * calls as Kinesis's limits allow: where one process answers many requests at once (the agent service, the
 * local gateway), their events cost one call, its signing and its socket write, instead of one each. A lone
 * publish, a Lambda invocation's, waits for nothing but the rest of the current turn of the event loop. Each
 * publish settles with its own events' outcome, whatever became of the others'; a publish too large for one
 * call is put alone, a call at a time, as by KinesisEventSink.
 */
export class CoalescingEventSink extends KinesisEventSink {
  private waiting: { records: EventRecord[]; resolve(): void; reject(error: unknown): void }[] = [];

  override publish(events: BeaconEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    const records = events.map(recordOf);
    if (!fitsIn(records, 0, 0)) return super.publish(events);
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.putWaiting());
      this.waiting.push({ records, resolve, reject });
    });
  }

  private putWaiting(): void {
    const waiting = this.waiting;
    this.waiting = [];
    const calls: (typeof waiting)[] = [];
    let call: typeof waiting = [];
    let count = 0;
    let bytes = 0;
    for (const publish of waiting) {
      if (!fitsIn(publish.records, count, bytes)) {
        calls.push(call);
        call = [];
        count = 0;
        bytes = 0;
      }
      call.push(publish);
      count += publish.records.length;
      bytes += bytesOf(publish.records);
    }
    calls.push(call);
    for (const publishes of calls) {
      const outcomes = this.putTogether(publishes.map(({ records }) => records));
      publishes.forEach(({ resolve, reject }, index) => {
        void outcomes[index]?.then((failure) =>
          failure ? reject(new StreamPublishError(failure.unpublished, failure.lastErrorCode)) : resolve(),
        );
      });
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
