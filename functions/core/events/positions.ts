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
