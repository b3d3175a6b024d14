import type { AgentOfflineEvent, AgentOnlineEvent } from "../events/model.js";
import type { EventSink } from "../events/ports.js";
import { publishReportingFailure } from "../events/publishing.js";
import type { Clock, IdGenerator } from "../ports.js";
import type { AgentClassRecord, ClassCatalog, SilentAgentIndex } from "./ports.js";
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
  /**
   * Whether scheduleSilent is done for every class of the tenant (markAllScheduled): whether the agents
   * silent since before Beacon scheduled agents at each heartbeat are all scheduled.
   */
  allScheduled(tenant: string): Promise<boolean>;
  /**
   * Schedules, once, up to `limit` of the agents of the class's index of agents by last seen that no
   * heartbeat scheduled and none was announced offline, with the class's heartbeat period, going on from
   * where the previous call for the class stopped; how many it read, and whether the class is done.
   */
  scheduleSilent(
    tenant: string,
    className: string,
    heartbeatPeriodMs: number,
    limit: number,
  ): Promise<{ read: number; done: boolean }>;
  /**
   * Every class of the tenant (`classNames`) is done: scheduleSilent is not called for it again, and what the
   * sweep before the schedule kept for the tenant and those classes is let go.
   */
  markAllScheduled(tenant: string, classNames: string[]): Promise<void>;
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

/** The period a class holds its agents that state none of their own to: its interval, else Beacon's default. */
export const heartbeatPeriodMsOf = (
  record: Pick<AgentClassRecord, "heartbeatIntervalSeconds"> | undefined,
): number => (record?.heartbeatIntervalSeconds ?? DEFAULT_HEARTBEAT_INTERVAL_SECONDS) * 1000;

/** Every class of the tenant, a page at a time. */
export async function allClassesOf(classes: ClassCatalog, tenant: string): Promise<AgentClassRecord[]> {
  const records: AgentClassRecord[] = [];
  let after: string | undefined;
  do {
    const page = await classes.list(tenant, { limit: 100, after });
    records.push(...page.items);
    after = page.last;
  } while (after !== undefined);
  return records;
}

/** Registry writes filing announced agents in the silent index that are in flight at once. */
const FILINGS_AT_ONCE = 25;

/**
 * The sweeper's announcement of agents that went silent, each once per outage, as `agent.offline`. It never
 * scans the registry: the cache keeps each tenant's agents by when they become overdue, and its script
 * takes the overdue ones in that order and marks them, so a run's work is bounded by `maxPerRun` however
 * large the fleet, and a silent agent is looked at once per outage. Each announced agent is then filed in
 * the registry's silent index (one write per outage), where the clean-up finds those silent too long.
 */
export function makeOfflineSweep(deps: {
  presence: PresenceState;
  classes: ClassCatalog;
  silentAgents: SilentAgentIndex;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  settings: OfflineSweepSettings;
}) {
  const { presence, classes, silentAgents, events, clock, ids, settings } = deps;

  /**
   * Schedules the tenant's agents that went silent before Beacon scheduled agents at each heartbeat, with
   * their class's period, reading at most `budget` of its classes' agents; how many it read, and whether any
   * were left. Once every class is done the tenant is not looked at so again.
   */
  async function scheduleSilent(tenant: string, budget: number, deadline: number) {
    if (await presence.allScheduled(tenant)) return { read: 0, more: false };
    let read = 0;
    const records = await allClassesOf(classes, tenant);
    for (const record of records) {
      for (let done = false; !done; ) {
        const left = budget - read;
        if (left <= 0 || clock.now() >= deadline) return { read, more: true };
        const period = heartbeatPeriodMsOf(record);
        const step = await presence.scheduleSilent(
          tenant,
          record.name,
          period,
          Math.min(settings.maxPerLook, left),
        );
        read += step.read;
        done = step.done;
      }
    }
    await presence.markAllScheduled(
      tenant,
      records.map(({ name }) => name),
    );
    return { read, more: false };
  }

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

  /** Announced first: a registry that fails leaves the outage unfiled (the agent kept), never unannounced. */
  async function announce(found: AgentOfflineEvent[], more: boolean): Promise<OfflineSweepOutcome> {
    const streamError = await publishReportingFailure(events, found);
    for (let start = 0; start < found.length; start += FILINGS_AT_ONCE)
      await Promise.all(
        found
          .slice(start, start + FILINGS_AT_ONCE)
          .map(({ tenant, agentId, agentClass, lastSeen }) =>
            silentAgents.markSilent(tenant, { agentId, agentClass, lastSeen }),
          ),
      );
    return { announced: found.length, more, streamError };
  }

  return {
    /** Every tenant the cache indexes; stops at `maxPerRun` agents or `deadline` (epoch ms). */
    async sweep(deadline: number): Promise<OfflineSweepOutcome> {
      const now = clock.now();
      const found: AgentOfflineEvent[] = [];
      let more = false;
      let scheduleBudget = settings.maxPerRun;
      for (const tenant of await presence.tenants()) {
        if (found.length >= settings.maxPerRun || clock.now() >= deadline) {
          more = true;
          break;
        }
        const scheduled = await scheduleSilent(tenant, scheduleBudget, deadline);
        scheduleBudget -= scheduled.read;
        more ||= scheduled.more;
        const look = await lookAtTenant(tenant, now, settings.maxPerRun - found.length, deadline);
        found.push(...look.found);
        more ||= look.more;
      }
      return announce(found, more);
    },
    /** One tenant's agents only. */
    async sweepTenant(tenant: string): Promise<OfflineSweepOutcome> {
      const scheduled = await scheduleSilent(tenant, settings.maxPerRun, Number.POSITIVE_INFINITY);
      const look = await lookAtTenant(tenant, clock.now(), settings.maxPerRun, Number.POSITIVE_INFINITY);
      return announce(look.found, look.more || scheduled.more);
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
