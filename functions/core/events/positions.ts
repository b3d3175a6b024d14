/**
 * Kinesis sequence numbers are decimal strings without leading zeros, ordered within their shard: a longer
 * one is larger, and of two as long the string order is the number order.
 */
export function comparePositions(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The records of one shard from `first` to `last`, their positions included: what one archive object holds. */
export interface ShardSpan {
  shard: string;
  first: string;
  last: string;
}

/** Whether the record at `position` of `shard` lies within the span. */
export const spans = (span: ShardSpan, shard: string, position: string): boolean =>
  span.shard === shard &&
  comparePositions(span.first, position) <= 0 &&
  comparePositions(position, span.last) <= 0;

/** A record's place on the stream, as something counted from it carries it. */
export interface Placed {
  shard: string;
  position: string;
}

/**
 * Of `placed`, those above `applied`'s position for their shard (a record at or below it was applied already),
 * and the positions once they are applied too. Records of a shard reach a writer in stream order, each batch's
 * at once, so a redelivered batch, however split, finds nothing fresh in what it delivered before.
 */
export function freshAmong<T extends Placed>(
  applied: Readonly<Record<string, string>> | undefined,
  placed: readonly T[],
): { fresh: T[]; positions: Record<string, string> } {
  const positions = { ...applied };
  const fresh = placed.filter((record) => {
    const last = positions[record.shard];
    if (last !== undefined && comparePositions(record.position, last) <= 0) return false;
    positions[record.shard] = record.position;
    return true;
  });
  return { fresh, positions };
}
