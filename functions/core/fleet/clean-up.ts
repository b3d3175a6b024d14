import type { AgentClassRecord, ClassCatalog, SilentAgent } from "../agents/ports.js";
import { allClassesOf, type PresenceState } from "../agents/presence.js";
import type { AgentDecommissionedEvent } from "../events/model.js";
import type { EventSink } from "../events/ports.js";
import { publishReportingFailure } from "../events/publishing.js";
import type { Clock, IdGenerator } from "../ports.js";
import type {
  FleetHotState,
  FleetRegistry,
  HotAgentState,
  TenantSettings,
  TenantSettingsStore,
} from "./ports.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How many days an agent of the class may stay silent before it is decommissioned: the class's own
 * `cleanUpAfterDays`, else the tenant's default; `undefined` (never) without either.
 */
export const cleanUpAgeOf = (
  record: Pick<AgentClassRecord, "cleanUpAfterDays">,
  tenant: TenantSettings,
): number | undefined => record.cleanUpAfterDays ?? tenant.cleanUpAfterDays;

/**
 * The last heartbeat before which an agent of a class with this clean-up age is silent longer than it at
 * `now`: those silent since earlier are due.
 */
export const cleanUpBefore = (cleanUpAfterDays: number, now: number): number =>
  now - cleanUpAfterDays * DAY_MS;

/**
 * What the clean-up does with an agent the registry files as silent since `silent.lastSeen`: an agent the
 * cache saw since came back (its next outage is filed anew); one the cache holds no later sighting of, or
 * lost, is decommissioned.
 */
export const cleanUpVerdict = (
  silent: SilentAgent,
  hot: HotAgentState | undefined,
): "back" | "decommission" =>
  hot?.lastSeen !== undefined && hot.lastSeen > silent.lastSeen ? "back" : "decommission";

export interface FleetCleanUpSettings {
  /** Most silent agents one run looks at, across tenants; the rest wait for the next run. */
  maxPerRun: number;
}

export interface FleetCleanUpOutcome {
  decommissioned: number;
  /** Agents filed as silent that heartbeat again: taken out of the silent index. */
  cameBack: number;
  /** Silent agents were left for the next run. */
  more: boolean;
  /** The events could not be put on the stream: staged with the decommissionings, they wait for the outbox's relay. */
  streamError?: unknown;
}

/**
 * The sweeper's clean-up of agents silent longer than their clean-up age (cleanUpAgeOf): each is
 * decommissioned once (its registry entry kept, marked, out of every index; its hot state dropped) and
 * announced as `agent.decommissioned`. It reads the tenant's settings once a run, and the registry's silent
 * index (filed by the offline sweep, once per outage): one query per class with an age (every class of a
 * tenant with a default), never the whole registry. It asks the cache whether each agent came back before
 * deciding. Agent certificates are left alone: the agent may come back, and registers
 * again when it does (the console's decommission is the one that revokes).
 */
export function makeFleetCleanUp(deps: {
  presence: Pick<PresenceState, "tenants">;
  classes: ClassCatalog;
  tenantSettings: TenantSettingsStore;
  registry: FleetRegistry;
  hotState: FleetHotState;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  settings: FleetCleanUpSettings;
}) {
  const { presence, classes, tenantSettings, registry, hotState, events, clock, ids, settings } = deps;

  /**
   * The class's agents silent longer than `cleanUpAfterDays` by `now`, up to `limit`: those it decommissioned,
   * and how many were back.
   */
  async function cleanUpClass(
    tenant: string,
    agentClass: string,
    cleanUpAfterDays: number,
    now: number,
    limit: number,
  ) {
    const before = cleanUpBefore(cleanUpAfterDays, now);
    const silent = await registry.silentBefore(tenant, agentClass, before, limit);
    if (silent.length === 0) return { looked: 0, found: [], cameBack: 0 };
    const hot = await hotState.agents(
      tenant,
      silent.map(({ agentId }) => agentId),
    );
    const found: AgentDecommissionedEvent[] = [];
    let cameBack = 0;
    for (const agent of silent) {
      if (cleanUpVerdict(agent, hot.get(agent.agentId)) === "back") {
        await registry.clearSilent(tenant, agent.agentId, agent.lastSeen);
        cameBack++;
        continue;
      }
      const event: AgentDecommissionedEvent = {
        type: "agent.decommissioned",
        version: 1,
        eventId: ids.newId(),
        tenant,
        at: now,
        ...agent,
        cleanUpAfterDays,
      };
      // The cache forgets the agent first: were it to stay there, a returning agent would heartbeat as
      // registered and never register again, hidden from every list.
      await hotState.forgetAgent(tenant, agent.agentId, [agent.agentClass]);
      const decommissioning = { at: now, reason: "silent" as const, lastSeen: agent.lastSeen, event };
      if (await registry.decommission(tenant, agent.agentId, decommissioning)) found.push(event);
    }
    return { looked: silent.length, found, cameBack };
  }

  return {
    /** Every tenant the cache indexes; stops at `maxPerRun` agents looked at or `deadline` (epoch ms). */
    async sweep(deadline: number): Promise<FleetCleanUpOutcome> {
      const now = clock.now();
      const found: AgentDecommissionedEvent[] = [];
      let looked = 0;
      let cameBack = 0;
      let more = false;
      tenants: for (const tenant of await presence.tenants()) {
        const defaults = await tenantSettings.get(tenant);
        for (const record of await allClassesOf(classes, tenant)) {
          const cleanUpAfterDays = cleanUpAgeOf(record, defaults);
          // A class with no age, its own or the tenant's, keeps its silent agents however long.
          if (cleanUpAfterDays === undefined) continue;
          if (looked >= settings.maxPerRun || clock.now() >= deadline) {
            more = true;
            break tenants;
          }
          const limit = settings.maxPerRun - looked;
          const outcome = await cleanUpClass(tenant, record.name, cleanUpAfterDays, now, limit);
          more ||= outcome.looked === limit;
          looked += outcome.looked;
          cameBack += outcome.cameBack;
          found.push(...outcome.found);
        }
      }
      const streamError = await publishReportingFailure(events, found);
      return { decommissioned: found.length, cameBack, more, streamError };
    },
  };
}
