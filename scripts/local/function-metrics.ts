/**
 * Beacon's metrics as a function log holds them (function-logs.ts): the EMF lines Powertools writes,
 * which CloudWatch turns into metrics on AWS. Read back here, they let a local run check Beacon's own
 * counters without CloudWatch.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

/** Milliseconds since the epoch, both ends included, as EMF's `_aws.Timestamp`. */
export interface TimeWindow {
  from: number;
  to: number;
}

/**
 * The total of each named metric over the EMF lines of `file` stamped within `window`; 0 for a metric
 * no line carries. A line carries a metric once per invocation, as a number or, added more than once,
 * as a list of numbers.
 */
export async function metricTotals<Name extends string>(
  file: string,
  names: readonly Name[],
  window: TimeWindow,
): Promise<Record<Name, number>> {
  const totals = Object.fromEntries(names.map((name) => [name, 0])) as Record<Name, number>;
  for (const record of await metricLines(file, window))
    for (const name of names) totals[name] += sumOf(record[name]);
  return totals;
}

/** The EMF lines of `file` stamped within `window`, in the order they were written. */
export async function metricLines(file: string, window: TimeWindow): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  const lines = createInterface({
    input: createReadStream(file, "utf8"),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of lines) {
    // Log records are most of the file and carry no metrics: only EMF lines are parsed.
    if (!line.includes('"_aws"')) continue;
    const record = JSON.parse(line) as Record<string, unknown> & { _aws?: { Timestamp?: number } };
    const at = record._aws?.Timestamp;
    if (at !== undefined && at >= window.from && at <= window.to) records.push(record);
  }
  return records;
}

function sumOf(value: unknown): number {
  if (typeof value === "number") return value;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + sumOf(item), 0);
  return 0;
}
