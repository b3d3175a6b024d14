import type { BeaconEvent, HeartbeatEvent } from "../events/model.js";
import { partitionPathsOf } from "./layout.js";
import type { ArchiveReader } from "./ports.js";

/** Which archived events the report counts: heartbeats recorded in [from, to) (epoch ms), of one agent or all. */
export interface IntegrityScope {
  from?: number;
  to?: number;
  agentId?: string;
}

/** What the counts say of one agent's heartbeat events, or of all agents' together. */
export interface IntegrityCounts {
  /** Distinct numbers the sequence's runs span in the scope: each a heartbeat event that should be there. */
  expected: number;
  /** Distinct numbers found: `expected` less `lost`. */
  received: number;
  /** Numbers in a run's span that no event carries. */
  lost: number;
  /** Copies beyond the first: one eventId archived again, or another event carrying a number already seen. */
  duplicated: number;
  /** Heartbeat events without a number (the cache was down, and the registry answered): not checkable. */
  unsequenced: number;
  /** Runs of the sequence: it starts again from 1 when the cache loses the agent. */
  runs: number;
}

/** A number or range of numbers of a run that no archived event carries. */
export interface SequenceGap {
  /** The run, from 1, in the order the agent's heartbeats were recorded. */
  run: number;
  first: number;
  last: number;
}

export interface AgentIntegrity extends IntegrityCounts {
  agentId: string;
  gaps: SequenceGap[];
}

export interface IntegrityReport {
  agents: AgentIntegrity[];
  totals: IntegrityCounts;
}

/**
 * Counts, per agent, the heartbeat events the archive should hold, those lost and those held twice, from
 * the sequence every heartbeat the cache recorded carries. The heartbeats are taken in the order Beacon
 * recorded them (`at`, then sequence); each event numbered 1 starts a new run of the sequence (the cache
 * lost the agent, which restarts it), not a loss. A run's span is from its lowest number seen (1, unless the
 * scope begins within the run) to its highest seen: events lost at the very end of a run, or a restart's
 * first event itself, are beyond what the numbers can show.
 */
export function integrityOf(events: Iterable<BeaconEvent>, scope: IntegrityScope = {}): IntegrityReport {
  const byAgent = new Map<string, HeartbeatEvent[]>();
  for (const event of events) {
    if (event.type !== "heartbeat" || !inScope(event, scope)) continue;
    const heartbeats = byAgent.get(event.agentId);
    if (heartbeats) heartbeats.push(event);
    else byAgent.set(event.agentId, [event]);
  }
  const agents = [...byAgent.entries()]
    .sort(([first], [second]) => (first < second ? -1 : first > second ? 1 : 0))
    .map(([agentId, heartbeats]) => agentIntegrityOf(agentId, heartbeats));
  return { agents, totals: totalsOf(agents) };
}

const inScope = (event: HeartbeatEvent, { from, to, agentId }: IntegrityScope): boolean =>
  (from === undefined || event.at >= from) &&
  (to === undefined || event.at < to) &&
  (agentId === undefined || event.agentId === agentId);

function agentIntegrityOf(agentId: string, heartbeats: HeartbeatEvent[]): AgentIntegrity {
  const distinct = new Map<string, HeartbeatEvent>();
  for (const event of heartbeats) if (!distinct.has(event.eventId)) distinct.set(event.eventId, event);
  const counts: AgentIntegrity = {
    agentId,
    expected: 0,
    received: 0,
    lost: 0,
    duplicated: heartbeats.length - distinct.size,
    unsequenced: 0,
    runs: 0,
    gaps: [],
  };
  const sequenced: { at: number; sequence: number }[] = [];
  for (const { at, sequence } of distinct.values()) {
    if (sequence === undefined) counts.unsequenced++;
    else sequenced.push({ at, sequence });
  }
  sequenced.sort((first, second) => first.at - second.at || first.sequence - second.sequence);
  for (const run of runsOf(sequenced)) {
    counts.runs++;
    const numbers = [...new Set(run)].sort((first, second) => first - second);
    const lowest = numbers[0] as number;
    const highest = numbers.at(-1) as number;
    counts.expected += highest - lowest + 1;
    counts.received += numbers.length;
    counts.duplicated += run.length - numbers.length;
    numbers.forEach((number, index) => {
      const next = numbers[index + 1];
      if (next !== undefined && next > number + 1)
        counts.gaps.push({ run: counts.runs, first: number + 1, last: next - 1 });
    });
  }
  counts.lost = counts.expected - counts.received;
  return counts;
}

/** The numbers of each run of the sequence, in recorded order: every 1 starts one. */
function runsOf(sequenced: { sequence: number }[]): number[][] {
  const runs: number[][] = [];
  for (const { sequence } of sequenced) {
    const current = runs.at(-1);
    if (current === undefined || sequence === 1) runs.push([sequence]);
    else current.push(sequence);
  }
  return runs;
}

function totalsOf(agents: readonly AgentIntegrity[]): IntegrityCounts {
  const totals: IntegrityCounts = {
    expected: 0,
    received: 0,
    lost: 0,
    duplicated: 0,
    unsequenced: 0,
    runs: 0,
  };
  for (const agent of agents)
    for (const field of Object.keys(totals) as (keyof IntegrityCounts)[]) totals[field] += agent[field];
  return totals;
}

/**
 * The report over the tenant's archive: the hours `scope` spans (its whole archive without a bound), each
 * event counted if it was recorded within the scope.
 */
export async function archiveIntegrity(
  reader: ArchiveReader,
  tenant: string,
  scope: IntegrityScope = {},
): Promise<IntegrityReport> {
  const events: BeaconEvent[] = [];
  for (const path of partitionPathsOf(tenant, scope.from, scope.to))
    for await (const event of reader.eventsUnder(path)) events.push(event);
  return integrityOf(events, scope);
}
