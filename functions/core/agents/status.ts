import type { AgentClassRecord } from "./ports.js";

/** What a class's agents are assumed to do when nobody set the class's heartbeat interval. */
export const DEFAULT_HEARTBEAT_INTERVAL_SECONDS = 60;

/** An agent that missed this many heartbeats in a row is offline. */
export const MISSED_HEARTBEATS_OFFLINE = 3;

export type AgentStatus = "online" | "offline";

/** Where a last-seen time came from: the cache has every heartbeat, the registry only checkpoints. */
export type LastSeenSource = "cache" | "registry";

export interface StatusRule {
  heartbeatIntervalSeconds: number;
  /** How stale the registry's last-seen time may be (its checkpoint interval). */
  registryLagMs: number;
}

/**
 * The earliest last-seen time that still counts as online. A time read from the registry may lag the
 * agent's real last heartbeat by up to a checkpoint interval, so it is given that much more slack:
 * with the cache down, an agent that stopped recently may still show online, never the reverse.
 */
export function onlineSince(now: number, rule: StatusRule, source: LastSeenSource): number {
  const window = rule.heartbeatIntervalSeconds * 1000 * MISSED_HEARTBEATS_OFFLINE;
  return now - window - (source === "registry" ? rule.registryLagMs : 0);
}

export function statusOf(
  lastSeen: number,
  now: number,
  rule: StatusRule,
  source: LastSeenSource,
): AgentStatus {
  return lastSeen >= onlineSince(now, rule, source) ? "online" : "offline";
}

export const statusRuleOf = (record: AgentClassRecord | undefined, registryLagMs: number): StatusRule => ({
  heartbeatIntervalSeconds: record?.heartbeatIntervalSeconds ?? DEFAULT_HEARTBEAT_INTERVAL_SECONDS,
  registryLagMs,
});

/** The class's own acknowledgement timeout, which every operation created for its agents carries. */
export const ackTimeoutMsOf = (record: AgentClassRecord | undefined): number | undefined =>
  record?.ackTimeoutSeconds === undefined ? undefined : record.ackTimeoutSeconds * 1000;
