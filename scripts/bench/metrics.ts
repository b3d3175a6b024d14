/**
 * `npm run bench:metrics`: what a scrape of the fleet's metrics (GET /fleet/metrics) costs at 100,000 agents
 * (metrics-scrape.ts), on backends of its own (fleet-bench.ts). A bench, not a gate: it prints the scrape's time,
 * CPU, DynamoDB requests and cache commands, and exits 0 when the scrape counted every agent the cache holds.
 *
 *   npm run bench:metrics -- --agents 20000 --rounds 50
 *   (or BENCH_AGENTS, BENCH_ROUNDS, BENCH_CONCURRENCY; defaults 100,000 agents, 200 rounds, 16 writes at once)
 */
import { fleetBenchCommandLine, fleetBenchUsage, onBackendsOfItsOwn } from "./fleet-bench.js";
import { metricsReportLines, runMetricsBench } from "./metrics-scrape.js";

const ROUNDS = 200;
const USAGE = `Usage: npm run bench:metrics -- [--agents <n>] [--rounds <n>] [--concurrency <n>]

What a scrape of the fleet's metrics costs over a fleet of many agents: GET /fleet/metrics timed in the console
API's own composition, with its CPU time, DynamoDB requests and cache commands.
${fleetBenchUsage(ROUNDS, "scrape")}`;

const { agents, rounds, concurrency } = fleetBenchCommandLine(USAGE, ROUNDS);
const log = (line: string) => console.log(`bench:metrics: ${line}`);

await onBackendsOfItsOwn("metrics", log, async (env, stateDir) => {
  const report = await runMetricsBench({ env, stateDir, tenant: "bench", agents, rounds, concurrency, log });
  console.log("");
  for (const line of metricsReportLines(report, rounds)) console.log(line);
  return report.counted === report.fleet.hotStates;
});
