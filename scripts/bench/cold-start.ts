/**
 * `npm run bench:cold-start`: every function's cold start (cold-starts.ts), measured on backends of its own, on
 * free ports, in a state folder under .beacon/ that goes at the end. It exits 1 when a function's init and
 * first request take over 300 ms at p99, the agent API's bundle is over 1.05 MB minified, or a request was
 * answered wrong: a gate to run before a release.
 *
 *   npm run bench:cold-start -- --runs 50 --functions agent-api,console-api --json
 *   (or BENCH_RUNS; 100 fresh processes per request by default, after 10 unmeasured: fewer make the p99 their
 *   slowest; --json prints the figures as JSON instead)
 *   npm run bench:cold-start -- --profile .beacon/cold-start-profiles   (each process's CPU profile, summarised)
 *   npm run bench:cold-start -- --cache cluster   (the cache in cluster mode, as a deployment's ElastiCache is)
 *   npm run bench:cold-start -- --dynamodb-latency 5   (each DynamoDB request 5 ms later, as over a network)
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AwsEndpointEnvNames } from "../../functions/shared/env-names.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { startBackends } from "../local/backends.js";
import { startCountingProxy } from "../local/counting-proxy.js";
import { findFreePorts } from "../local/ports.js";
import { calibrate, formatCalibration, readReference } from "./calibration.js";
import { budgetBreaches, reportLines, runColdStartBench } from "./cold-starts.js";

const USAGE = `Usage: npm run bench:cold-start -- [--runs <n>] [--warm-ups <n>] [--functions <name,…>] [--json]
                                [--profile <folder>] [--cache server|cluster] [--dynamodb-latency <ms>]

Every function's cold start on backends of its own; exits 1 over its budget or on a wrong answer.
  --runs       fresh processes per request (BENCH_RUNS, default 100; of fewer, the p99 is the slowest)
  --warm-ups   fresh processes per request run first and not measured (default 10): the local backends
               answer a kind of request slower until their JIT has compiled it, where AWS's are never cold
  --functions  only these functions, e.g. agent-api,console-api
  --json       print the figures as JSON
  --profile    a folder for each process's CPU profile, summarised
  --cache      one Redis server (server, the default, as npm start runs it) or a cluster of three masters
               (cluster: a deployment's cache is in cluster mode, and its client finds the slots first)
  --dynamodb-latency  each DynamoDB request forwarded this many ms later, as a network's round trip would
               delay it (the local emulator answers over loopback; a function waits a few ms for AWS's)`;

const { values } = parseCommandLine(USAGE, {
  options: {
    runs: { type: "string", default: process.env.BENCH_RUNS ?? "100" },
    "warm-ups": { type: "string", default: "10" },
    functions: { type: "string" },
    json: { type: "boolean", default: false },
    profile: { type: "string" },
    cache: { type: "string", default: "server" },
    "dynamodb-latency": { type: "string", default: "0" },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  exitWithUsage(USAGE, "--runs is a whole number of at least 1");
}
const warmUps = Number(values["warm-ups"]);
if (!Number.isInteger(warmUps) || warmUps < 0) {
  exitWithUsage(USAGE, "--warm-ups is a whole number");
}
if (values.cache !== "server" && values.cache !== "cluster") {
  exitWithUsage(USAGE, "--cache is server or cluster");
}
const dynamoDbLatencyMs = Number(values["dynamodb-latency"]);
if (!Number.isInteger(dynamoDbLatencyMs) || dynamoDbLatencyMs < 0) {
  exitWithUsage(USAGE, "--dynamodb-latency is a whole number of ms");
}
// With --json the figures alone go to stdout.
const log = (line: string) => console.error(`bench:cold-start: ${line}`);
const stateDir = fileURLToPath(new URL(`../../.beacon/bench-cold-start-${process.pid}/`, import.meta.url));
const [dynamodb, redis, kinesis, s3, eventbridge] = (await findFreePorts(5)) as [
  number,
  number,
  number,
  number,
  number,
];

let exitCode = 1;
// Before the backends start, so that their work is not counted against the machine.
const calibrated = await calibrate();
const backends = await startBackends({
  stateDir,
  ports: { dynamodb, redis, kinesis, s3 },
  kinesisEmulator: "kinesalite",
  tableName: "beacon-bench-cold-start",
  streamName: "beacon-events-bench-cold-start",
  assetBucket: "beacon-assets-bench-cold-start",
  archiveBucket: "beacon-events-archive-bench-cold-start",
  notificationBus: { name: "beacon-notifications-bench-cold-start", port: eventbridge },
  redisCluster: values.cache === "cluster",
  log,
});
const delayed =
  dynamoDbLatencyMs > 0
    ? await startCountingProxy(backends.env[AwsEndpointEnvNames.dynamodb] as string, {
        delayMs: dynamoDbLatencyMs,
      })
    : undefined;
try {
  const report = await runColdStartBench({
    env: delayed ? { ...backends.env, [AwsEndpointEnvNames.dynamodb]: delayed.url } : backends.env,
    stateDir: path.join(stateDir, "bench"),
    runs,
    warmUps,
    functions: values.functions?.split(","),
    tenant: "bench",
    profileDir: values.profile === undefined ? undefined : path.resolve(values.profile),
    log,
  });
  const breaches = budgetBreaches(report);
  if (values.json) console.log(JSON.stringify({ ...report, breaches, calibration: calibrated }, null, 2));
  else {
    console.log("");
    for (const line of reportLines(report)) console.log(line);
    console.log(formatCalibration(calibrated, readReference()));
    if (delayed) console.log(`every DynamoDB request forwarded ${dynamoDbLatencyMs} ms later`);
    for (const breach of breaches) console.log(`OVER: ${breach}`);
    if (breaches.length === 0)
      console.log("budget: every cold start within 300 ms at p99, the agent API's bundle within 1.05 MB");
  }
  exitCode = breaches.length === 0 ? 0 : 1;
} finally {
  await delayed?.close();
  await backends.stop();
  rmSync(stateDir, { recursive: true, force: true });
}
process.exit(exitCode);
