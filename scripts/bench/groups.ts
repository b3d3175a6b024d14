/**
 * `npm run bench:groups`: what the groups' counting pass, their counted reads, first pages of members and a
 * rollout to a group cost at 100,000 agents (group-membership.ts, group-rollout.ts), on backends of its own
 * (fleet-bench.ts). A bench, not a gate: it prints the figures and exits 0 when every read answered and the
 * rollouts ended.
 *
 *   npm run bench:groups -- --agents 20000 --rounds 3
 *   (or BENCH_AGENTS, BENCH_ROUNDS, BENCH_CONCURRENCY; defaults 100,000 agents, 3 rounds, 16 writes at once)
 */

import { calibrationLine } from "./calibration.js";
import { fleetBenchCommandLine, fleetBenchUsage, onBackendsOfItsOwn } from "./fleet-bench.js";
import { groupsReportLines, runGroupsBench } from "./group-membership.js";

const ROUNDS = 3;
const USAGE = `Usage: npm run bench:groups -- [--agents <n>] [--rounds <n>] [--concurrency <n>]

Groups over a fleet of many agents: the counting pass of all of them (the sweeper's, in the bounded steps of
its runs), their reads with the counts it stored, and each group's first page of members, timed, with the
DynamoDB requests and read capacity they cost. Then two rollouts to the label group's agents of one class,
driven by the sweeper's rollout engine, its members acknowledging through the agent API's code: the requests
and capacity units of a member and of a batch, and what a rollout to 100,000 members costs.
Live counts (?count=live) are not measured: each is one Query of a whole index partition, which at 100,000
agents outlasts the client's 15 s request timeout on DynamoDB Local; the console reads the pass's counts.
${fleetBenchUsage(ROUNDS, "read")}`;

const { agents, rounds, concurrency } = fleetBenchCommandLine(USAGE, ROUNDS);
const log = (line: string) => console.log(`bench:groups: ${line}`);

// Before the backends start, so that their work is not counted against the machine.
const calibration = await calibrationLine();
await onBackendsOfItsOwn("groups", log, async (env, stateDir) => {
  const report = await runGroupsBench({ env, stateDir, tenant: "bench", agents, rounds, concurrency, log });
  console.log("");
  for (const line of groupsReportLines(report, rounds)) console.log(line);
  console.log(calibration);
  return report.rollout.runs.every(({ state }) => state === "completed");
});
