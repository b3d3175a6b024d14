/**
 * `npm run bench`: the agent API's steady-heartbeat path on this machine, end to end (mutual TLS,
 * gateway, handler, Redis, Kinesis emulator, DynamoDB Local), with what each heartbeat cost the
 * backends and this process's CPU. The load runs in a separate process, and so do the proxies that count
 * backend requests, so that this process's CPU time is the gateway's and the handler's alone. Then the
 * steady heartbeats the gateway handed the handler are handed to it again directly, with no gateway or
 * TLS, many in flight and one at a time: the CPU time Lambda bills. Figures depend on the machine: they
 * are printed with its CPU and core count, and compared only as ratios.
 */
import { cpus } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { Redis } from "ioredis";
import { EnvNames } from "../functions/shared/env-names.js";
import { profileLines, startCpuProfile } from "./bench/profile.js";
import { cpuMsSince, idleCpu, root, runLoad, startBenchStack, totalCalls } from "./bench/stack.js";
import type { GatewayHandler } from "./local/gateway.js";

const agents = Number(process.env.BENCH_AGENTS ?? 1000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 50);
/** A file to write a CPU profile of the handler's heartbeats, many in flight, to (`.cpuprofile`). */
const profileFile = process.env.BENCH_PROFILE;

let handleHeartbeat: GatewayHandler | undefined;
// The steady heartbeats' events as the gateway made them, one per agent, to hand the handler again.
const steadyEvents: APIGatewayProxyEventV2[] = [];
let capturing = false;
const stack = await startBenchStack("bench", (routes) =>
  routes.map((route) => {
    if (route.path !== "/c2/api/heartbeat" || !("handler" in route)) return route;
    const handler = route.handler;
    handleHeartbeat = handler;
    return {
      ...route,
      handler: (event: APIGatewayProxyEventV2) => {
        if (capturing && steadyEvents.length < agents) steadyEvents.push(event);
        return handler(event);
      },
    };
  }),
);
const { proxies } = stack;
const redisClient = new Redis(stack.backends.env[EnvNames.redisUrl] as string);
const scriptCalls = async () =>
  Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redisClient.info("commandstats"))?.[1] ?? 0) +
  Number(/cmdstat_eval:calls=(\d+)/.exec(await redisClient.info("commandstats"))?.[1] ?? 0);
try {
  // Each agent registers with a C++ full heartbeat (its manifest, as the C++ agent sends after a start),
  // then sends light heartbeats naming it.
  const examples = path.join(root, "schemas/c2/examples/cpp");
  let scriptsBefore = 0;
  let idleCpuPerMs = 0;
  let cpuBefore = process.cpuUsage();
  let steadyStarted = 0;
  const steady = await runLoad(
    "load.ts",
    [
      `--url=${stack.gatewayUrl}`,
      `--certs=${stack.certsDir}`,
      `--agents=${agents}`,
      `--rounds=${rounds}`,
      `--concurrency=${concurrency}`,
      `--registration=${path.join(examples, "heartbeat-full.json")}`,
      `--heartbeat=${path.join(examples, "heartbeat-light.json")}`,
    ],
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

  console.log(`bench: handing ${heartbeats} steady heartbeats to the handler directly`);
  await proxies.reset();
  const directScriptsBefore = await scriptCalls();
  const inFlight = await replay(heartbeats, concurrency, idleCpuPerMs, profileFile);
  const directCounts = await proxies.counts();
  const directScripts = (await scriptCalls()) - directScriptsBefore;
  const oneAtATime = await replay(Math.min(heartbeats, 2_000), 1, idleCpuPerMs);

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
    console.log(`profile of the handler alone (${profileFile}):`);
    for (const line of profileLines(inFlight.profile)) console.log(line);
  }
} finally {
  redisClient.disconnect();
  await stack.close();
}

/** CPU ms per heartbeat since `before`, less what the process would have spent idle meanwhile. */
function cpuPerHeartbeat(before: NodeJS.CpuUsage, started: number, idlePerMs: number, heartbeats: number) {
  return (cpuMsSince(before) - idlePerMs * (performance.now() - started)) / heartbeats;
}

/**
 * Hands the captured steady heartbeats to the handler `count` times in all, `inFlight` at once, as
 * Lambda's runtime would (each its own invocation); the handler's CPU ms per heartbeat, and its profile.
 */
async function replay(count: number, inFlight: number, idlePerMs: number, profileTo?: string) {
  const profiling = profileTo ? await startCpuProfile(profileTo) : undefined;
  let next = 0;
  let errors = 0;
  const before = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        const event = steadyEvents[next++ % steadyEvents.length] as APIGatewayProxyEventV2;
        const result = await (handleHeartbeat as GatewayHandler)(event);
        if (typeof result !== "object" || result.statusCode !== 200) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = cpuPerHeartbeat(before, started, idlePerMs, count);
  const profile = await profiling?.stop();
  return { heartbeats: count, cpuMs, errors, perSecond: Math.round(count / seconds), profile };
}
