import { CACHED_ATTENTION_REASONS } from "../agents/attention.js";
import { type ClassesDependencies, classesToCount, makeClassCounter } from "../fleet/console-classes.js";
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
import { type HistoryCounts, OperationStateCounters } from "./model.js";
import type { FleetHistoryStore } from "./ports.js";

/** What the fleet's series read: the classes' counts, the cache, and fleet history's minutes. */
export type FleetSeriesDependencies = ClassesDependencies & { clock: Clock; history: FleetHistoryStore };

/** The bulletin levels fleet history counts, with the counter of each: new bulletins, each counted once. */
const BulletinLevelCounters = { ERROR: "errorBulletins" } as const satisfies Record<
  string,
  keyof HistoryCounts
>;

/**
 * The fleet's series, as a scrape and the sweeper's CloudWatch metrics both read them: the counts the console's
 * fleet summary and attention views answer from, and fleet history's last whole minute, labelled by class,
 * status, reason, state and level, never by agent, so that a tenant's series are bounded by its classes (at
 * most the 1,000 one answer counts: see docs/metrics.md). Each read costs the class list (one DynamoDB query per
 * 100 classes), one history read per 100 classes and four cache round trips (agents by class, attention by
 * class, the heartbeats per class ever, those of the last minute), whatever the number of agents. Limited to
 * `classes`, it holds those classes' series only, and not the tenant-wide heartbeat count.
 */
export function makeFleetSeries(deps: FleetSeriesDependencies) {
  const { catalog, hotState, clock, history } = deps;
  const countAgents = makeClassCounter(deps);

  return async function fleetSeries(
    tenant: string,
    scope: { classes?: readonly string[] } = {},
  ): Promise<{ families: MetricFamily[]; cacheError?: unknown }> {
    const listed = await classesToCount(catalog, tenant);
    const classes = listed.classes.filter((record) => reachesClass(scope, record.name));
    const names = classes.map((record) => record.name);

    const { counts, source, cacheError } = await countAgents(tenant, classes);
    const cache = guardedCache();
    const now = clock.now();
    const attention = await cache.attempt(() => hotState.attentionCounts(tenant, names, now));
    const heartbeatTotals = await cache.attempt(() => hotState.heartbeatTotals(tenant, names));
    const lastMinute = Math.floor(now / 60_000) - 1;
    const heartbeats =
      scope.classes === undefined
        ? await cache.attempt(() => hotState.heartbeatsPerMinute(tenant, [lastMinute]))
        : undefined;
    const minute = await history.countsInMinute(tenant, names, lastMinute);

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
          "errorBulletins: agents with an ERROR bulletin within the bulletin window; backPressure: agents " +
          "reporting a back-pressured queue.",
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
        name: "beacon_heartbeats",
        type: "counter",
        help: "Heartbeats the agent API took from the class's agents, ever (a rate() of it is heartbeats per second).",
        samples: perClass((name) => heartbeatTotals?.get(name)),
      },
      {
        name: "beacon_heartbeats_last_minute",
        type: "gauge",
        help: "Heartbeats the agent API took from the tenant's agents in the last whole minute.",
        samples: heartbeats ? [{ value: heartbeats[0] ?? 0 }] : [],
      },
      {
        name: "beacon_operations_last_minute",
        type: "gauge",
        help:
          "Operations of the class's agents that entered the state in the last whole minute (delivered: sent " +
          "in a heartbeat's reply), as fleet history counted them from the stream.",
        samples: Object.entries(OperationStateCounters).flatMap(([state, counter]) =>
          perClass((name) => minute.get(name)?.[counter] ?? 0, { state }),
        ),
      },
      {
        name: "beacon_bulletins_last_minute",
        type: "gauge",
        help:
          "New bulletins the class's agents raised in the last whole minute, by level, each counted once " +
          "(agents list a bulletin again in every heartbeat while they keep it).",
        samples: Object.entries(BulletinLevelCounters).flatMap(([level, counter]) =>
          perClass((name) => minute.get(name)?.[counter] ?? 0, { level }),
        ),
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
    return { families, cacheError: cacheError ?? cache.error };
  };
}

/**
 * The fleet's metrics as a Prometheus scrape reads them (makeFleetSeries), for the caller's tenant: a token
 * limited to classes sees its classes' series only.
 */
export function makeFleetMetrics(deps: FleetSeriesDependencies) {
  const fleetSeries = makeFleetSeries(deps);
  return async function fleetMetrics(principal: Principal): Promise<ConsoleResult> {
    requireRole(principal, "viewer");
    const { families, cacheError } = await fleetSeries(principal.tenant, { classes: principal.classes });
    return { body: renderOpenMetrics(families), contentType: OPENMETRICS_CONTENT_TYPE, cacheError };
  };
}
