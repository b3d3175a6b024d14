import type { AgentRecord } from "../agents/ports.js";
import {
  type AgentFilters,
  type AgentReader,
  type MergedAgent,
  matchesAgentFilters,
} from "../fleet/agents.js";
import { countedBinaries, tallyBinaries } from "../fleet/binaries.js";
import type { FleetRegistry } from "../fleet/ports.js";
import { guardedCache } from "../guarded-cache.js";
import type { ManifestCatalog } from "../manifests/ports.js";
import { allPagesOf } from "../paging.js";
import type { Clock } from "../ports.js";
import type { GroupMembership } from "./membership.js";
import type { CountingState, Group, GroupStore, RunningCount } from "./ports.js";
import { needsHotState } from "./query.js";

/** A group as one step of a pass counts it: its name and the filters of its members (undefined: none can be). */
export interface CountedGroup {
  name: string;
  filters: AgentFilters | undefined;
}

/** The counts with each agent added to every group whose filters pick it. */
export function accumulateCounts(
  counts: Readonly<Record<string, number>>,
  agents: readonly MergedAgent[],
  groups: readonly CountedGroup[],
): Record<string, number> {
  const next = { ...counts };
  for (const { name, filters } of groups) {
    if (filters === undefined) continue;
    next[name] = (next[name] ?? 0) + agents.filter((agent) => matchesAgentFilters(agent, filters)).length;
  }
  return next;
}

/** Whether a pass is due: none ever ended, or the last ended `intervalMs` ago or more. */
export const passDue = (state: CountingState, now: number, intervalMs: number): boolean =>
  state.running !== undefined || state.finishedAt === undefined || now - state.finishedAt >= intervalMs;

/** The registry's record as the matcher reads it when no group needs the cache's values. */
const withoutHotState = (record: AgentRecord): MergedAgent => ({
  record,
  hot: undefined,
  agentClass: record.agentClass,
  lastSeen: record.lastSeen,
  lastSeenFrom: "registry",
  // Unread, and never compared: no group of the pass filters on status.
  status: "offline",
});

export interface GroupCountingSettings {
  /** How long after a tenant's pass ended the next one starts. */
  intervalMs: number;
  /** Agents one registry read of a pass asks for (the index's 1 MB page may return fewer). */
  agentsPerRead: number;
  /** Registry reads one sweeper run spends across tenants; a pass not done goes on in the next run. */
  maxReadsPerRun: number;
}

export interface GroupCountingOutcome {
  /** Passes that ended in this run, and the groups they counted. */
  passesEnded: number;
  groupsCounted: number;
  agentsRead: number;
  /** A pass was left under way at the run's bound. */
  more: boolean;
}

/**
 * Each tenant's groups counted together, by one read of its agents: its registry index, paged with a cursor
 * kept beside its groups, the cache's values read only when some group filters on status or last seen; every
 * agent matched in memory against every group. At the end each group's count is written, unless the group
 * changed during the pass (its next pass counts it). The same read counts the agents of each class by the
 * binary they run, kept in the counting state for the console's Binaries page, so a pass runs for every
 * tenant, with groups or not. A pass starts `intervalMs` after the tenant's last one ended; it costs one read
 * of the tenant's registry per pass, whatever the number of its groups, and nothing on heartbeats.
 */
export function makeGroupCounting(deps: {
  groups: GroupStore;
  membership: GroupMembership;
  registry: FleetRegistry;
  reader: Pick<AgentReader, "merge">;
  catalog: Pick<ManifestCatalog, "get">;
  clock: Clock;
  settings: GroupCountingSettings;
}) {
  const { groups, membership, registry, reader, catalog, clock, settings } = deps;

  const allGroups = (tenant: string): Promise<Group[]> => allPagesOf((page) => groups.list(tenant, page));

  /** The pass's groups still as they were when it started, with their filters at its start. */
  async function countedGroups(
    tenant: string,
    running: RunningCount,
  ): Promise<(CountedGroup & { updatedAt: number })[]> {
    const now = new Map((await allGroups(tenant)).map((group) => [group.name, group]));
    const unchanged = running.groups.flatMap(({ name, updatedAt }) => {
      const group = now.get(name);
      return group?.updatedAt === updatedAt ? [group] : [];
    });
    return Promise.all(
      unchanged.map(async (group) => ({
        name: group.name,
        updatedAt: group.updatedAt,
        filters: await membership.filtersAt(tenant, group.query, running.startedAt),
      })),
    );
  }

  /** A step of the tenant's pass of at most `reads` registry reads; the reads it took, and whether it ended. */
  async function step(tenant: string, reads: number, deadline: number) {
    const state = await groups.countingState(tenant);
    const now = clock.now();
    if (!passDue(state, now, settings.intervalMs)) return { reads: 0, agents: 0, ended: false, counted: 0 };
    let running = state.running;
    if (running === undefined) {
      const current = await allGroups(tenant);
      running = {
        startedAt: now,
        groups: current.map(({ name, updatedAt }) => ({ name, updatedAt })),
        counts: {},
        binaries: {},
      };
    }
    const counted = await countedGroups(tenant, running);
    const hot = counted.some(({ filters }) => filters !== undefined && needsHotState(filters));
    let { after, counts } = running;
    // A pass started before binaries were counted leaves them to the next pass: it read agents uncounted.
    let { binaries } = running;
    let taken = 0;
    let agents = 0;
    let ended = false;
    while (!ended && taken < reads && clock.now() < deadline) {
      const page = await registry.query(tenant, { after, limit: settings.agentsPerRead });
      taken++;
      agents += page.items.length;
      const cache = guardedCache();
      const merged = hot ? await reader.merge(tenant, page.items, cache) : page.items.map(withoutHotState);
      // Without the cache's values a status would be the registry's guess: the step is taken again later.
      if (cache.error !== undefined) throw cache.error;
      counts = accumulateCounts(counts, merged, counted);
      if (binaries !== undefined) binaries = tallyBinaries(binaries, page.items);
      after = page.last;
      ended = after === undefined;
    }
    if (!ended) {
      await groups.putCountingState(tenant, { ...state, running: { ...running, after, counts, binaries } });
      return { reads: taken, agents, ended, counted: 0 };
    }
    const countedAt = clock.now();
    let written = 0;
    for (const { name, updatedAt } of counted) {
      const memberCount = counts[name] ?? 0;
      if (await groups.putCount(tenant, name, { updatedAt, memberCount, countedAt })) written++;
    }
    await groups.putCountingState(tenant, {
      finishedAt: countedAt,
      ...(binaries === undefined
        ? {}
        : { binaries: await countedBinaries(catalog, tenant, binaries, countedAt) }),
    });
    return { reads: taken, agents, ended, counted: written };
  }

  return {
    step,

    /** A step of each tenant's pass that is due, until `maxReadsPerRun` reads or `deadline` (epoch ms). */
    async sweep(tenants: readonly string[], deadline: number): Promise<GroupCountingOutcome> {
      const outcome: GroupCountingOutcome = { passesEnded: 0, groupsCounted: 0, agentsRead: 0, more: false };
      let reads = 0;
      for (const tenant of tenants) {
        if (reads >= settings.maxReadsPerRun || clock.now() >= deadline) {
          outcome.more = true;
          break;
        }
        const taken = await step(tenant, settings.maxReadsPerRun - reads, deadline);
        reads += taken.reads;
        outcome.agentsRead += taken.agents;
        outcome.groupsCounted += taken.counted;
        if (taken.ended) outcome.passesEnded++;
        else if (taken.reads > 0) outcome.more = true;
      }
      return outcome;
    },
  };
}

export type GroupCounting = ReturnType<typeof makeGroupCounting>;
