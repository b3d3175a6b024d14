import type { AgentOfflineEvent, AgentOnlineEvent } from "../events/model.js";
import type { EventSink } from "../events/ports.js";
import type { Clock, IdGenerator } from "../ports.js";
import type { AgentClassRecord, ClassCatalog } from "./ports.js";
import { DEFAULT_HEARTBEAT_INTERVAL_SECONDS, MISSED_HEARTBEATS_OFFLINE } from "./status.js";

/** An agent the cache marked offline: it was last seen at `lastSeen`. */
export interface OverdueAgent {
  agentId: string;
  lastSeen: number;
}

/** The cache's side of finding agents that went silent: its per-class index of agents by last seen. */
export interface PresenceState {
  /** The tenants whose agents the cache indexes by class. */
  tenants(): Promise<string[]>;
  /**
   * Marks offline, once, up to `limit` of the class's agents last seen before `cutoff` that are not marked
   * yet, going on from where the previous call for the class stopped; returns those it marked, and whether
   * it stopped at `limit`. A heartbeat clears its agent's mark. An agent restarting for an operation
   * (HotState.rememberRestart) counts as silent only from its restart's deadline on: it is marked once that
   * deadline is before `cutoff` too, should it not have heartbeat since, even when an earlier call went
   * past it.
   */
  markOverdue(
    tenant: string,
    className: string,
    cutoff: number,
    limit: number,
  ): Promise<{ marked: OverdueAgent[]; more: boolean }>;
}

export interface OfflineSweepSettings {
  /** Most agents one look at one class marks (one script call); the rest wait for the next look. */
  maxPerClassPerLook: number;
  /** Most agents one run announces, across tenants; the rest wait for the next run. */
  maxPerRun: number;
}

export interface OfflineSweepOutcome {
  announced: number;
  /** Overdue agents were left for the next run. */
  more: boolean;
  /** The announcements could not be put on the stream; the marks stay, so they are not made again. */
  streamError?: unknown;
}

/** The heartbeat period the class's agents are held to: the class's interval, else Beacon's default. */
export const heartbeatPeriodMsOf = (record: AgentClassRecord | undefined): number =>
  (record?.heartbeatIntervalSeconds ?? DEFAULT_HEARTBEAT_INTERVAL_SECONDS) * 1000;

/** Agents last seen before this are offline: they missed MISSED_HEARTBEATS_OFFLINE heartbeats. */
export const offlineCutoff = (now: number, heartbeatPeriodMs: number): number =>
  now - MISSED_HEARTBEATS_OFFLINE * heartbeatPeriodMs;

/**
 * The sweeper's announcement of agents that went silent, each once per outage, as `agent.offline`. It never
 * scans the registry: the cache's per-class index of agents by last seen gives the overdue ones in time
 * order, and its script marks them and goes on from there next time, so a run's work is bounded by
 * `maxPerRun` however large the fleet, and a silent agent is looked at once per outage.
 */
export function makeOfflineSweep(deps: {
  presence: PresenceState;
  classes: ClassCatalog;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  settings: OfflineSweepSettings;
}) {
  const { presence, classes, events, clock, ids, settings } = deps;

  async function classesOf(tenant: string): Promise<AgentClassRecord[]> {
    const records: AgentClassRecord[] = [];
    let after: string | undefined;
    do {
      const page = await classes.list(tenant, { limit: 100, after });
      records.push(...page.items);
      after = page.last;
    } while (after !== undefined);
    return records;
  }

  /** Marks the tenant's overdue agents, up to `budget`; their events, and whether any were left. */
  async function lookAtTenant(tenant: string, now: number, budget: number) {
    const found: AgentOfflineEvent[] = [];
    let more = false;
    for (const record of await classesOf(tenant)) {
      const left = budget - found.length;
      if (left <= 0) return { found, more: true };
      const period = heartbeatPeriodMsOf(record);
      const limit = Math.min(settings.maxPerClassPerLook, left);
      const look = await presence.markOverdue(tenant, record.name, offlineCutoff(now, period), limit);
      more ||= look.more;
      for (const agent of look.marked)
        found.push(offlineEvent(tenant, record.name, agent, period, now, ids.newId()));
    }
    return { found, more };
  }

  async function announce(found: AgentOfflineEvent[], more: boolean): Promise<OfflineSweepOutcome> {
    let streamError: unknown;
    if (found.length > 0) {
      try {
        await events.publish(found);
      } catch (error) {
        streamError = error;
      }
    }
    return { announced: found.length, more, streamError };
  }

  return {
    /** Every tenant the cache indexes; stops at `maxPerRun` agents or `deadline` (epoch ms). */
    async sweep(deadline: number): Promise<OfflineSweepOutcome> {
      const now = clock.now();
      const found: AgentOfflineEvent[] = [];
      let more = false;
      for (const tenant of await presence.tenants()) {
        if (found.length >= settings.maxPerRun || clock.now() >= deadline) {
          more = true;
          break;
        }
        const look = await lookAtTenant(tenant, now, settings.maxPerRun - found.length);
        found.push(...look.found);
        more ||= look.more;
      }
      return announce(found, more);
    },
    /** One tenant's agents only. */
    async sweepTenant(tenant: string): Promise<OfflineSweepOutcome> {
      const look = await lookAtTenant(tenant, clock.now(), settings.maxPerRun);
      return announce(look.found, look.more);
    },
  };
}

export function offlineEvent(
  tenant: string,
  agentClass: string,
  agent: OverdueAgent,
  heartbeatPeriodMs: number,
  at: number,
  eventId: string,
): AgentOfflineEvent {
  return {
    type: "agent.offline",
    version: 1,
    eventId,
    tenant,
    agentId: agent.agentId,
    at,
    agentClass,
    lastSeen: agent.lastSeen,
    heartbeatPeriodMs,
  };
}

/** The heartbeat of an agent the sweeper had announced offline: it is back. */
export function onlineEvent(
  recorded: { eventId: string; tenant: string; agentId: string; at: number; agentClass: string },
  lastSeen: number,
): AgentOnlineEvent {
  return { type: "agent.online", version: 1, ...recorded, lastSeen };
}
