import { freshAmong, type Placed } from "../events/positions.js";
import { type AgentSketch, addAgent, emptySketch } from "./sketch.js";

/**
 * Counters and the distinct agents seen, as fleet history's minutes and usage's hours keep them. `positions`
 * holds, per stream shard, the position of the last record counted: a record at or below it is counted already.
 */
export interface CountedRecords<Counter extends string> {
  counts: Record<Counter, number>;
  agentsSeen: AgentSketch;
  positions: Record<string, string>;
}

/** What one record adds to the counters, and the agent it came from. */
export interface CountedContribution<Counter extends string> extends Placed {
  counts: Partial<Record<Counter, number>>;
  agentId?: string;
}

/**
 * The stored counts once the contributions not counted yet are added (freshAmong). Undefined when every one
 * was counted already, so that a redelivered batch, however split, writes nothing.
 */
export function withFreshContributions<Counter extends string>(
  counters: readonly Counter[],
  stored: CountedRecords<Counter> | undefined,
  contributions: readonly CountedContribution<Counter>[],
): CountedRecords<Counter> | undefined {
  const { fresh, positions } = freshAmong(stored?.positions, contributions);
  if (fresh.length === 0) return undefined;
  const zero = Object.fromEntries(counters.map((counter) => [counter, 0])) as Record<Counter, number>;
  const counts = { ...zero, ...stored?.counts };
  const agentsSeen = stored ? Uint8Array.from(stored.agentsSeen) : emptySketch();
  for (const contribution of fresh) {
    for (const counter of counters) counts[counter] += contribution.counts[counter] ?? 0;
    if (contribution.agentId !== undefined) addAgent(agentsSeen, contribution.agentId);
  }
  return { counts, agentsSeen, positions };
}
