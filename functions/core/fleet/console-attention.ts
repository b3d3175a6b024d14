import { CACHED_ATTENTION_REASONS, type ListedAttentionReason } from "../agents/attention.js";
import type { AgentClassRecord } from "../agents/ports.js";
import { guardedCache } from "../guarded-cache.js";
import { type Principal, requireRole } from "../identity/principal.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { type ClassesDependencies, makeClassCounter } from "./console-classes.js";

/** Classes counted for one answer; a tenant with more is counted over its first ones, and says so. */
const MAX_ATTENTION_CLASSES = 1_000;
const CLASS_PAGE = 100;

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
    const classes: AgentClassRecord[] = [];
    let after: string | undefined;
    do {
      const page = await catalog.list(tenant, { limit: CLASS_PAGE, after });
      classes.push(...page.items);
      after = page.last;
    } while (after !== undefined && classes.length < MAX_ATTENTION_CLASSES);

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
      body: { items, classesTruncated: after !== undefined },
      cacheError: cacheError ?? cache.error,
    };
  };
}
