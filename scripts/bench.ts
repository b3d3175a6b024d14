/**
 * `npm run bench`: the agent API's steady-heartbeat path on this machine, end to end (mutual TLS,
 * gateway, handler, Redis, Kinesis emulator, DynamoDB Local), with what each heartbeat cost the
 * backends. The load runs in a separate process. Figures depend on the machine: they are printed
 * with its CPU and core count, and compared only as ratios.
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { cpus } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { AwsEndpointEnvNames, EnvNames } from "../functions/shared/env-names.js";
import { startBackends } from "./local/backends.js";
import { ensureDevCertificates } from "./local/certs.js";
import { startCountingProxy } from "./local/counting-proxy.js";
import { openTemporaryFunctionLog } from "./local/function-logs.js";
import { loadAgentApi } from "./local/function-routes.js";
import { startAgentGateway } from "./local/gateway.js";
import { findFreePorts } from "./local/ports.js";

const agents = Number(process.env.BENCH_AGENTS ?? 1000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 50);
const root = fileURLToPath(new URL("../", import.meta.url));
const stateDir = path.join(root, ".beacon", `bench-${process.pid}`);

const [dynamodb, redis, kinesis, s3, agentPort] = await findFreePorts(5);
const backends = await startBackends({
  stateDir,
  ports: {
    dynamodb: dynamodb as number,
    redis: redis as number,
    kinesis: kinesis as number,
    s3: s3 as number,
  },
  kinesisEmulator: "kinesalite",
  tableName: "beacon-bench",
  streamName: "beacon-events-bench",
  assetBucket: "beacon-assets-bench",
  archiveBucket: "beacon-events-archive-bench",
  log: (line) => console.log(`bench: ${line}`),
});
const dynamoDbProxy = await startCountingProxy(backends.env[AwsEndpointEnvNames.dynamodb] as string);
const kinesisProxy = await startCountingProxy(backends.env[AwsEndpointEnvNames.kinesis] as string);
const certsDir = path.join(stateDir, "certs");
await ensureDevCertificates(certsDir);
const functionLog = openTemporaryFunctionLog();
const agentApi = await loadAgentApi(
  {
    ...backends.env,
    [AwsEndpointEnvNames.dynamodb]: dynamoDbProxy.url,
    [AwsEndpointEnvNames.kinesis]: kinesisProxy.url,
    // The agent API sends agents absolute URLs of its own, so it learns its port before it loads.
    [EnvNames.agentApiUrl]: `https://127.0.0.1:${agentPort}`,
    POWERTOOLS_LOG_LEVEL: "ERROR",
  },
  functionLog.log,
);
const gateway = await startAgentGateway({ port: agentPort as number, certsDir, routes: agentApi.routes });
console.log(`bench: agent API on ${gateway.url}`);
const redisClient = new Redis(backends.env[EnvNames.redisUrl] as string);
const scriptCalls = async () =>
  Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redisClient.info("commandstats"))?.[1] ?? 0) +
  Number(/cmdstat_eval:calls=(\d+)/.exec(await redisClient.info("commandstats"))?.[1] ?? 0);
const totalCalls = (counts: Record<string, number>) =>
  Object.values(counts).reduce((sum, count) => sum + count, 0);

try {
  // Each agent registers with a C++ full heartbeat (its manifest, as the C++ agent sends after a start),
  // then sends light heartbeats naming it.
  const examples = path.join(root, "schemas/c2/examples/cpp");
  let scriptsBefore = 0;
  const steady = await runLoad(
    [
      "--import",
      "tsx",
      path.join(root, "scripts/bench/load.ts"),
      `--url=${gateway.url}`,
      `--certs=${certsDir}`,
      `--agents=${agents}`,
      `--rounds=${rounds}`,
      `--concurrency=${concurrency}`,
      `--registration=${path.join(examples, "heartbeat-full.json")}`,
      `--heartbeat=${path.join(examples, "heartbeat-light.json")}`,
    ],
    async () => {
      console.log(`bench: ${agents} agents registered with their manifests; heartbeating`);
      dynamoDbProxy.reset();
      kinesisProxy.reset();
      scriptsBefore = await scriptCalls();
    },
  );
  const heartbeats = steady.heartbeats as number;
  const perHeartbeat = (count: number) => (count / heartbeats).toFixed(3);
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
    `per steady heartbeat: DynamoDB requests ${perHeartbeat(totalCalls(dynamoDbProxy.counts()))}, ` +
      `Redis script calls ${perHeartbeat((await scriptCalls()) - scriptsBefore)}, ` +
      `Kinesis puts ${perHeartbeat(totalCalls(kinesisProxy.counts()))}`,
  );
} finally {
  redisClient.disconnect();
  await gateway.close();
  await agentApi.shutdown();
  functionLog.close();
  await Promise.all([dynamoDbProxy.close(), kinesisProxy.close()]);
  await backends.stop();
  rmSync(stateDir, { recursive: true, force: true });
}

/** Runs the load process; `betweenPhases` runs after registration, before the measured rounds. */
async function runLoad(args: string[], betweenPhases: () => Promise<void>): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
  let result: Record<string, unknown> = {};
  for await (const line of createInterface({ input: child.stdout })) {
    const message = JSON.parse(line) as Record<string, unknown>;
    if (message.phase === "registered") {
      await betweenPhases();
      child.stdin.end("go\n");
    } else {
      result = message;
    }
  }
  return result;
}
