import { CACHED_ATTENTION_REASONS, type ListedAttentionReason } from "../agents/attention.js";
import { guardedCache } from "../guarded-cache.js";
import { type Principal, requireRole } from "../identity/principal.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { type ClassesDependencies, classesToCount, makeClassCounter } from "./console-classes.js";

/**
 * How many agents of each class need attention, per reason: offline from the class indexes (as the summary
 * counts), the others from the attention indexes the heartbeats and acknowledgements keep. One cache round
 * trip for both kinds, whatever the fleet's size: each count is a sorted set's. A class's item is what a
 * principal limited to some classes keeps of the answer.
 */
export function makeFleetAttention(deps: ClassesDependencies & { clock: Clock }) {
  const { catalog, hotState, clock } = deps;
  const countAgents = makeClassCounter(deps);

  return async function fleetAttention(principal: Principal): Promise<ConsoleResult> {
    requireRole(principal, "viewer");
    const { tenant } = principal;
    const { classes, truncated } = await classesToCount(catalog, tenant);

    const { counts, cacheError } = await countAgents(tenant, classes);
    const cache = guardedCache();
    const names = classes.map((record) => record.name);
    const cached = await cache.attempt(() => hotState.attentionCounts(tenant, names, clock.now()));
    const items = classes.map(({ name }) => {
      const reasons: Partial<Record<ListedAttentionReason, number>> = {
        offline: counts.get(name)?.offline ?? 0,
      };
      // Without the cache only offline agents can be counted, from the registry.
      for (const reason of CACHED_ATTENTION_REASONS) {
        const count = cached?.get(name)?.[reason];
        if (count !== undefined) reasons[reason] = count;
      }
      return { name, reasons };
    });
    return {
      body: { items, classesTruncated: truncated },
      cacheError: cacheError ?? cache.error,
    };
  };
}
