import { BeaconError } from "../errors.js";
import type { AckEvent, BeaconEvent, HeartbeatEvent } from "../events/model.js";
import type { StreamRecord } from "../events/ports.js";
import type { Placed } from "../events/positions.js";
import { type CountedContribution, withFreshContributions } from "./counted.js";
import { type AgentSketch, emptySketch, estimateAgents, mergeSketch } from "./sketch.js";

/**
 * What the usage meter counts per tenant and hour, from the events on the stream: accepted heartbeats, the
 * acknowledgements agents sent, the operations created for them, and the bytes of the heartbeats' and
 * acknowledgements' requests (in) and replies (out); the flows, assets and debug bundles downloaded and their bytes;
 * the debug bundles agents uploaded and their bytes. The distinct agents seen are counted beside them, in a sketch.
 */
export const UsageCounters = [
  "heartbeats",
  "acknowledgements",
  "operations",
  "bytesIn",
  "bytesOut",
  "downloads",
  "downloadBytes",
  "uploads",
  "uploadBytes",
] as const;
export type UsageCounter = (typeof UsageCounters)[number];
export type UsageCounts = Record<UsageCounter, number>;

export const HOUR_MS = 3_600_000;
/** The longest range one usage request reads: 31 days of hours. */
export const MAX_USAGE_HOURS = 31 * 24;
/** The range a usage request without `from` reads: the day up to `to`. */
export const DEFAULT_USAGE_HOURS = 24;

export interface UsageHourKey {
  tenant: string;
  /** Hours since the epoch. */
  hour: number;
}

/**
 * One tenant's hour as stored. `positions` holds, per stream shard, the position of the last record counted
 * in it: a record at or below it has been counted here already.
 */
export interface UsageHour extends UsageHourKey {
  counts: UsageCounts;
  agentsSeen: AgentSketch;
  positions: Record<string, string>;
}

export const zeroUsage = (): UsageCounts =>
  Object.fromEntries(UsageCounters.map((counter) => [counter, 0])) as UsageCounts;

/** What one record adds to its tenant's hour. */
export type UsageContribution = CountedContribution<UsageCounter>;

/** The records of one batch that fall in one tenant's hour, in stream order within each shard. */
export interface UsageBatch {
  key: UsageHourKey;
  contributions: UsageContribution[];
}

/** An event put on the stream before events carried sizes counts no bytes. */
const bytesOf = (event: HeartbeatEvent | AckEvent) => ({
  bytesIn: event.bytesIn ?? 0,
  bytesOut: event.bytesOut ?? 0,
});

function usageOf(event: BeaconEvent): Omit<UsageContribution, keyof Placed> | undefined {
  switch (event.type) {
    case "heartbeat":
      return { counts: { heartbeats: 1, ...bytesOf(event) }, agentId: event.agentId };
    case "ack":
      return { counts: { acknowledgements: 1, ...bytesOf(event) }, agentId: event.agentId };
    case "operation":
      // An operation is created once, its later changes are the same operation.
      return event.from === undefined ? { counts: { operations: 1 } } : undefined;
    case "download":
      // An agent fetching content is not a sign of life as a heartbeat is: it leaves the active agents alone.
      return { counts: { downloads: 1, downloadBytes: event.bytesOut } };
    case "upload":
      // Nor is an upload: it answers an operation, which heartbeats already show the agent alive for.
      return { counts: { uploads: 1, uploadBytes: event.bytesIn } };
    default:
      return undefined;
  }
}

/**
 * The batch's records grouped by the tenant and hour they count in: one write per tenant and hour however
 * many events of it the batch holds, so a tenant's 1,700 heartbeats a second cost its hour one write a batch.
 */
export function usageBatchesOf(records: readonly StreamRecord[]): UsageBatch[] {
  const batches = new Map<string, UsageBatch>();
  for (const { shard, position, event } of records) {
    const usage = usageOf(event);
    if (!usage) continue;
    const key = { tenant: event.tenant, hour: Math.floor(event.at / HOUR_MS) };
    const id = `${key.tenant}/${key.hour}`;
    const batch = batches.get(id) ?? { key, contributions: [] };
    batch.contributions.push({ shard, position, ...usage });
    batches.set(id, batch);
  }
  return [...batches.values()];
}

/**
 * The hour once the batch's records it has not counted yet are added (freshAmong). Undefined when it has
 * counted every one, so that a redelivered batch, however split, writes nothing.
 */
export function applyUsage(stored: UsageHour | undefined, batch: UsageBatch): UsageHour | undefined {
  const counted = withFreshContributions(UsageCounters, stored, batch.contributions);
  return counted && { ...batch.key, ...counted };
}

/**
 * Whole hours from the one `from` falls in to the one `to` falls in, `to`'s included when it has begun;
 * without `from`, the 24 hours up to `to`'s.
 */
export function usageHoursOf(request: { from?: number; to?: number }, now: number) {
  const to = request.to ?? now;
  const from = request.from ?? 0;
  if (!Number.isFinite(from) || !Number.isFinite(to) || from < 0)
    throw new BeaconError("invalid_request", "from and to must be times Beacon can read, since 1970");
  const toHour = Math.ceil(to / HOUR_MS);
  if (request.from === undefined) return { fromHour: Math.max(0, toHour - DEFAULT_USAGE_HOURS), toHour };
  if (from >= to) throw new BeaconError("invalid_request", "from must be before to");
  const fromHour = Math.floor(from / HOUR_MS);
  if (toHour - fromHour > MAX_USAGE_HOURS)
    throw new BeaconError("invalid_request", `from and to may be at most ${MAX_USAGE_HOURS / 24} days apart`);
  return { fromHour, toHour };
}

/**
 * The hours' rows and their totals. Counts add up; the distinct agents of the range are the union of the
 * hours' sketches, not the sum of each hour's: an agent active all day is one agent.
 */
export function usageSummaryOf(hours: readonly UsageHour[]) {
  const totals = zeroUsage();
  const agents = emptySketch();
  const rows = hours.map((hour) => {
    for (const counter of UsageCounters) totals[counter] += hour.counts[counter] ?? 0;
    mergeSketch(agents, hour.agentsSeen);
    // An hour stored before a counter existed counts none of it.
    return { hour: hour.hour, activeAgents: estimateAgents(hour.agentsSeen), ...zeroUsage(), ...hour.counts };
  });
  return { rows, totals: { activeAgents: estimateAgents(agents), ...totals } };
}
