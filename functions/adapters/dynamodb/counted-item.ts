import type { CountedRecords } from "../../core/history/counted.js";
import { sketchFromBytes, sketchToBytes } from "../../core/history/sketch.js";

/** Counters, agents seen and shard positions as fleet history's minutes and usage's hours store them. */
export function countedFromItem<Counter extends string>(
  zero: Record<Counter, number>,
  item: Record<string, unknown>,
): CountedRecords<Counter> {
  return {
    counts: { ...zero, ...(item.counts as Record<Counter, number>) },
    agentsSeen: sketchFromBytes(item.agents as Uint8Array | undefined),
    positions: (item.positions as Record<string, string> | undefined) ?? {},
  };
}

export function countedToItem<Counter extends string>(
  records: CountedRecords<Counter>,
): Record<string, unknown> {
  return { counts: records.counts, agents: sketchToBytes(records.agentsSeen), positions: records.positions };
}
