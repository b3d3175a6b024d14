/**
 * What needs attention costs to read over a large fleet: a tenant of many agents written as Beacon writes them
 * (agent-fleet.ts: a quarter of it quiet for hours or gone, so offline), some of its heartbeating agents put in
 * the attention indexes as the heartbeat's script leaves them (back-pressured, with fresh ERROR bulletins, off
 * target), and the console API's own composition in this process, on a DynamoDB client that counts its
 * requests, reading the Fleet page's counts (GET /fleet/attention) and the first page of the Agents page's
 * filter (GET /agents?attention=) round after round. `npm run bench:attention` (attention.ts) runs it on
 * backends of its own.
 */
import { loadavg } from "node:os";
import { CacheKeys } from "../../functions/adapters/redis/cache-keys.js";
import { composeConsoleApi } from "../../functions/console-api/composition.js";
import type { ConsoleRoute } from "../../functions/console-api/routes.js";
import { ERROR_BULLETIN_WINDOW_MS } from "../../functions/core/agents/attention.js";
import type { Principal } from "../../functions/core/identity/principal.js";
import { consoleApiConfig } from "../../functions/shared/config.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { ensureDevCertificates } from "../local/certs.js";
import { type FleetReport, fleetAgent } from "./agent-fleet.js";
import { thisMachine } from "./calibration.js";
import { meteredClient, usedSince } from "./dynamodb-meter.js";
import { benchConsoleEnv, type FleetBenchOptions, writeBenchFleet } from "./fleet-bench.js";
import { median } from "./median.js";

/** Rows of the Agents page's first page. */
export const PAGE_ROWS = 50;
type IndexedReason = "backPressure" | "errorBulletins" | "offTarget";
/**
 * Of each hundred heartbeating agents, those put in an attention index: 4 back-pressured, 3 with fresh ERROR
 * bulletins (1 of them back-pressured too), 1 off target; some 5 % of the fleet.
 */
export const REASONS_BY_PERCENT: Record<number, IndexedReason[]> = {
  0: ["backPressure"],
  1: ["backPressure"],
  2: ["backPressure"],
  3: ["backPressure", "errorBulletins"],
  4: ["errorBulletins"],
  5: ["errorBulletins"],
  6: ["offTarget"],
};
export const FILTERS = ["backPressure", "errorBulletins", "offTarget", "offline", "any"] as const;

/** One read, `rounds` times. */
export interface ReadTiming {
  samplesMs: number[];
  p50Ms: number;
  p99Ms: number;
  /** DynamoDB requests of one read, on average. */
  requestsPerRead: number;
}

export interface AttentionReport {
  machine: { cpu: string; cores: number; node: string };
  load: { before: number[]; after: number[] };
  fleet: FleetReport;
  /** Agents put in each index. */
  indexed: Record<IndexedReason, number>;
  /** The tenant's agents each reason holds, as GET /fleet/attention counts them. */
  counted: Record<string, number>;
  counts: ReadTiming;
  firstPages: (ReadTiming & { attention: (typeof FILTERS)[number]; rows: number })[];
}

/** The value below which this share of the values lies. */
function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] as number;
}

export async function runAttentionBench(options: FleetBenchOptions): Promise<AttentionReport> {
  const { tenant, agents, rounds, log } = options;
  const consoleEnv = benchConsoleEnv(options);
  const { fleet, redis, close } = await writeBenchFleet(options);
  const { documents, meter } = meteredClient(options.env);
  try {
    // As the heartbeat's script leaves them: since when (NX), ERROR bulletins until the window's end.
    const now = Date.now();
    const indexed: Record<IndexedReason, number> = { backPressure: 0, errorBulletins: 0, offTarget: 0 };
    let pipeline = redis.pipeline();
    for (let index = 0; index < agents; index++) {
      const { agentId, agentClass, presence } = fleetAgent(index);
      if (presence !== "online") continue;
      for (const reason of REASONS_BY_PERCENT[index % 100] ?? []) {
        const score = reason === "errorBulletins" ? now + ERROR_BULLETIN_WINDOW_MS : now - (index % 997);
        pipeline.zadd(CacheKeys.attention(tenant, agentClass, reason), score, agentId);
        indexed[reason]++;
      }
      if (pipeline.length >= 1000) {
        await pipeline.exec();
        pipeline = redis.pipeline();
      }
    }
    await pipeline.exec();
    log(`attention indexes: ${JSON.stringify(indexed)}`);

    await ensureDevCertificates(consoleEnv[EnvNames.agentCaDir] as string);
    // The composition's other clients (S3, Kinesis) read their endpoints from the process's environment.
    Object.assign(process.env, consoleEnv);
    const consoleApi = composeConsoleApi(consoleApiConfig(consoleEnv), documents);
    const principal: Principal = { tenant, role: "viewer", subject: "bench-viewer" };
    type Answer = { items: { reasons?: Record<string, number> }[] };
    const call = async (operationId: string, query: Record<string, unknown>) => {
      const result = await (consoleApi.routes[operationId] as ConsoleRoute)(principal, { path: {}, query });
      if ((result.status ?? 200) >= 300) throw new Error(`${operationId} answered ${result.status}`);
      return result.body as Answer;
    };
    const measure = async (operationId: string, query: Record<string, unknown>) => {
      const samplesMs: number[] = [];
      let last: Answer = { items: [] };
      const before = { ...meter };
      for (let round = 0; round < rounds; round++) {
        const started = performance.now();
        last = await call(operationId, query);
        samplesMs.push(performance.now() - started);
      }
      const timing: ReadTiming = {
        samplesMs,
        p50Ms: median(samplesMs),
        p99Ms: percentile(samplesMs, 0.99),
        requestsPerRead: usedSince(before, meter).requests / rounds,
      };
      return { timing, last };
    };

    const loadBefore = loadavg();
    const counts = await measure("getFleetAttention", {});
    const firstPages: AttentionReport["firstPages"] = [];
    for (const attention of FILTERS) {
      const { timing, last } = await measure("listAgents", { attention, limit: PAGE_ROWS });
      firstPages.push({ attention, ...timing, rows: last.items.length });
      log(`?attention=${attention}: ${last.items.length} rows, p50 ${timing.p50Ms.toFixed(1)} ms`);
    }
    const loadAfter = loadavg();
    await consoleApi.close();
    const counted = Object.fromEntries(
      ["offline", ...Object.keys(indexed)].map((reason) => [
        reason,
        counts.last.items.reduce((sum, item) => sum + (item.reasons?.[reason] ?? 0), 0),
      ]),
    );
    return {
      machine: thisMachine(),
      load: { before: loadBefore, after: loadAfter },
      fleet,
      indexed,
      counted,
      counts: counts.timing,
      firstPages,
    };
  } finally {
    close();
  }
}

/** The report as the bench prints it: the machine first, as its figures depend on it. */
export function attentionReportLines(report: AttentionReport, rounds: number): string[] {
  const { machine, load, fleet } = report;
  const loads = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
  const timing = (read: ReadTiming) =>
    `p50 ${read.p50Ms.toFixed(1).padStart(6)} ms, p99 ${read.p99Ms.toFixed(1).padStart(6)} ms ` +
    `(max ${Math.max(...read.samplesMs).toFixed(1)}), ${read.requestsPerRead.toFixed(1)} DynamoDB requests a read`;
  return [
    `machine: ${machine.cores} × ${machine.cpu}, Node ${machine.node}`,
    `load average (1, 5, 15 min): ${loads(load.before)} before the reads, ${loads(load.after)} after`,
    `fleet: ${fleet.agents.toLocaleString("en")} agents in ${Object.keys(fleet.byClass).length} classes, ` +
      `written in ${fleet.seconds.toFixed(1)} s; ${fleet.byPresence.online} heartbeating`,
    `needing attention, as GET /fleet/attention counts them: ${JSON.stringify(report.counted)}`,
    `each read ${rounds} times, in this process (no HTTP):`,
    `  counts (GET /fleet/attention)`.padEnd(50) + timing(report.counts),
    ...report.firstPages.map(
      (page) =>
        `  first page, ${String(page.rows).padStart(2)} rows (?attention=${page.attention})`.padEnd(50) +
        timing(page),
    ),
  ];
}
