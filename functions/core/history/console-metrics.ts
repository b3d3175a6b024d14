import { CACHED_ATTENTION_REASONS } from "../agents/attention.js";
import { guardedCache } from "../guarded-cache.js";
import { type Principal, reachesClass, requireRole } from "../identity/principal.js";
import {
  type MetricFamily,
  type MetricSample,
  OPENMETRICS_CONTENT_TYPE,
  renderOpenMetrics,
} from "../openmetrics.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { type ClassesDependencies, classesToCount, makeClassCounter } from "./console-classes.js";

/**
 * The fleet's metrics as a Prometheus scrape reads them: the counts the console's fleet summary and attention
 * views answer from, labelled by class, status and reason, never by agent, so that a tenant's series are bounded
 * by its classes (at most the 1,000 one answer counts: see docs/metrics.md). Each scrape costs the class list
 * (one DynamoDB query per 100 classes) and three cache round trips (agents by class, attention by class, the
 * heartbeats of the last minute), whatever the number of agents. A token limited to classes sees its classes'
 * series only, and not the tenant-wide heartbeat count.
 */
export function makeFleetMetrics(deps: ClassesDependencies & { clock: Clock }) {
  const { catalog, hotState, clock } = deps;
  const countAgents = makeClassCounter(deps);

  return async function fleetMetrics(principal: Principal): Promise<ConsoleResult> {
    requireRole(principal, "viewer");
    const { tenant } = principal;
    const listed = await classesToCount(catalog, tenant);
    const classes = listed.classes.filter((record) => reachesClass(principal, record.name));
    const names = classes.map((record) => record.name);

    const { counts, source, cacheError } = await countAgents(tenant, classes);
    const cache = guardedCache();
    const now = clock.now();
    const attention = await cache.attempt(() => hotState.attentionCounts(tenant, names, now));
    const lastMinute = Math.floor(now / 60_000) - 1;
    const heartbeats =
      principal.classes === undefined
        ? await cache.attempt(() => hotState.heartbeatsPerMinute(tenant, [lastMinute]))
        : undefined;

    const perClass = (value: (name: string) => number | undefined, labels: Record<string, string> = {}) =>
      names.flatMap((name): MetricSample[] => {
        const counted = value(name);
        return counted === undefined ? [] : [{ labels: { class: name, ...labels }, value: counted }];
      });
    const families: MetricFamily[] = [
      {
        name: "beacon_agents",
        type: "gauge",
        help: "Agents of the class by status (online: seen within its heartbeat period's allowance).",
        samples: (["online", "offline"] as const).flatMap((status) =>
          perClass((name) => counts.get(name)?.[status] ?? 0, { status }),
        ),
      },
      {
        name: "beacon_agents_attention",
        type: "gauge",
        help:
          "Agents of the class needing attention, by reason; without the cache only offline ones are counted. " +
          "errorBulletins: agents with an ERROR bulletin in the last 15 minutes; backPressure: agents reporting " +
          "a back-pressured queue.",
        samples: [
          ...perClass((name) => counts.get(name)?.offline ?? 0, { reason: "offline" }),
          ...CACHED_ATTENTION_REASONS.flatMap((reason) =>
            perClass((name) => (attention ? (attention.get(name)?.[reason] ?? 0) : undefined), { reason }),
          ),
        ],
      },
      {
        name: "beacon_rollouts_in_progress",
        type: "gauge",
        help: "1 while a rollout to the class is under way or waiting to start (a class has at most one), else 0.",
        samples: classes.map((record) => ({
          labels: { class: record.name },
          value: record.activeRolloutId === undefined ? 0 : 1,
        })),
      },
      {
        name: "beacon_heartbeats_last_minute",
        type: "gauge",
        help: "Heartbeats the agent API took from the tenant's agents in the last whole minute.",
        samples: heartbeats ? [{ value: heartbeats[0] ?? 0 }] : [],
      },
      {
        name: "beacon_counts_from_cache",
        type: "gauge",
        help: "1 when the agent counts came from the cache, 0 when the registry answered them instead.",
        samples: [{ value: source === "cache" ? 1 : 0 }],
      },
      {
        name: "beacon_classes_truncated",
        type: "gauge",
        help: "1 when the tenant has more classes than one scrape counts (the first 1,000 by name are).",
        samples: [{ value: listed.truncated ? 1 : 0 }],
      },
    ];
    return {
      body: renderOpenMetrics(families),
      contentType: OPENMETRICS_CONTENT_TYPE,
      cacheError: cacheError ?? cache.error,
    };
  };
}
