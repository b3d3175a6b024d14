/**
 * `npm run bench:console`: the web console's budget, "the agent list of 100,000 agents shows its first
 * page within 1 s locally", measured (console-list.ts) on backends of its own, on free ports, in a state
 * folder under .beacon/ that goes at the end. It exits 1 when the cold first page's median is over the
 * budget, or a page showed other agents than the API's first page: a gate to run before a release.
 *
 *   npm run bench:console -- --agents 20000 --rounds 3 --concurrency 16
 *   (or BENCH_AGENTS, BENCH_ROUNDS, BENCH_CONCURRENCY; defaults 100,000 agents, 5 rounds, 16 writes at once)
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { startBackends } from "../local/backends.js";
import { findFreePorts } from "../local/ports.js";
import { FLEET_WRITE_CONCURRENCY } from "./agent-fleet.js";
import { COLD_CASE, FIRST_PAGE_BUDGET_MS, reportLines, runConsoleListBench } from "./console-list.js";

const USAGE = `Usage: npm run bench:console -- [--agents <n>] [--rounds <n>] [--concurrency <n>]

The web console's agent list of many agents, its first page timed in Chromium against its budget; exits 1 over it.
  --agents       agents in the list (BENCH_AGENTS, default 100000)
  --rounds       times each page is measured (BENCH_ROUNDS, default 5)
  --concurrency  agents written at once while filling the list (BENCH_CONCURRENCY, default ${FLEET_WRITE_CONCURRENCY})`;

const { values } = parseCommandLine(USAGE, {
  options: {
    agents: { type: "string", default: process.env.BENCH_AGENTS ?? "100000" },
    rounds: { type: "string", default: process.env.BENCH_ROUNDS ?? "5" },
    concurrency: {
      type: "string",
      default: process.env.BENCH_CONCURRENCY ?? String(FLEET_WRITE_CONCURRENCY),
    },
  },
});
const [agents, rounds, concurrency] = [values.agents, values.rounds, values.concurrency].map(Number) as [
  number,
  number,
  number,
];
if (![agents, rounds, concurrency].every((value) => Number.isInteger(value) && value >= 1)) {
  exitWithUsage(USAGE, "--agents, --rounds and --concurrency are whole numbers of at least 1");
}
const log = (line: string) => console.log(`bench:console: ${line}`);
const stateDir = fileURLToPath(new URL(`../../.beacon/bench-console-${process.pid}/`, import.meta.url));
const [dynamodb, redis, kinesis, s3] = (await findFreePorts(4)) as [number, number, number, number];

let exitCode = 1;
const backends = await startBackends({
  stateDir,
  ports: { dynamodb, redis, kinesis, s3 },
  kinesisEmulator: "kinesalite",
  tableName: "beacon-bench-console",
  streamName: "beacon-events-bench-console",
  assetBucket: "beacon-assets-bench-console",
  archiveBucket: "beacon-events-archive-bench-console",
  log,
});
try {
  const report = await runConsoleListBench({
    env: backends.env,
    stateDir: path.join(stateDir, "bench"),
    tenant: "bench",
    agents,
    rounds,
    concurrency,
    log,
  });
  console.log("");
  for (const line of reportLines(report, rounds)) console.log(line);
  const cold = report.cases.find((result) => result.name === COLD_CASE);
  const withinBudget = cold !== undefined && cold.p50Ms <= FIRST_PAGE_BUDGET_MS;
  exitCode = withinBudget && report.mismatches.length === 0 ? 0 : 1;
} finally {
  await backends.stop();
  rmSync(stateDir, { recursive: true, force: true });
}
process.exit(exitCode);
