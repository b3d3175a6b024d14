import type { EventConsumer, StreamRecord } from "./ports.js";

/**
 * Thrown by a consumer that made the first `taken` records it was given last, and not the rest: the batch
 * is then retried from the first record it did not take. Any other error means it took none of them.
 */
export class PartlyConsumed extends Error {
  constructor(
    readonly taken: number,
    options: { cause: unknown },
  ) {
    super(`took ${taken} record(s), then failed: ${String(options.cause)}`, options);
    this.name = "PartlyConsumed";
  }
}

export interface ConsumerFailure {
  consumer: string;
  /** Index, among the records given, of the first one this consumer did not take. */
  from: number;
  error: unknown;
}

export interface Consumption {
  /**
   * Index of the first record some consumer did not take: the stream must deliver it, and every record
   * after it on its shard, again. Absent when every consumer took every record.
   */
  failedFrom?: number;
  failures: ConsumerFailure[];
}

/**
 * Gives every consumer the records, in their order on the stream, all at once: consumers are independent of
 * one another, and each has the same effect however often a record reaches it, so a record one consumer failed
 * is simply delivered again to all of them.
 */
export async function consumeRecords(
  records: StreamRecord[],
  consumers: readonly EventConsumer[],
): Promise<Consumption> {
  if (records.length === 0) return { failures: [] };
  const outcomes = await Promise.allSettled(consumers.map((consumer) => consumer.consume(records)));
  const failures = outcomes.flatMap((outcome, index): ConsumerFailure[] => {
    if (outcome.status === "fulfilled") return [];
    const error: unknown = outcome.reason;
    const consumer = consumers[index]?.name ?? String(index);
    return [{ consumer, from: takenBefore(error, records.length), error }];
  });
  if (failures.length === 0) return { failures };
  return { failedFrom: Math.min(...failures.map((failure) => failure.from)), failures };
}

/** How many records a failed consumer took: what it says, within bounds, and otherwise none. */
function takenBefore(error: unknown, given: number): number {
  if (!(error instanceof PartlyConsumed)) return 0;
  // A consumer that claims all of them still failed: the last record is delivered again.
  return Math.max(0, Math.min(Math.floor(error.taken), given - 1));
}
