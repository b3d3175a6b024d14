/**
 * `npm run bench:console`: the web console's budget, "the agent list of 100,000 agents shows its first
 * page within 1 s locally", measured (console-list.ts) on backends of its own (fleet-bench.ts). It exits 1
 * when the cold first page's median is over the budget, or a page showed other agents than the API's first
 * page: a gate to run before a release.
 *
 *   npm run bench:console -- --agents 20000 --rounds 3 --concurrency 16
 *   (or BENCH_AGENTS, BENCH_ROUNDS, BENCH_CONCURRENCY; defaults 100,000 agents, 5 rounds, 16 writes at once)
 */

import { calibrationLine } from "./calibration.js";
import { COLD_CASE, FIRST_PAGE_BUDGET_MS, reportLines, runConsoleListBench } from "./console-list.js";
import { fleetBenchCommandLine, fleetBenchUsage, onBackendsOfItsOwn } from "./fleet-bench.js";

const ROUNDS = 5;
const USAGE = `Usage: npm run bench:console -- [--agents <n>] [--rounds <n>] [--concurrency <n>]

The web console's agent list of many agents, its first page timed in Chromium against its budget; exits 1 over it.
${fleetBenchUsage(ROUNDS, "page")}`;

const { agents, rounds, concurrency } = fleetBenchCommandLine(USAGE, ROUNDS);
const log = (line: string) => console.log(`bench:console: ${line}`);

// Before the backends start, so that their work is not counted against the machine.
const calibration = await calibrationLine();
await onBackendsOfItsOwn("console", log, async (env, stateDir) => {
  const report = await runConsoleListBench({
    env,
    stateDir,
    tenant: "bench",
    agents,
    rounds,
    concurrency,
    log,
  });
  console.log("");
  for (const line of reportLines(report, rounds)) console.log(line);
  console.log(calibration);
  const cold = report.cases.find((result) => result.name === COLD_CASE);
  const withinBudget = cold !== undefined && cold.p50Ms <= FIRST_PAGE_BUDGET_MS;
  return withinBudget && report.mismatches.length === 0;
});
