/**
 * What a scrape of the fleet's metrics costs over a large fleet: a tenant of many agents whose heartbeats the
 * cache holds as the heartbeat's script leaves them (agent-fleet.ts; their registry items are not written, as a
 * scrape never reads them while the cache answers), and the console API's own composition in this process, on a DynamoDB client that counts
 * its requests, answering GET /fleet/metrics round after round: its time, this process's CPU time (the handler
 * and its clients; DynamoDB Local and Redis run in processes of their own), the DynamoDB requests and read units,
 * and the cache commands the cache server counted. `npm run bench:metrics` (metrics.ts) runs it on backends of
 * its own.
 */
import { loadavg } from "node:os";
import { composeConsoleApi } from "../../functions/console-api/composition.js";
import type { ConsoleRoute } from "../../functions/console-api/routes.js";
import type { Principal } from "../../functions/core/identity/principal.js";
import { consoleApiConfig } from "../../functions/shared/config.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { ensureDevCertificates } from "../local/certs.js";
import type { FleetReport } from "./agent-fleet.js";
import { thisMachine } from "./calibration.js";
import { meteredClient, usedSince } from "./dynamodb-meter.js";
import { benchConsoleEnv, type FleetBenchOptions, writeBenchFleet } from "./fleet-bench.js";
import { median } from "./median.js";

export interface ScrapeReport {
  machine: { cpu: string; cores: number; node: string };
  load: { before: number[]; after: number[] };
  fleet: FleetReport;
  /** The online agents per class the last scrape answered. */
  online: Record<string, number>;
  /** The agents the last scrape counted, online and offline: those the cache's class indexes hold. */
  counted: number;
  /** Series (sample lines) and bytes of the last scrape's exposition. */
  series: number;
  bytes: number;
  samplesMs: number[];
  p50Ms: number;
  p99Ms: number;
  /** This process's CPU time (user and system) a scrape, on average. */
  cpuMsPerScrape: number;
  dynamoDbRequestsPerScrape: number;
  readUnitsPerScrape: number;
  /** Commands the cache server ran a scrape, on average (its INFO commandstats, the INFO itself left out). */
  cacheCommandsPerScrape: number;
}

/** The value below which this share of the values lies. */
function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] as number;
}

/** Every command the cache server ran since it started, from INFO commandstats. */
const commandsRun = (commandStats: string): number =>
  [...commandStats.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)].reduce(
    (sum, [, calls]) => sum + Number(calls),
    0,
  );

export async function runMetricsBench(options: FleetBenchOptions): Promise<ScrapeReport> {
  const { tenant, rounds } = options;
  const consoleEnv = benchConsoleEnv(options);
  // A scrape reads the class list and the cache, never the registry's agents while the cache answers.
  const { fleet, redis, close } = await writeBenchFleet(options, undefined, true);
  const { documents, meter } = meteredClient(options.env);
  try {
    await ensureDevCertificates(consoleEnv[EnvNames.agentCaDir] as string);
    // The composition's other clients (S3, Kinesis) read their endpoints from the process's environment.
    Object.assign(process.env, consoleEnv);
    const consoleApi = composeConsoleApi(consoleApiConfig(consoleEnv), documents);
    const principal: Principal = { tenant, role: "viewer", subject: "bench-viewer" };
    const scrape = async () => {
      const result = await (consoleApi.routes.getFleetMetrics as ConsoleRoute)(principal, {
        path: {},
        query: {},
      });
      if ((result.status ?? 200) >= 300) throw new Error(`getFleetMetrics answered ${result.status}`);
      return result.body as string;
    };
    // The first scrape opens the connections, which a function's container keeps from one scrape to the next.
    let exposition = await scrape();
    const loadBefore = loadavg();
    const dynamoDbBefore = { ...meter };
    const commandsBefore = commandsRun(await redis.info("commandstats"));
    const cpuBefore = process.cpuUsage();
    const samplesMs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      exposition = await scrape();
      samplesMs.push(performance.now() - started);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const commands = commandsRun(await redis.info("commandstats")) - commandsBefore - 1;
    const dynamoDb = usedSince(dynamoDbBefore, meter);
    const loadAfter = loadavg();
    await consoleApi.close();
    const samples = exposition.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    const online = Object.fromEntries(
      [...exposition.matchAll(/^beacon_agents\{class="([^"]+)",status="online"\} (\d+)$/gm)].map(
        ([, name, value]) => [name, Number(value)],
      ),
    );
    const counted = [...exposition.matchAll(/^beacon_agents\{[^}]*\} (\d+)$/gm)].reduce(
      (sum, [, value]) => sum + Number(value),
      0,
    );
    return {
      machine: thisMachine(),
      load: { before: loadBefore, after: loadAfter },
      fleet,
      online,
      counted,
      series: samples.length,
      bytes: Buffer.byteLength(exposition),
      samplesMs,
      p50Ms: median(samplesMs),
      p99Ms: percentile(samplesMs, 0.99),
      cpuMsPerScrape: (cpu.user + cpu.system) / 1000 / rounds,
      dynamoDbRequestsPerScrape: dynamoDb.requests / rounds,
      readUnitsPerScrape: dynamoDb.readUnits / rounds,
      cacheCommandsPerScrape: commands / rounds,
    };
  } finally {
    close();
  }
}

/** The report as the bench prints it: the machine first, as its figures depend on it. */
export function metricsReportLines(report: ScrapeReport, rounds: number): string[] {
  const { machine, load, fleet } = report;
  const loads = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
  return [
    `machine: ${machine.cores} × ${machine.cpu}, Node ${machine.node}`,
    `load average (1, 5, 15 min): ${loads(load.before)} before the scrapes, ${loads(load.after)} after`,
    `fleet: ${fleet.agents.toLocaleString("en")} agents in ${Object.keys(fleet.byClass).length} classes, ` +
      `written in ${fleet.seconds.toFixed(1)} s; ${fleet.byPresence.online} heartbeating`,
    `agents counted by the last scrape: ${report.counted.toLocaleString("en")}, online per class ` +
      JSON.stringify(report.online),
    `exposition: ${report.series} series, ${report.bytes.toLocaleString("en")} bytes`,
    `GET /fleet/metrics ${rounds} times, in this process (no HTTP):`,
    `  time                      p50 ${report.p50Ms.toFixed(1)} ms, p99 ${report.p99Ms.toFixed(1)} ms ` +
      `(max ${Math.max(...report.samplesMs).toFixed(1)})`,
    `  CPU of this process       ${report.cpuMsPerScrape.toFixed(2)} ms a scrape`,
    `  DynamoDB                  ${report.dynamoDbRequestsPerScrape.toFixed(1)} requests, ` +
      `${report.readUnitsPerScrape.toFixed(1)} read units a scrape`,
    `  cache                     ${report.cacheCommandsPerScrape.toFixed(1)} commands a scrape`,
  ];
}
