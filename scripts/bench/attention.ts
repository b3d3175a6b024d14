/**
 * `npm run bench:attention`: what needs attention costs to read at 100,000 agents, the Fleet page's counts
 * and the first page of the Agents page's filter by it (attention-reads.ts), on backends of its own
 * (fleet-bench.ts). A bench, not a gate: it prints each read's median and 99th percentile and exits 0 when
 * every first page was full.
 *
 *   npm run bench:attention -- --agents 20000 --rounds 50
 *   (or BENCH_AGENTS, BENCH_ROUNDS, BENCH_CONCURRENCY; defaults 100,000 agents, 100 rounds, 16 writes at once)
 */
import { attentionReportLines, FILTERS, PAGE_ROWS, runAttentionBench } from "./attention-reads.js";
import { calibrationLine } from "./calibration.js";
import { fleetBenchCommandLine, fleetBenchUsage, onBackendsOfItsOwn } from "./fleet-bench.js";

const ROUNDS = 100;
const USAGE = `Usage: npm run bench:attention -- [--agents <n>] [--rounds <n>] [--concurrency <n>]

What needs attention over a fleet of many agents: GET /fleet/attention and the first page (${PAGE_ROWS} rows) of
GET /agents?attention=<reason> for ${FILTERS.join(", ")}, timed in the console API's own composition.
${fleetBenchUsage(ROUNDS, "read")}`;

const { agents, rounds, concurrency } = fleetBenchCommandLine(USAGE, ROUNDS);
const log = (line: string) => console.log(`bench:attention: ${line}`);

// Before the backends start, so that their work is not counted against the machine.
const calibration = await calibrationLine();
await onBackendsOfItsOwn("attention", log, async (env, stateDir) => {
  const report = await runAttentionBench({
    env,
    stateDir,
    tenant: "bench",
    agents,
    rounds,
    concurrency,
    log,
  });
  console.log("");
  for (const line of attentionReportLines(report, rounds)) console.log(line);
  console.log(calibration);
  return report.firstPages.every((page) => page.rows === PAGE_ROWS);
});
