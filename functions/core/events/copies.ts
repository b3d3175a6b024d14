import { type Consumption, consumeRecords } from "./consumption.js";
import type { EventConsumer, KeptEvents, StreamRecord } from "./ports.js";
import { spans } from "./positions.js";

/**
 * Which of a batch's records are copies of an event an earlier record carried: one whose eventId an earlier
 * record of the batch carries, or a marked one (resent) whose eventId `kept` holds from another record. An
 * unmarked record is the first of its eventId: producers mark every put that may repeat one, so only marked
 * records are looked up, and a steady batch costs no lookup at all. A kept span of the record's shard that
 * covers its position is taken for the record itself, delivered again after a failure, which its consumers
 * take again as they take any redelivery.
 */
export async function copiesAmong(records: readonly StreamRecord[], kept: KeptEvents): Promise<Set<number>> {
  const copies = new Set<number>();
  const firstIndexOf = new Map<string, number>();
  records.forEach(({ event }, index) => {
    if (firstIndexOf.has(event.eventId)) copies.add(index);
    else firstIndexOf.set(event.eventId, index);
  });
  const marked = records.filter(({ event }, index) => event.resent && !copies.has(index));
  if (marked.length === 0) return copies;
  const earlier = await kept.keptAmong(marked.map(({ event }) => event));
  for (const [id, kept] of earlier) {
    const index = firstIndexOf.get(id);
    const record = index === undefined ? undefined : records[index];
    if (record && kept.some((span) => !spans(span, record.shard, record.position)))
      copies.add(index as number);
  }
  return copies;
}

export interface FirstsConsumption extends Consumption {
  /** Indexes of the records passed over as copies, among those before `failedFrom` (all, when it is absent). */
  copies: number[];
}

/**
 * Gives the consumers the batch's records less its copies (copiesAmong), so that each event counts, is
 * archived and is announced once however often the stream holds it. Indexes in what is returned are the
 * batch's. When the copies cannot be told, no consumer is given anything, and the batch comes again.
 */
export async function consumeFirstRecords(
  records: StreamRecord[],
  consumers: readonly EventConsumer[],
  kept: KeptEvents,
): Promise<FirstsConsumption> {
  if (records.length === 0) return { failures: [], copies: [] };
  let copies: Set<number>;
  try {
    copies = await copiesAmong(records, kept);
  } catch (error) {
    return { failedFrom: 0, failures: [{ consumer: "copies", from: 0, error }], copies: [] };
  }
  const batchIndexes = records.flatMap((_, index) => (copies.has(index) ? [] : [index]));
  const consumption = await consumeRecords(
    batchIndexes.map((index) => records[index] as StreamRecord),
    consumers,
  );
  const inBatch = (from: number) => batchIndexes[from] ?? records.length;
  const failures = consumption.failures.map((failure) => ({ ...failure, from: inBatch(failure.from) }));
  const failedFrom = consumption.failedFrom === undefined ? undefined : inBatch(consumption.failedFrom);
  const before = failedFrom ?? records.length;
  const passedOver = [...copies].filter((index) => index < before).sort((a, b) => a - b);
  return { ...(failedFrom === undefined ? {} : { failedFrom }), failures, copies: passedOver };
}
