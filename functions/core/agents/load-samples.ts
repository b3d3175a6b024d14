import type { StatusSummary, SystemLoad } from "../c2/model.js";
import { dropUndefined } from "../json.js";

/**
 * One heartbeat's load, as an agent's page charts it over time: what real agents send of it (MiNiFi Java 2.3.0
 * the load average only, MiNiFi C++ the load average, CPU utilization and memory in use) and the flow's queues
 * in total (the heartbeat reader's sums over every queue).
 */
export interface LoadSample {
  /** Epoch milliseconds: the heartbeat's time. */
  at: number;
  /** Fraction of all cores in use, 0 to 1. */
  cpuUtilization?: number;
  cpuLoadAverage?: number;
  /** Bytes of memory in use. */
  memoryUsage?: number;
  queuedFlowFiles?: number;
  queuedBytes?: number;
}

/**
 * How many of its latest heartbeats' samples the cache keeps per agent, newest first: ten minutes at a
 * 10 s heartbeat, an hour at Beacon's default 60 s. Kept beside its hot state in the heartbeat's one round trip.
 */
export const LOAD_SAMPLES_KEPT = 60;

/**
 * The sample of a heartbeat at `at`; none when it reports neither load nor queues (a minimized heartbeat). The
 * CPU utilization is kept to a tenth of a percent and the load average to two decimals, as `uptime` shows it:
 * the digits agents send past those (0.06179499754781756) would double what the cache keeps per agent.
 */
export function loadSampleOf(
  at: number,
  status?: StatusSummary,
  system?: SystemLoad,
): LoadSample | undefined {
  const figures = dropUndefined({
    cpuUtilization: rounded(system?.cpuUtilization, 3),
    cpuLoadAverage: rounded(system?.cpuLoadAverage, 2),
    memoryUsage: system?.memoryUsage,
    queuedFlowFiles: status?.queuedFlowFiles,
    queuedBytes: status?.queuedBytes,
  });
  return Object.keys(figures).length > 0 ? { at, ...figures } : undefined;
}

const rounded = (value: number | undefined, decimals: number) =>
  value === undefined ? undefined : Math.round(value * 10 ** decimals) / 10 ** decimals;

const FIGURES = [
  "cpuUtilization",
  "cpuLoadAverage",
  "memoryUsage",
  "queuedFlowFiles",
  "queuedBytes",
] as const;

/**
 * A sample as the cache keeps it: its time and figures comma-separated in a fixed order, an absent one
 * empty (about 40 bytes, where JSON would take three times that, in each of 60 entries per agent).
 */
export const loadSampleText = (sample: LoadSample): string =>
  [sample.at, ...FIGURES.map((figure) => sample[figure] ?? "")].join(",");

/** The sample of a cache entry; none for an entry it cannot read. */
export function loadSampleOfText(text: string): LoadSample | undefined {
  const [at, ...figures] = text.split(",");
  const time = Number(at);
  if (!at || !Number.isFinite(time) || figures.length !== FIGURES.length) return undefined;
  const sample: LoadSample = { at: time };
  FIGURES.forEach((figure, index) => {
    const value = figures[index] ? Number(figures[index]) : Number.NaN;
    if (Number.isFinite(value)) sample[figure] = value;
  });
  return sample;
}
