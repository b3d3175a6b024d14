/**
 * `npm run bench:groups`: what the groups' counting pass, their counted reads and first pages of members cost at 100,000 agents
 * (group-membership.ts), on backends of its own (fleet-bench.ts). A bench, not a gate: it prints the figures
 * and exits 0 when every read answered.
 *
 *   npm run bench:groups -- --agents 20000 --rounds 3
 *   (or BENCH_AGENTS, BENCH_ROUNDS, BENCH_CONCURRENCY; defaults 100,000 agents, 3 rounds, 16 writes at once)
 */
import { fleetBenchCommandLine, fleetBenchUsage, onBackendsOfItsOwn } from "./fleet-bench.js";
import { groupsReportLines, runGroupsBench } from "./group-membership.js";

const ROUNDS = 3;
const USAGE = `Usage: npm run bench:groups -- [--agents <n>] [--rounds <n>] [--concurrency <n>]

Groups over a fleet of many agents: the counting pass of all of them, their reads with the counts it stored,
and each group's first page of members, timed, with the DynamoDB requests and read capacity they cost.
${fleetBenchUsage(ROUNDS, "read")}`;

const { agents, rounds, concurrency } = fleetBenchCommandLine(USAGE, ROUNDS);
const log = (line: string) => console.log(`bench:groups: ${line}`);

await onBackendsOfItsOwn("groups", log, async (env, stateDir) => {
  const report = await runGroupsBench({ env, stateDir, tenant: "bench", agents, rounds, concurrency, log });
  console.log("");
  for (const line of groupsReportLines(report, rounds)) console.log(line);
  return true;
});
