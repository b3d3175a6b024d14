/**
 * Whether a load test run passed, and why not: the scenario's SLO checks (Artillery's ensure: p99 and
 * error rate) and Beacon's own counters of what it did badly while still answering 200. Apart from the
 * verdict, warnings when the load generator itself could not hold the planned rate, so that a slow run
 * is not blamed on the service alone.
 */
import { metricTotals, type TimeWindow } from "../scripts/local/function-metrics.js";
import type { RunSummary, ScenarioRun, ScriptName } from "./run-scenario.js";
import { variableEnvName } from "./run-scenario.js";

/** Counted by the functions (functions/shared/observability.ts) when they degrade without failing a request. */
export const BEACON_COUNTERS = [
  "HeartbeatsFailed",
  "CacheFallbacks",
  "StreamFailures",
  "EventsLost",
] as const;
export type BeaconCounter = (typeof BEACON_COUNTERS)[number];
export type BeaconCounters = Record<BeaconCounter, number>;

/** Beacon's counters over the run's window, from a function log's metric lines (npm start's, or a harness's). */
export function readBeaconCounters(functionLog: string, window: TimeWindow): Promise<BeaconCounters> {
  return metricTotals(functionLog, BEACON_COUNTERS, window);
}

/** Each counter's bound is the scenario variable max<Counter>, e.g. maxCacheFallbacks. */
const boundVariable = (counter: BeaconCounter): string => `max${counter}`;

/** The variable a check of the scenarios' `ensure` reads its bound from, and what was measured. */
const SLO_CHECKS: { check: string; variable: string; measured(summary: RunSummary): string }[] = [
  {
    check: "http.response_time.p99",
    variable: "maxP99Ms",
    measured: (summary) => `p99 response time ${summary.responseTime?.p99 ?? "(none measured)"} ms`,
  },
  {
    check: "maxErrorRate",
    variable: "maxErrorRate",
    measured: (summary) =>
      `${percentOf(summary.vusersFailed, summary.vusersCreated)} % of agents failed ` +
      `(${summary.vusersFailed} of ${summary.vusersCreated}; errors ${JSON.stringify(summary.errors)})`,
  },
];

const percentOf = (part: number, whole: number): number =>
  whole === 0 ? 100 : Math.round((part / whole) * 1000) / 10;

const bound = (variables: ScenarioRun["variables"], variable: string): string =>
  `${variable}=${variables[variable]}, ${variableEnvName(variable)}`;

/** The SLO checks that failed, each with what was measured and the bound it broke. */
export function sloReasons(run: ScenarioRun, summary: RunSummary): string[] {
  return run.failedChecks.map((failed) => {
    const known = SLO_CHECKS.find(({ check }) => failed.startsWith(check));
    return known
      ? `${known.measured(summary)}: Artillery's check "${failed}" failed (${bound(run.variables, known.variable)})`
      : `Artillery's check "${failed}" failed`;
  });
}

/** Beacon's counters that are over their bounds. */
export function counterReasons(run: ScenarioRun, counters: BeaconCounters): string[] {
  return BEACON_COUNTERS.filter(
    (counter) => counters[counter] > Number(run.variables[boundVariable(counter)] ?? 0),
  ).map(
    (counter) =>
      `Beacon counted ${counters[counter]} ${counter} (${bound(run.variables, boundVariable(counter))})`,
  );
}

/** The variable of each script that spreads its agents' arrival, in seconds. */
const ARRIVAL_SECONDS: Record<ScriptName, string> = {
  "fleet-steady": "rampSeconds",
  "manifest-herd": "arrivalSeconds",
};
/** Below this share of the planned heartbeat rate, the run did not put the load it was meant to. */
const MIN_RATE_SHARE = 0.8;
/**
 * A generator whose timers fire this late (ms), on average over one second in twenty, sends late and
 * measures long. A healthy one stays within a few ms, short stalls on building big manifests included.
 */
const MAX_GENERATOR_DELAY_P95_MS = 50;

/** What suggests the load generator itself could not hold the planned rate; empty when it could. */
export function generatorWarnings(run: ScenarioRun, summary: RunSummary): string[] {
  const warnings: string[] = [];
  const variables = run.variables;
  const agents = Number(variables.agents);
  if (summary.vusersCreated < agents)
    warnings.push(`it started ${summary.vusersCreated} of the ${agents} agents planned`);

  const heartbeatsPlanned = agents * Number(variables.heartbeats);
  const plannedSeconds =
    Number(variables[ARRIVAL_SECONDS[run.script]]) +
    Number(variables.heartbeats) * Number(variables.heartbeatSeconds);
  const plannedRate = heartbeatsPlanned / plannedSeconds;
  const heartbeatsSent = (summary.beacon["heartbeats.cpp"] ?? 0) + (summary.beacon["heartbeats.java"] ?? 0);
  const rate = heartbeatsSent / summary.durationSeconds;
  if (rate < plannedRate * MIN_RATE_SHARE)
    warnings.push(
      `heartbeats went out at ${rate.toFixed(1)}/s against ${plannedRate.toFixed(1)}/s planned ` +
        `(${heartbeatsSent} in ${summary.durationSeconds.toFixed(0)} s, planned ${heartbeatsPlanned} in ${plannedSeconds} s): ` +
        "agents waited on slow replies, or the generator fell behind",
    );

  const delay = summary.generatorDelay;
  if (delay && delay.p95 >= MAX_GENERATOR_DELAY_P95_MS)
    warnings.push(
      `its own event loop ran ${Math.round(delay.p95)} ms late on average in one second of twenty ` +
        `(${Math.round(delay.max)} ms at worst): short of CPU, it sent requests late and measured replies long`,
    );
  return warnings;
}
