import type { AgentOfflineEvent, AgentOnlineEvent } from "../events/model.js";
import type { EventSink } from "../events/ports.js";
import type { Clock, IdGenerator } from "../ports.js";
import type { AgentClassRecord } from "./ports.js";
import { DEFAULT_HEARTBEAT_INTERVAL_SECONDS } from "./status.js";

/** An agent the cache marked offline: it was last seen at `lastSeen`, and held to `heartbeatPeriodMs`. */
export interface OverdueAgent {
  agentId: string;
  agentClass: string;
  lastSeen: number;
  heartbeatPeriodMs: number;
}

/**
 * The cache's side of finding agents that went silent. Each heartbeat schedules its agent's allowance: it
 * is overdue at its last seen plus MISSED_HEARTBEATS_OFFLINE times its period, the agent's own (its
 * manifest's, HotState.rememberAgentManifest), else its class's (ClassFlowCache.rememberClassFlow), else
 * the one it was held to before, else DEFAULT_HEARTBEAT_INTERVAL_SECONDS.
 */
export interface PresenceState {
  /** The tenants whose agents the cache indexes by class. */
  tenants(): Promise<string[]>;
  /**
   * Marks offline, once, up to `limit` of the tenant's agents overdue by `now`, earliest first, and returns
   * those it marked, and whether it stopped at `limit`. A heartbeat clears its agent's mark. An agent
   * restarting for an operation (HotState.rememberRestart) counts as silent only from its restart's
   * deadline on: it is overdue three periods after that deadline, should it not have heartbeat since.
   */
  markOverdue(tenant: string, now: number, limit: number): Promise<{ marked: OverdueAgent[]; more: boolean }>;
}

export interface OfflineSweepSettings {
  /** Most agents one look at one tenant marks (one script call); the tenant's next look goes on from there. */
  maxPerLook: number;
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

/** The heartbeat period a class holds its agents to that state none of their own: its interval, else Beacon's default. */
export const heartbeatPeriodMsOf = (
  record: Pick<AgentClassRecord, "heartbeatIntervalSeconds"> | undefined,
): number => (record?.heartbeatIntervalSeconds ?? DEFAULT_HEARTBEAT_INTERVAL_SECONDS) * 1000;

/**
 * The sweeper's announcement of agents that went silent, each once per outage, as `agent.offline`. It never
 * scans the registry: the cache keeps each tenant's agents by when they become overdue, and its script
 * takes the overdue ones in that order and marks them, so a run's work is bounded by `maxPerRun` however
 * large the fleet, and a silent agent is looked at once per outage.
 */
export function makeOfflineSweep(deps: {
  presence: PresenceState;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  settings: OfflineSweepSettings;
}) {
  const { presence, events, clock, ids, settings } = deps;

  /** Marks the tenant's overdue agents, up to `budget` or `deadline`; their events, and whether any were left. */
  async function lookAtTenant(tenant: string, now: number, budget: number, deadline: number) {
    const found: AgentOfflineEvent[] = [];
    for (;;) {
      const left = budget - found.length;
      if (left <= 0 || clock.now() >= deadline) return { found, more: true };
      const look = await presence.markOverdue(tenant, now, Math.min(settings.maxPerLook, left));
      for (const agent of look.marked) found.push(offlineEvent(tenant, agent, now, ids.newId()));
      if (!look.more) return { found, more: false };
    }
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
        const look = await lookAtTenant(tenant, now, settings.maxPerRun - found.length, deadline);
        found.push(...look.found);
        more ||= look.more;
      }
      return announce(found, more);
    },
    /** One tenant's agents only. */
    async sweepTenant(tenant: string): Promise<OfflineSweepOutcome> {
      const look = await lookAtTenant(tenant, clock.now(), settings.maxPerRun, Number.POSITIVE_INFINITY);
      return announce(look.found, look.more);
    },
  };
}

export function offlineEvent(
  tenant: string,
  agent: OverdueAgent,
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
    agentClass: agent.agentClass,
    lastSeen: agent.lastSeen,
    heartbeatPeriodMs: agent.heartbeatPeriodMs,
  };
}

/** The heartbeat of an agent the sweeper had announced offline: it is back. */
export function onlineEvent(
  recorded: { eventId: string; tenant: string; agentId: string; at: number; agentClass: string },
  lastSeen: number,
): AgentOnlineEvent {
  return { type: "agent.online", version: 1, ...recorded, lastSeen };
}
