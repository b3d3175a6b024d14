/**
 * `npm run bench`: the agent API's steady-heartbeat path on this machine, end to end (mutual TLS,
 * gateway, handler, Redis, Kinesis emulator, DynamoDB Local), with what each heartbeat cost the
 * backends and this process's CPU. The load runs in a separate process, and so do the proxies that count
 * backend requests, so that this process's CPU time is the gateway's and the handler's alone. Then the
 * steady heartbeats the gateway handed the handler are handed again, with no gateway or TLS, to the handler as
 * a deployment ships it (its minified bundle, warmed by one pass of them), many in flight and one at a time:
 * the CPU time Lambda bills. Figures depend on the machine: they are printed with its CPU, core count and
 * calibration, and compared only as ratios.
 *
 * `--rate-sweep` (`npm run bench:rate`) drives the steady heartbeats at fixed rates instead, open loop, a step
 * at each, and prints each step's latency, errors and the CPU each process spent: this one's (Beacon's
 * gateway and handler), the other functions' (the stream consumer reading what the heartbeats put, the sweeper,
 * in a process of their own as `npm start` runs them), the emulators' and the load's, all on this machine; and
 * how late this process's event loop ran timers, the tail the agent API itself adds.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from "aws-lambda";
import { Redis } from "ioredis";
import { AgentRoutes } from "../../functions/core/c2/routes.js";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { FunctionTimeouts } from "../../functions/shared/function-timeouts.js";
import { MetricNames } from "../../functions/shared/observability.js";
import { parseCommandLine } from "../common/command-line.mjs";
import { FUNCTIONS_PROCESS_COMMAND } from "../local/functions-process.js";
import type { GatewayRoute } from "../local/gateway.js";
import { calibrationLine } from "./calibration.js";
import { loadDeployedHandler } from "./deployed-handler.js";
import { type LatencySplit, startLatencySplit } from "./latency-split.js";
import { BACKEND_PROCESSES, descendantsCpuMs, processNamer } from "./process-cpu.js";
import { profileLines, startCpuProfile } from "./profile.js";
import {
  type CountingProxies,
  cpuMsSince,
  idleCpu,
  root,
  runLoad,
  startBenchStack,
  totalCalls,
} from "./stack.js";

const USAGE = `Usage: npm run bench [-- --rate-sweep]   (npm run bench:rate is the sweep)

The agent API's steady heartbeats end to end on this machine, on backends of its own, and their CPU cost.
  --rate-sweep  drive the heartbeats at fixed rates instead, a step at each, with each step's latency and CPU

Set by the environment: BENCH_AGENTS (1000), BENCH_ROUNDS (5), BENCH_CONCURRENCY (50); for the sweep BENCH_RATES
(200,400,…,2000 a second), BENCH_STEP_SECONDS (15), BENCH_CONNECTIONS (200), BENCH_WORKERS (gateway processes);
BENCH_PROFILE, a file for a CPU profile of the handler's heartbeats many in flight (beside it, one of them one
at a time: the same name ending -one-at-a-time.cpuprofile).`;

const rateSweep = parseCommandLine(USAGE, { options: { "rate-sweep": { type: "boolean", default: false } } })
  .values["rate-sweep"];
const agents = Number(process.env.BENCH_AGENTS ?? 1000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 50);
/** The sweep's rates, heartbeats per second, and how long each step lasts. */
const rates = (process.env.BENCH_RATES ?? "200,400,600,800,1000,1200,1400,1600,1800,2000")
  .split(",")
  .map(Number);
const stepSeconds = Number(process.env.BENCH_STEP_SECONDS ?? 15);
/** The sweep's connections at most; a heartbeat finding them all busy waits, its wait counted. */
const connections = Number(process.env.BENCH_CONNECTIONS ?? 200);
/** A rate is sustained when its p99 is within this and no heartbeat failed. */
const TARGET_P99_MS = 50;
/**
 * A step this slow, or failing this share of heartbeats, shows the server saturated; after two in a row (one
 * may be the machine's other work) higher rates are not tried.
 */
const SATURATED_P99_MS = 1_000;
const SATURATED_ERROR_SHARE = 0.01;
/**
 * The sweep's gateway and agent API in this many processes sharing its port, as agent-service tasks (one vCPU each)
 * behind a load balancer: the machine's two cores can then both serve, as the load and the emulators allow.
 */
const workers = process.env.BENCH_WORKERS === undefined ? undefined : Number(process.env.BENCH_WORKERS);
/** A file to write a CPU profile of the handler's heartbeats, many in flight, to (`.cpuprofile`); empty: none. */
const profileFile = process.env.BENCH_PROFILE || undefined;
/** Beside it, the profile of the heartbeats handed over one at a time: what a Lambda invocation costs alone. */
const oneAtATimeProfileFile = profileFile?.replace(/(\.cpuprofile)?$/, "-one-at-a-time.cpuprofile");

/** The processes of this machine whose CPU the sweep names. */
const PROCESS_NAMES: [RegExp, string][] = [
  [FUNCTIONS_PROCESS_COMMAND, "functions"],
  ...BACKEND_PROCESSES,
  [/bench\/load\.ts/, "load"],
];
const processNameOf = processNamer(PROCESS_NAMES);
const OTHER_PROCESSES = PROCESS_NAMES.map(([, name]) => name);
/**
 * The processes still at work after the registrations (the stream consumer reading their events into the agents'
 * logs, fleet history and usage, and the emulators serving it): the sweep starts once they have settled, at most
 * this share of a core together over a second, or after SETTLE_LIMIT_MS.
 */
const AFTER_EFFECTS = ["functions", "DynamoDB Local", "kinesalite"];
const SETTLED_SHARE = 0.15;
const SETTLE_LIMIT_MS = 120_000;

/** With the gateway in this process (no workers), where each heartbeat's time goes inside it. */
let split: LatencySplit | undefined;

// The steady heartbeats' events as the gateway made them, one per agent, to hand the handler again.
const steadyEvents: APIGatewayProxyEventV2[] = [];
let capturing = false;
const captureSteady = (routes: GatewayRoute[]) =>
  routes.map((route) => {
    if (route.path !== AgentRoutes.heartbeat.path || !("handler" in route)) return route;
    const handler = route.handler;
    return {
      ...route,
      handler: (event: APIGatewayProxyEventV2) => {
        if (capturing && steadyEvents.length < agents) steadyEvents.push(event);
        return split ? split.timed(() => handler(event)) : handler(event);
      },
    };
  });
if (workers !== undefined && !rateSweep)
  throw new Error("BENCH_WORKERS is for the rate sweep (--rate-sweep)");
// Before the stack starts, so that its emulators' work is not counted against the machine.
const calibration = await calibrationLine();
// The sweep talks to the emulators directly, as a deployed function does: the proxies would add a hop to each put.
const stack = rateSweep
  ? await startBenchStack("bench", workers ? undefined : captureSteady, {
      direct: true,
      workers,
      functions: true,
    })
  : await startBenchStack("bench", captureSteady);
if (rateSweep && !workers)
  split = startLatencySplit(stack.backends.env[AwsEndpointEnvNames.kinesis] as string);
const redisClient = new Redis(stack.backends.env[EnvNames.redisUrl] as string);
const scriptCalls = async () =>
  Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redisClient.info("commandstats"))?.[1] ?? 0) +
  Number(/cmdstat_eval:calls=(\d+)/.exec(await redisClient.info("commandstats"))?.[1] ?? 0);
// Each agent registers with a C++ full heartbeat (its manifest, as the C++ agent sends after a start), then
// sends light heartbeats naming it.
const examples = path.join(root, "schemas/c2/examples/cpp");
const loadArgs = [
  `--url=${stack.gatewayUrl}`,
  `--certs=${stack.certsDir}`,
  `--agents=${agents}`,
  `--registration=${path.join(examples, "heartbeat-full.json")}`,
  `--heartbeat=${path.join(examples, "heartbeat-light.json")}`,
];
try {
  if (stack.proxies) await measureSteady(stack.proxies);
  else await sweepRates();
  console.log(calibration);
} finally {
  redisClient.disconnect();
  split?.close();
  await stack.close();
}

/** The steady heartbeats' throughput, latency and backend requests, and their CPU time, the handler's alone too. */
async function measureSteady(proxies: CountingProxies) {
  let scriptsBefore = 0;
  let idleCpuPerMs = 0;
  let cpuBefore = process.cpuUsage();
  let steadyStarted = 0;
  const steady = await runLoad(
    "load.ts",
    [...loadArgs, `--rounds=${rounds}`, `--concurrency=${concurrency}`],
    async () => {
      console.log(`bench: ${agents} agents registered with their manifests; heartbeating`);
      idleCpuPerMs = await idleCpu();
      await proxies.reset();
      scriptsBefore = await scriptCalls();
      capturing = true;
      cpuBefore = process.cpuUsage();
      steadyStarted = performance.now();
    },
  );
  const endToEnd = cpuPerHeartbeat(cpuBefore, steadyStarted, idleCpuPerMs, steady.heartbeats as number);
  capturing = false;
  const heartbeats = steady.heartbeats as number;
  const perHeartbeat = (count: number, of = heartbeats) => (count / of).toFixed(3);
  const counts = await proxies.counts();
  const scripts = (await scriptCalls()) - scriptsBefore;

  console.log(`bench: handing ${heartbeats} steady heartbeats to the handler as deployed, directly`);
  const deployed = await loadDeployedHandler<APIGatewayProxyEventV2, APIGatewayProxyResultV2>({
    name: "agent-api",
    timeoutSeconds: FunctionTimeouts.agentApi,
  });
  let inFlight: Replayed;
  let oneAtATime: Replayed;
  let directCounts: Awaited<ReturnType<CountingProxies["counts"]>>;
  let directScripts: number;
  try {
    // As a warm instance: the bundle's first heartbeats compile what the gateway's compiled in the source.
    await replay(deployed.invoke, heartbeats, concurrency, idleCpuPerMs);
    await proxies.reset();
    const directScriptsBefore = await scriptCalls();
    inFlight = await replay(deployed.invoke, heartbeats, concurrency, idleCpuPerMs, profileFile);
    directCounts = await proxies.counts();
    directScripts = (await scriptCalls()) - directScriptsBefore;
    oneAtATime = await replay(
      deployed.invoke,
      Math.min(heartbeats, 2_000),
      1,
      idleCpuPerMs,
      oneAtATimeProfileFile,
    );
  } finally {
    await deployed.close();
  }

  const cpu = cpus();
  console.log("");
  console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, Node ${process.version}`);
  console.log(
    `load: ${agents} agents × ${rounds} rounds of steady C++ light heartbeats, ${concurrency} in flight`,
  );
  console.log(`throughput: ${steady.perSecond} heartbeats/s (${steady.errors} errors)`);
  console.log(
    `latency ms: p50 ${Number(steady.p50).toFixed(1)}  p95 ${Number(steady.p95).toFixed(1)}  p99 ${Number(steady.p99).toFixed(1)}  max ${Number(steady.max).toFixed(1)}`,
  );
  console.log(
    `per steady heartbeat: DynamoDB requests ${perHeartbeat(totalCalls(counts.dynamodb))}, ` +
      `Redis script calls ${perHeartbeat(scripts)}, ` +
      `Kinesis puts ${perHeartbeat(totalCalls(counts.kinesis))}`,
  );
  console.log(
    `CPU ms per steady heartbeat (idle ${(idleCpuPerMs * 1000).toFixed(1)} ms/s subtracted): ` +
      `gateway + handler ${endToEnd.toFixed(3)}; ` +
      `handler alone ${inFlight.cpuMs.toFixed(3)} at ${concurrency} in flight (${inFlight.perSecond}/s), ` +
      `${oneAtATime.cpuMs.toFixed(3)} one at a time`,
  );
  console.log(
    `handler alone, per heartbeat: DynamoDB requests ${perHeartbeat(totalCalls(directCounts.dynamodb), inFlight.heartbeats)}, ` +
      `Redis script calls ${perHeartbeat(directScripts, inFlight.heartbeats)}, ` +
      `Kinesis puts ${perHeartbeat(totalCalls(directCounts.kinesis), inFlight.heartbeats)}, ` +
      `${inFlight.errors} not answered 200`,
  );
  if (inFlight.profile) {
    console.log(`profile of the handler alone, ${concurrency} in flight (${profileFile}):`);
    for (const line of profileLines(inFlight.profile, deployed.sources)) console.log(line);
  }
  if (oneAtATime.profile) {
    console.log(`profile of the handler alone, one at a time (${oneAtATimeProfileFile}):`);
    for (const line of profileLines(oneAtATime.profile, deployed.sources)) console.log(line);
  }
}

/** What the processes of the sweep have spent so far: this one's CPU, the others' by name, and when. */
function cpuSnapshot() {
  return {
    beaconMs: stack.beaconCpuMs(),
    others: descendantsCpuMs(process.pid, processNameOf),
    at: performance.now(),
  };
}

/**
 * Steady heartbeats at each rate of `rates`, open loop through the gateway with mutual TLS, a step of
 * `stepSeconds` each: per step the latency, errors, and the CPU of this process (Beacon: gateway and handler)
 * and of the emulators and the load, which all share this machine; then the highest rate sustained.
 */
async function sweepRates() {
  let idleCpuPerMs = 0;
  let before = cpuSnapshot();
  const steps: string[][] = [];
  let sustained: number | undefined;
  let saturatedSteps = 0;
  // How late this process's timers ran, per step: the gateway's and the handler's own work queued on its event loop
  // (with gateway workers, theirs is not seen here).
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  // The functions process's log is the stack's last.
  const consumerBatches = consumerBatchesIn(stack.functionLogFiles.at(-1) as string);
  const agentApiErrors = agentApiErrorsIn(stack.functionLogFiles.slice(0, -1));
  loopDelay.enable();
  await runLoad(
    "load.ts",
    [
      ...loadArgs,
      `--rates=${rates.join(",")}`,
      `--step-seconds=${stepSeconds}`,
      // The agents register `concurrency` at a time, as for the steady measurement.
      `--concurrency=${concurrency}`,
      `--connections=${connections}`,
    ],
    async (message) => {
      if (message.phase === "registered") {
        console.log(
          `bench: ${agents} agents registered with their manifests; sweeping ${rates.join(", ")}/s`,
        );
        const settledMs = await settle();
        console.log(
          settledMs === undefined
            ? `bench: the registrations' after-effects still ran after ${SETTLE_LIMIT_MS / 1000} s; sweeping anyway`
            : `bench: the registrations' after-effects settled in ${(settledMs / 1000).toFixed(1)} s`,
        );
        idleCpuPerMs = await idleCpu(stack.beaconCpuMs);
        before = cpuSnapshot();
        loopDelay.reset();
        split?.takeStep();
        consumerBatches();
        agentApiErrors();
        return "go";
      }
      const after = cpuSnapshot();
      const rate = message.rate as number;
      const heartbeats = message.heartbeats as number;
      const errors = message.errors as number;
      const handlerErrors = agentApiErrors();
      const p99 = message.p99 as number;
      const wallMs = after.at - before.at;
      const beaconMs = after.beaconMs - before.beaconMs - idleCpuPerMs * wallMs;
      const share = (cpuMs: number) => `${Math.round((100 * cpuMs) / wallMs)} %`;
      const othersMs = (name: string) => (after.others.get(name) ?? 0) - (before.others.get(name) ?? 0);
      if (p99 <= TARGET_P99_MS && errors === 0 && handlerErrors === 0)
        sustained = Math.max(sustained ?? 0, rate);
      steps.push([
        String(rate),
        String(heartbeats),
        String(errors),
        String(handlerErrors),
        ...[message.p50, message.p95, message.p99, message.max].map((ms) => Number(ms).toFixed(1)),
        (beaconMs / heartbeats).toFixed(3),
        share(beaconMs),
        ...OTHER_PROCESSES.map((name) => share(othersMs(name))),
        workers ? "" : (loopDelay.percentile(99) / 1e6).toFixed(1),
        consumerBatches(),
        ...splitColumns(message),
        Number(message.lagMs).toFixed(0),
        loadavg()[0]?.toFixed(1) ?? "",
      ]);
      console.log(`bench: ${rate}/s: p99 ${p99.toFixed(1)} ms, ${errors} errors`);
      const saturated = p99 > SATURATED_P99_MS || errors > heartbeats * SATURATED_ERROR_SHARE;
      saturatedSteps = saturated ? saturatedSteps + 1 : 0;
      before = cpuSnapshot();
      loopDelay.reset();
      return saturatedSteps >= 2 ? "stop" : "go";
    },
  );
  const cpu = cpus();
  console.log("");
  console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, Node ${process.version}`);
  console.log(
    `load: ${agents} agents' steady C++ light heartbeats at fixed rates, open loop, ${stepSeconds} s a step, ` +
      `over at most ${connections} kept-alive mutual-TLS connections. The load runs on this machine too, in a ` +
      "process of its own: its CPU is the load column, the emulators' theirs, Beacon's (gateway, TLS and " +
      `handler, ${workers ? `${workers} processes` : "one process"}) apart, the other functions' (the stream ` +
      "consumer, sweeper and console API, in a process of their own) the functions column. CPU in % of one core; " +
      "latency from each heartbeat's scheduled start.",
  );
  const header = [
    "rate/s",
    "sent",
    "errors",
    "agent API errors",
    "p50 ms",
    "p95 ms",
    "p99 ms",
    "max ms",
    "Beacon CPU ms/hb",
    "Beacon CPU",
    ...OTHER_PROCESSES.map((name) => `${name} CPU`),
    "Beacon loop delay p99 ms",
    "events per consumer batch",
    "gateway p50/p99 ms",
    "handler p50/p99 ms",
    "stream put p50/p99 ms",
    "load late p50/p99 ms",
    "load lag ms",
    "load avg",
  ];
  for (const row of [header, header.map(() => "---"), ...steps]) console.log(`| ${row.join(" | ")} |`);
  console.log(
    sustained === undefined
      ? `no rate sustained with p99 ≤ ${TARGET_P99_MS} ms and 0 errors (answers and agent API's)`
      : `highest rate with p99 ≤ ${TARGET_P99_MS} ms and 0 errors (answers and agent API's): ${sustained}/s`,
  );
}

/** The JSON-lines records `logFile` has had written since the last call. */
function newRecordsOf(logFile: string): () => Record<string, unknown>[] {
  let readUpTo = 0;
  return () => {
    const text = readFileSync(logFile, "utf8");
    const lines = text.slice(readUpTo).split("\n");
    readUpTo = text.length - (lines.at(-1)?.length ?? 0);
    return lines.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
  };
}

/**
 * The stream consumer's events per batch since the last step, read from the functions' log (an EMF line per
 * invocation with the events it consumed): its fixed writes per batch (fleet history's two buckets and usage's
 * tenant-hour, each read and written over its version, and an archive object) are spread over them.
 */
function consumerBatchesIn(logFile: string): () => string {
  const newRecords = newRecordsOf(logFile);
  return () => {
    const consumed = newRecords()
      .filter((line) => line.function_name === "stream-consumer" && MetricNames.eventsConsumed in line)
      .map((line) => Number(line[MetricNames.eventsConsumed]))
      .filter((events) => events > 0);
    const events = consumed.reduce((sum, count) => sum + count, 0);
    return consumed.length === 0 ? "" : (events / consumed.length).toFixed(1);
  };
}

/**
 * The errors the agent API logged since the last step: a heartbeat whose backends failed it is answered 200 with
 * no operations (as an agent should be), so the load cannot tell it from a served one.
 */
function agentApiErrorsIn(logFiles: string[]): () => number {
  const newRecords = logFiles.map(newRecordsOf);
  return () => newRecords.flatMap((read) => read()).filter((line) => line.level === "ERROR").length;
}

/** The step's latency split: the gateway's, the handler's and the stream puts' times, and the load's lateness. */
function splitColumns(message: Record<string, unknown>): string[] {
  const pair = ({ p50, p99 }: { p50: number; p99: number }) => `${p50.toFixed(1)} / ${p99.toFixed(1)}`;
  const step = split?.takeStep();
  const late = pair({ p50: Number(message.lateP50), p99: Number(message.lateP99) });
  return step ? [pair(step.gateway), pair(step.handler), pair(step.streamPut), late] : ["", "", "", late];
}

/**
 * Waits for the registrations' after-effects to settle (AFTER_EFFECTS' CPU at most SETTLED_SHARE of a core over a
 * second); how long that took, or undefined when they still ran after SETTLE_LIMIT_MS.
 */
async function settle(): Promise<number | undefined> {
  const started = performance.now();
  const busyMs = () => {
    const spent = descendantsCpuMs(process.pid, processNameOf);
    return AFTER_EFFECTS.reduce((sum, name) => sum + (spent.get(name) ?? 0), 0);
  };
  while (performance.now() - started < SETTLE_LIMIT_MS) {
    const before = busyMs();
    const from = performance.now();
    await sleep(1_000);
    if (busyMs() - before <= SETTLED_SHARE * (performance.now() - from)) return performance.now() - started;
  }
  return undefined;
}

/** CPU ms per heartbeat since `before`, less what the process would have spent idle meanwhile. */
function cpuPerHeartbeat(before: NodeJS.CpuUsage, started: number, idlePerMs: number, heartbeats: number) {
  return (cpuMsSince(before) - idlePerMs * (performance.now() - started)) / heartbeats;
}

type Replayed = Awaited<ReturnType<typeof replay>>;

/**
 * Hands the captured steady heartbeats to `handler` `count` times in all, `inFlight` at once, as
 * Lambda's runtime would (each its own invocation); the handler's CPU ms per heartbeat, and its profile.
 */
async function replay(
  handler: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyResultV2>,
  count: number,
  inFlight: number,
  idlePerMs: number,
  profileTo?: string,
) {
  const profiling = profileTo ? await startCpuProfile(profileTo) : undefined;
  let next = 0;
  let errors = 0;
  const before = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        const event = steadyEvents[next++ % steadyEvents.length] as APIGatewayProxyEventV2;
        const result = await handler(event);
        if (typeof result !== "object" || result.statusCode !== 200) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = cpuPerHeartbeat(before, started, idlePerMs, count);
  const profile = await profiling?.stop();
  return { heartbeats: count, cpuMs, errors, perSecond: Math.round(count / seconds), profile };
}
