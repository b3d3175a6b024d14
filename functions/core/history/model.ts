import type { OperationState } from "../events/model.js";
import type { AgentSketch } from "./sketch.js";

/**
 * What fleet history counts per tenant, class and minute, from the events on the stream. Operations are
 * counted in their class when their events name it, and in the whole fleet always.
 */
export const HistoryCounters = [
  "heartbeats",
  /** First sightings: agents Beacon registered. */
  "registrations",
  /** Operations created (queued), delivered in a heartbeat's reply, and cancelled before delivery. */
  "operationsQueued",
  "operationsDelivered",
  "operationsCancelled",
  "operationsDone",
  "operationsFailed",
  "operationsTimedOut",
  "rolloutTransitions",
  /**
   * ERROR bulletins as heartbeats report them: an agent lists its recent bulletins in every heartbeat, so a
   * bulletin counts once per heartbeat that lists it.
   */
  "errorBulletins",
  /** Agents announced offline (agent.offline), by the minute the sweeper found them. */
  "agentsWentOffline",
  /** Agents announced offline that heartbeat again (agent.online). */
  "agentsCameOnline",
] as const;
export type HistoryCounter = (typeof HistoryCounters)[number];
export type HistoryCounts = Record<HistoryCounter, number>;

/** The bucket of the whole fleet, beside each class's: no class name can be `*` (agents/class-name.ts). */
export const WHOLE_FLEET = "*";

export const MINUTE_MS = 60_000;
/** How long buckets and agents' kept events live unless configured otherwise. */
export const DEFAULT_HISTORY_RETENTION_DAYS = 14;

export interface BucketKey {
  tenant: string;
  /** A class name, or WHOLE_FLEET. */
  agentClass: string;
  /** Minutes since the epoch. */
  minute: number;
}

/**
 * One minute of one class as stored. `positions` holds, per stream shard, the position of the last record
 * applied to this bucket: a record at or below it has been counted here already.
 */
export interface HistoryBucket extends BucketKey {
  counts: HistoryCounts;
  agentsSeen: AgentSketch;
  positions: Record<string, string>;
}

/** The operation counters by the state an operation entered; awaiting_effect follows a delivery, and counts as none. */
export const OperationStateCounters = {
  queued: "operationsQueued",
  delivered: "operationsDelivered",
  done: "operationsDone",
  failed: "operationsFailed",
  timed_out: "operationsTimedOut",
  cancelled: "operationsCancelled",
} as const satisfies Partial<Record<OperationState, HistoryCounter>>;

export const zeroCounts = (): HistoryCounts =>
  Object.fromEntries(HistoryCounters.map((counter) => [counter, 0])) as HistoryCounts;

export const bucketId = (key: BucketKey): string => `${key.tenant}/${key.agentClass}/${key.minute}`;
