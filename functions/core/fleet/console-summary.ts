import { guardedCache } from "../guarded-cache.js";
import { type Principal, requireRole } from "../identity/principal.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import {
  type AgentCounts,
  type ClassesDependencies,
  classesToCount,
  makeClassCounter,
} from "./console-classes.js";

/** Minutes of heartbeat counts the summary shows, the current (incomplete) minute last. */
export const HEARTBEAT_MINUTES = 15;

export function makeFleetSummary(deps: ClassesDependencies & { clock: Clock }) {
  const { catalog, hotState, clock } = deps;
  const countAgents = makeClassCounter(deps);

  return async function fleetSummary(principal: Principal): Promise<ConsoleResult> {
    requireRole(principal, "viewer");
    const { tenant } = principal;
    const { classes, truncated } = await classesToCount(catalog, tenant);

    const { counts, source, cacheError } = await countAgents(tenant, classes);
    const totals: AgentCounts = { total: 0, online: 0, offline: 0 };
    const perClass = classes.map((record) => {
      const agents = counts.get(record.name) ?? { total: 0, online: 0, offline: 0 };
      totals.total += agents.total;
      totals.online += agents.online;
      totals.offline += agents.offline;
      return { name: record.name, agents };
    });

    const currentMinute = Math.floor(clock.now() / 60_000);
    const minutes = Array.from(
      { length: HEARTBEAT_MINUTES },
      (_, index) => currentMinute - HEARTBEAT_MINUTES + 1 + index,
    );
    const cache = guardedCache();
    const heartbeats = await cache.attempt(() => hotState.heartbeatsPerMinute(tenant, minutes));
    return {
      body: {
        agents: totals,
        classes: perClass,
        classesTruncated: truncated,
        countsFrom: source,
        // Counted by the agent API in the cache only: unknown while the cache is down.
        heartbeatsPerMinute: heartbeats
          ? minutes.map((minute, index) => ({
              minute: new Date(minute * 60_000).toISOString(),
              count: heartbeats[index] ?? 0,
            }))
          : null,
      },
      cacheError: cacheError ?? cache.error,
    };
  };
}
