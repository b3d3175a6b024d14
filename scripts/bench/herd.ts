/**
 * `npm run bench:herd`: a herd of agents of one build arriving at once, end to end on this machine (mutual
 * TLS, gateway, handler, Redis, Kinesis emulator, DynamoDB Local, on backends of its own), the load in a
 * process of its own (herd-load.ts). Prints each request kind's latency percentiles and errors, Beacon's
 * counters, the manifest content items the tenant ends with (one: the build's), the DynamoDB requests the
 * herd cost, and what else used the machine: the load average and the load process's own CPU time. Then
 * `--new-agents` more agents of the build register over connections opened before: Beacon's CPU per new agent,
 * handshake excluded.
 * `--json` prints the figures as one JSON object instead.
 */
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { Keys } from "../../functions/adapters/dynamodb/keys.js";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { MetricNames } from "../../functions/shared/observability.js";
import { BEACON_COUNTERS } from "../../loadtests/gates.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { localAwsEnv } from "../local/backends.js";
import { DEV_TENANT } from "../local/certs.js";
import { metricTotals } from "../local/function-metrics.js";
import { type CalibratedMachine, calibrate, formatCalibration, readReference } from "./calibration.js";
import { profileLines, startCpuProfile } from "./profile.js";
import { idleCpu, runLoad, startBenchStack, totalCalls } from "./stack.js";

const USAGE = `Usage: npm run bench:herd -- [--agents <n>] [--dialect java|cpp] [--arrival-seconds <s>]
         [--heartbeats <n>] [--period-seconds <s>] [--new-agents <n>] [--json] [--profile <file>]
         [--workers <n>]

A herd of agents of one build arriving at once, end to end on this machine, on backends of its own.
  --agents           how many (default 10000)
  --dialect          MiNiFi java or cpp (default java)
  --arrival-seconds  the window they arrive in (default 60)
  --heartbeats       heartbeats each sends after its first (default 2)
  --period-seconds   seconds between them (default: the arrival window)
  --new-agents       agents registered after the herd over connections opened before, for Beacon's CPU per new
                     agent without its handshake (default 200)
  --json             print the figures as one JSON object
  --profile          a file to write a CPU profile of the gateway and handler to while the new agents register
  --workers          run the gateway and agent API in this many processes sharing its port`;

const { values } = parseCommandLine(USAGE, {
  options: {
    agents: { type: "string", default: "10000" },
    dialect: { type: "string", default: "java" },
    "arrival-seconds": { type: "string", default: "60" },
    heartbeats: { type: "string", default: "2" },
    "period-seconds": { type: "string" },
    "new-agents": { type: "string", default: "200" },
    json: { type: "boolean", default: false },
    /** A file to write a CPU profile of the gateway and handler to while the new agents register (`.cpuprofile`). */
    profile: { type: "string" },
    /** The gateway and agent API in this many processes sharing its port, as tasks behind a load balancer. */
    workers: { type: "string" },
  },
});
if (values.dialect !== "java" && values.dialect !== "cpp") exitWithUsage(USAGE, "--dialect is java or cpp");
/** How often the load average is read while the herd runs. */
const LOAD_SAMPLE_MS = 2_000;
const log = (line: string) => {
  if (!values.json) console.log(`bench:herd: ${line}`);
};

const workers = values.workers === undefined ? undefined : Number(values.workers);
if (workers !== undefined && values.profile)
  exitWithUsage(USAGE, "--profile profiles this process, not --workers");
// Before the stack starts, so that its emulators' work is not counted against the machine.
const calibrated = await calibrate();
const stack = await startBenchStack("herd", undefined, { workers });
try {
  let cpuBefore = stack.beaconCpuMs();
  let from = Date.now();
  let to = from;
  let serverCpuSeconds = 0;
  const loadAverages: number[] = [];
  let sampler: NodeJS.Timeout | undefined;
  let profiling: Awaited<ReturnType<typeof startCpuProfile>> | undefined;
  let profile: unknown;
  let herdCounts: Awaited<ReturnType<typeof stack.proxies.counts>> | undefined;
  let herdTimings: Awaited<ReturnType<typeof stack.proxies.timings>> | undefined;
  const newAgents = { cpuMsBefore: 0, startedAt: 0, idleCpuPerMs: 0, cpuMsPerAgent: 0 };
  const newAgentCount = Number(values["new-agents"]);
  const load = await runLoad(
    "herd-load.ts",
    [
      `--url=${stack.gatewayUrl}`,
      `--certs=${stack.certsDir}`,
      `--agents=${values.agents}`,
      `--dialect=${values.dialect}`,
      `--arrival-seconds=${values["arrival-seconds"]}`,
      `--heartbeats=${values.heartbeats}`,
      `--new-agents=${newAgentCount}`,
      ...(values["period-seconds"] ? [`--period-seconds=${values["period-seconds"]}`] : []),
    ],
    async ({ phase }) => {
      if (phase === "ready") {
        log(
          `${values.agents} ${values.dialect} agents built; arriving within ${values["arrival-seconds"]} s`,
        );
        await stack.proxies.reset();
        cpuBefore = stack.beaconCpuMs();
        from = Date.now();
        sampler = setInterval(() => loadAverages.push(loadavg()[0] as number), LOAD_SAMPLE_MS);
      } else if (phase === "herded") {
        to = Date.now();
        serverCpuSeconds = (stack.beaconCpuMs() - cpuBefore) / 1000;
        herdCounts = await stack.proxies.counts();
        herdTimings = await stack.proxies.timings();
      } else if (phase === "connected") {
        // The new agents' connections are open, their handshakes and a known agent's heartbeat on each made:
        // what the meters count from now is the new agents' alone, as what they counted before was the herd's.
        await stack.proxies.reset();
        log(`herd answered; ${newAgentCount} new agents register over connections opened before`);
        newAgents.idleCpuPerMs = await idleCpu(stack.beaconCpuMs);
        if (values.profile) profiling = await startCpuProfile(values.profile);
        newAgents.cpuMsBefore = stack.beaconCpuMs();
        newAgents.startedAt = performance.now();
      } else if (phase === "registered") {
        const busyMs =
          stack.beaconCpuMs() -
          newAgents.cpuMsBefore -
          newAgents.idleCpuPerMs * (performance.now() - newAgents.startedAt);
        newAgents.cpuMsPerAgent = busyMs / Math.max(1, newAgentCount);
        profile = await profiling?.stop();
        clearInterval(sampler);
      }
    },
  );
  // The herd's, read when it was answered; the new agents' after them.
  const counts = herdCounts ?? (await stack.proxies.counts());
  const timings = herdTimings ?? (await stack.proxies.timings());
  const newAgentCounts = await stack.proxies.counts();
  const { counters, registrationsByProcess } = await countersOf(stack.functionLogFiles, { from, to });
  const manifestItems = await manifestItemsOf(DEV_TENANT);
  const figures = {
    ...load,
    phase: undefined,
    beaconCounters: counters,
    manifestItems,
    dynamoDbRequests: { total: totalCalls(counts.dynamodb), byAction: counts.dynamodb },
    kinesisRequests: totalCalls(counts.kinesis),
    backendMs: { ...timings.dynamodb, ...timings.kinesis },
    machine: {
      cores: cpus().length,
      cpu: cpus()[0]?.model ?? "unknown CPU",
      node: process.version,
      loadAverage1m: {
        mean: loadAverages.reduce((sum, value) => sum + value, 0) / Math.max(1, loadAverages.length),
        max: Math.max(0, ...loadAverages),
      },
    },
    gatewayAndHandlerCpuSeconds: serverCpuSeconds,
    /** Beacon's CPU (gateway and handler, less what it spends idle) per agent registered after the herd. */
    newAgents: {
      agents: newAgentCount,
      cpuMsPerAgent: newAgents.cpuMsPerAgent,
      dynamoDbRequestsPerAgent: totalCalls(newAgentCounts.dynamodb) / Math.max(1, newAgentCount),
      idleCpuMsPerSecond: newAgents.idleCpuPerMs * 1000,
    },
    beaconProcesses: workers ?? 1,
    /** The agents each of Beacon's processes registered: the load balancer's spread. */
    registrationsByProcess,
    calibration: calibrated,
  };
  if (values.json) console.log(JSON.stringify(figures));
  else printFigures(figures);
  if (profile && !values.json) {
    console.log(`profile of the gateway and handler while the new agents registered (${values.profile}):`);
    for (const line of profileLines(profile)) console.log(line);
  }
} finally {
  await stack.close();
}

/**
 * Beacon's counters over the window, added up across the function logs of the processes it ran in, each log read
 * once, and the agents each process registered.
 */
async function countersOf(files: string[], window: { from: number; to: number }) {
  const names = [...BEACON_COUNTERS, MetricNames.manifestsStored, MetricNames.describeSent];
  const counters = Object.fromEntries(names.map((name) => [name, 0]));
  const registrationsByProcess: number[] = [];
  for (const file of files) {
    const totals = await metricTotals(file, [...names, MetricNames.registrations], window);
    for (const name of names) counters[name] = (counters[name] ?? 0) + totals[name];
    registrationsByProcess.push(totals[MetricNames.registrations]);
  }
  return { counters, registrationsByProcess };
}

/** The manifest content items the tenant holds: one per binary. */
async function manifestItemsOf(tenant: string): Promise<number> {
  const documents = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: stack.backends.env[AwsEndpointEnvNames.dynamodb],
      region: localAwsEnv.AWS_REGION,
      credentials: {
        accessKeyId: localAwsEnv.AWS_ACCESS_KEY_ID,
        secretAccessKey: localAwsEnv.AWS_SECRET_ACCESS_KEY,
      },
    }),
  );
  const { pk } = Keys.manifest(tenant, "");
  const { Count = 0 } = await documents.send(
    new QueryCommand({
      TableName: stack.backends.env[EnvNames.tableName],
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": pk },
      Select: "COUNT",
    }),
  );
  documents.destroy();
  return Count;
}

type Summary = { count: number; p50: number; p95: number; p99: number; max: number };

function printFigures(figures: Record<string, unknown>) {
  const f = figures as {
    dialect: string;
    agents: number;
    arrivalSeconds: number;
    periodSeconds: number;
    seconds: number;
    describesAsked: number;
    latencies: Record<string, Summary>;
    errors: Record<string, Record<string, number>>;
    generator: Record<string, number>;
    beaconCounters: Record<string, number>;
    manifestItems: number;
    dynamoDbRequests: { total: number; byAction: Record<string, number> };
    kinesisRequests: number;
    backendMs: Record<string, { meanMs: number; maxMs: number }>;
    machine: { cores: number; cpu: string; node: string; loadAverage1m: { mean: number; max: number } };
    gatewayAndHandlerCpuSeconds: number;
    newAgents: {
      agents: number;
      cpuMsPerAgent: number;
      dynamoDbRequestsPerAgent: number;
      idleCpuMsPerSecond: number;
    };
    beaconProcesses: number;
    registrationsByProcess: number[];
    calibration: CalibratedMachine;
  };
  const ms = (value: number) => value.toFixed(0);
  console.log("");
  console.log(`machine: ${f.machine.cores} × ${f.machine.cpu}, Node ${f.machine.node}`);
  console.log(formatCalibration(f.calibration, readReference()));
  console.log(
    `herd: ${f.agents} ${f.dialect} agents arriving within ${f.arrivalSeconds} s (${Math.round(f.agents / f.arrivalSeconds)}/s), ` +
      `then heartbeating every ${f.periodSeconds} s; ${f.seconds.toFixed(1)} s in all`,
  );
  for (const [kind, summary] of Object.entries(f.latencies)) {
    if (summary.count === 0) continue;
    console.log(
      `${kind.padEnd(15)} ${String(summary.count).padStart(6)} requests, ms: p50 ${ms(summary.p50)}  p95 ${ms(summary.p95)}  p99 ${ms(summary.p99)}  max ${ms(summary.max)}, ` +
        `errors ${JSON.stringify(f.errors[kind])}`,
    );
  }
  console.log(`DESCRIBE MANIFEST asked: ${f.describesAsked}`);
  console.log(`manifest content items stored for the tenant: ${f.manifestItems}`);
  console.log(`Beacon's counters: ${JSON.stringify(f.beaconCounters)}`);
  console.log(
    `DynamoDB requests: ${f.dynamoDbRequests.total} ${JSON.stringify(f.dynamoDbRequests.byAction)}; Kinesis requests ${f.kinesisRequests}`,
  );
  console.log(
    `backends' answers, ms: ${Object.entries(f.backendMs)
      .map(
        ([action, { meanMs, maxMs }]) => `${action.replace(/^.*\./, "")} mean ${ms(meanMs)} max ${ms(maxMs)}`,
      )
      .join("; ")}`,
  );
  console.log(
    `CPU: gateway + handler ${f.gatewayAndHandlerCpuSeconds.toFixed(1)} s (${f.beaconProcesses > 1 ? `${f.beaconProcesses} processes, registering ${f.registrationsByProcess.join(" + ")} agents` : "one process"}); load generator ${f.generator.cpuSeconds?.toFixed(1)} s ` +
      `(event loop delay p99 ${f.generator.eventLoopDelayP99Ms?.toFixed(0)} ms, first heartbeats up to ${f.generator.startLatenessMaxMs?.toFixed(0)} ms late)`,
  );
  console.log(
    `CPU per new agent, handshake excluded: ${f.newAgents.cpuMsPerAgent.toFixed(2)} ms (gateway + handler, ` +
      `${f.newAgents.agents} ${f.dialect} agents registered after the herd over connections opened before, ` +
      `idle ${f.newAgents.idleCpuMsPerSecond.toFixed(1)} ms/s subtracted; ` +
      `${f.newAgents.dynamoDbRequestsPerAgent.toFixed(2)} DynamoDB requests each)`,
  );
  console.log(
    `load average (1 min) during the herd: mean ${f.machine.loadAverage1m.mean.toFixed(1)}, max ${f.machine.loadAverage1m.max.toFixed(1)}`,
  );
}
