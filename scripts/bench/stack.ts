/**
 * What the agent API's benchmarks share: backends of their own on free ports (so they run beside
 * `npm start`), the processes that count DynamoDB and Kinesis requests, the agent API behind the local
 * mutual-TLS gateway, and load processes of their own, so that the bench process's CPU time is the
 * gateway's and the handler's alone.
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { type Backends, startBackends } from "../local/backends.js";
import { ensureDevCertificates } from "../local/certs.js";
import { openTemporaryFunctionLog } from "../local/function-logs.js";
import { loadAgentApi } from "../local/function-routes.js";
import { type FunctionsProcess, startFunctionsProcess } from "../local/functions-process.js";
import { type GatewayRoute, startAgentGateway } from "../local/gateway.js";
import { findFreePorts } from "../local/ports.js";
import { descendantsCpuMs } from "./process-cpu.js";
import { type RunningAgentApi, startGatewayWorkers } from "./workers.js";

export const root = fileURLToPath(new URL("../../", import.meta.url));
/** How long this process is watched doing nothing, for the CPU time it spends idle (timers, keep-alives). */
const IDLE_SAMPLE_MS = 3_000;

export interface BenchStack<Counted extends CountingProxies | undefined = CountingProxies> {
  backends: Backends;
  /** In front of DynamoDB and Kinesis, unless the stack talks to them directly. */
  proxies: Counted;
  certsDir: string;
  gatewayUrl: string;
  /** The JSON-lines files the agent API's log and metric lines go to: one per process it runs in. */
  functionLogFiles: string[];
  /**
   * The CPU milliseconds Beacon's gateway and handler have used so far: this process's, and its gateway workers'
   * when it has them.
   */
  beaconCpuMs(): number;
  close(): Promise<void>;
}

export interface BenchStackOptions {
  /** Leaves the counting proxies out: the agent API talks to the emulators as a deployed function talks to AWS. */
  direct?: boolean;
  /**
   * Runs the gateway and agent API in this many worker processes sharing its port (workers.ts), as tasks behind a
   * load balancer, instead of in this one; `routesOf` cannot then reach the routes.
   */
  workers?: number;
  /**
   * Runs the stack's other functions (the stream consumer, the sweeper, the webhook dispatcher, the console API) as
   * `npm start` runs them, in a process of their own (functions-process.ts): the consumer reads what the heartbeats
   * put on the stream, off the agent API's event loop, as on AWS.
   */
  functions?: boolean;
}

/** How the descendants' CPU reader names a gateway worker (its command line names gateway-worker.ts). */
const BEACON_WORKER = "Beacon worker";
const beaconWorkerOf = (commandLine: string) =>
  /bench\/gateway-worker\.ts/.test(commandLine) ? BEACON_WORKER : undefined;

/** The emulators a bench's Beacon talks to, on free ports, named after the bench, their state under .beacon. */
export async function startBenchBackends(name: string, log: (line: string) => void = console.log) {
  const stateDir = path.join(root, ".beacon", `${name}-${process.pid}`);
  const [dynamodb, redis, kinesis, s3] = (await findFreePorts(4)) as number[];
  const backends = await startBackends({
    stateDir,
    ports: {
      dynamodb: dynamodb as number,
      redis: redis as number,
      kinesis: kinesis as number,
      s3: s3 as number,
    },
    kinesisEmulator: "kinesalite",
    tableName: `beacon-${name}`,
    streamName: `beacon-events-${name}`,
    assetBucket: `beacon-assets-${name}`,
    archiveBucket: `beacon-events-archive-${name}`,
    log: (line) => log(`${name}: ${line}`),
  });
  return { stateDir, backends };
}

/**
 * Starts the backends (named `name`), the counting proxies in front of DynamoDB and Kinesis, and the agent
 * API behind the gateway; `routesOf` may wrap the routes the gateway serves.
 */
export async function startBenchStack(
  name: string,
  routesOf?: (routes: GatewayRoute[]) => GatewayRoute[],
  options?: BenchStackOptions & { direct?: false },
): Promise<BenchStack>;
export async function startBenchStack(
  name: string,
  routesOf: ((routes: GatewayRoute[]) => GatewayRoute[]) | undefined,
  options: BenchStackOptions & { direct: true },
): Promise<BenchStack<undefined>>;
export async function startBenchStack(
  name: string,
  routesOf?: (routes: GatewayRoute[]) => GatewayRoute[],
  options: BenchStackOptions = {},
): Promise<BenchStack<CountingProxies | undefined>> {
  if (options.workers !== undefined && routesOf !== undefined)
    throw new Error("the routes of an agent API in gateway workers are the workers' own");
  const { stateDir, backends } = await startBenchBackends(name);
  const [agentPort] = await findFreePorts(1);
  const proxies = options.direct
    ? undefined
    : await startProxies(
        backends.env[AwsEndpointEnvNames.dynamodb] as string,
        backends.env[AwsEndpointEnvNames.kinesis] as string,
      );
  const certsDir = path.join(stateDir, "certs");
  await ensureDevCertificates(certsDir);
  const env = {
    ...backends.env,
    ...(proxies && {
      [AwsEndpointEnvNames.dynamodb]: proxies.urls.dynamodb,
      [AwsEndpointEnvNames.kinesis]: proxies.urls.kinesis,
    }),
    // The agent API sends agents absolute URLs of its own, so it learns its port before it loads.
    [EnvNames.agentApiUrl]: `https://127.0.0.1:${agentPort}`,
    POWERTOOLS_LOG_LEVEL: "ERROR",
  };
  const agentApi =
    options.workers === undefined
      ? await startInThisProcess(env, agentPort as number, certsDir, routesOf ?? ((routes) => routes))
      : await startGatewayWorkers(options.workers, { port: agentPort as number, certsDir, env });
  const gatewayUrl = `https://127.0.0.1:${agentPort}`;
  console.log(
    `${name}: agent API on ${gatewayUrl}${options.workers ? ` in ${options.workers} workers` : ""}`,
  );
  const functions = options.functions
    ? // Past the counting proxies: what the functions ask of the backends is not the heartbeats' cost.
      await startOtherFunctions(stateDir, certsDir, { ...env, ...backends.env }, name)
    : undefined;
  return {
    backends,
    proxies,
    certsDir,
    gatewayUrl,
    functionLogFiles: [...agentApi.functionLogFiles, ...(functions ? [functions.logFile] : [])],
    beaconCpuMs: () =>
      ownCpuMs() +
      (options.workers ? (descendantsCpuMs(process.pid, beaconWorkerOf).get(BEACON_WORKER) ?? 0) : 0),
    close: async () => {
      await functions?.process.stop();
      await agentApi.close();
      await proxies?.close();
      await backends.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** The stack's functions other than the agent API, on the backends as `env` names them, in their own process. */
async function startOtherFunctions(
  stateDir: string,
  certsDir: string,
  env: Record<string, string>,
  name: string,
): Promise<{ process: FunctionsProcess; logFile: string }> {
  const [consolePort, lambdaPort] = await findFreePorts(2);
  const logFile = path.join(stateDir, "functions.jsonl");
  const functions = await startFunctionsProcess(
    {
      logFile,
      terminalLevel: "error",
      functionsEnv: env,
      streamEnv: env,
      webhookEnv: {},
      certsDir,
      agentApiUrl: env[EnvNames.agentApiUrl] as string,
      consolePort: consolePort as number,
      lambdaPort: lambdaPort as number,
      issuerDir: path.join(stateDir, "console-issuer"),
    },
    (line) => console.log(`${name}: ${line}`),
  );
  console.log(`${name}: stream consumer, sweeper and console API in a process of their own`);
  return { process: functions, logFile };
}

/** The gateway and agent API in this process, the gateway serving the routes `routesOf` makes of the API's. */
async function startInThisProcess(
  env: Record<string, string>,
  port: number,
  certsDir: string,
  routesOf: (routes: GatewayRoute[]) => GatewayRoute[],
): Promise<RunningAgentApi> {
  const functionLog = openTemporaryFunctionLog();
  const agentApi = await loadAgentApi(env, functionLog.log);
  const gateway = await startAgentGateway({ port, certsDir, routes: routesOf(agentApi.routes) });
  return {
    functionLogFiles: [functionLog.log.file],
    close: async () => {
      await gateway.close();
      await agentApi.shutdown();
      functionLog.close();
    },
  };
}

/**
 * CPU time per wall-clock millisecond while nothing is asked of it: of this process, or of what `cpuMs` reads (a
 * running total of milliseconds).
 */
export async function idleCpu(cpuMs = ownCpuMs): Promise<number> {
  const before = cpuMs();
  const started = performance.now();
  await sleep(IDLE_SAMPLE_MS);
  return (cpuMs() - before) / (performance.now() - started);
}

/** The CPU milliseconds this process has used since it started. */
const ownCpuMs = () => cpuMsSince({ user: 0, system: 0 });

export function cpuMsSince(before: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * Runs a load process (a script under scripts/bench, with its arguments), which prints one JSON line per
 * phase; `onPhase` answers each line but the last, which is the result, before the process goes on (`go`),
 * or says "stop" for the process to end early.
 */
export async function runLoad(
  script: string,
  args: string[],
  onPhase: (message: Record<string, unknown>) => Promise<unknown>,
): Promise<Record<string, unknown>> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(root, "scripts/bench", script), ...args],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  let result: Record<string, unknown> | undefined;
  for await (const line of createInterface({ input: child.stdout })) {
    const message = JSON.parse(line) as Record<string, unknown>;
    if (message.phase === "result") {
      result = message;
      child.stdin.end();
    } else {
      child.stdin.write((await onPhase(message)) === "stop" ? "stop\n" : "go\n");
    }
  }
  const code = await exited;
  if (result === undefined) throw new Error(`the load process ${script} ended (${code}) without its result`);
  return result;
}

type Counts = Record<string, number>;
type Timings = Record<string, { meanMs: number; maxMs: number }>;

export const totalCalls = (counts: Counts) => Object.values(counts).reduce((sum, count) => sum + count, 0);

export interface CountingProxies {
  urls: { dynamodb: string; kinesis: string };
  reset(): Promise<unknown>;
  counts(): Promise<{ dynamodb: Counts; kinesis: Counts }>;
  timings(): Promise<{ dynamodb: Timings; kinesis: Timings }>;
  close(): Promise<void>;
}

/** The counting proxies' process (bench/proxies.ts) in front of DynamoDB and Kinesis. */
async function startProxies(dynamodbUrl: string, kinesisUrl: string): Promise<CountingProxies> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(root, "scripts/bench/proxies.ts"),
      `--dynamodb=${dynamodbUrl}`,
      `--kinesis=${kinesisUrl}`,
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = async () => JSON.parse((await lines.next()).value as string) as Record<string, unknown>;
  const ask = async (command: string) => {
    child.stdin.write(`${command}\n`);
    return nextLine();
  };
  const urls = (await nextLine()) as { dynamodb: string; kinesis: string };
  return {
    urls,
    reset: () => ask("reset"),
    counts: async () => (await ask("counts")) as { dynamodb: Counts; kinesis: Counts },
    timings: async () => (await ask("timings")) as { dynamodb: Timings; kinesis: Timings },
    close: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin.end();
      await exited;
    },
  };
}
