/**
 * Cold starts of every Beacon function, as Lambda meets them: each function bundled as a deployment bundles
 * it (function-bundles.ts), then, for each representative first request, fresh Node 22 processes
 * (cold-start-child.ts), each importing the bundle with the environment the local stack gives the function
 * and answering that one request against the real local backends. `npm run bench:cold-start`
 * (cold-start.ts) runs it on backends of its own; an integration test runs it small, so that it cannot rot.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import type { KinesisClient } from "@aws-sdk/client-kinesis";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { build } from "esbuild";
import { AgentRoutes } from "../../functions/core/c2/routes.js";
import { ConsoleClaims } from "../../functions/core/identity/principal.js";
import { makeKinesisClient } from "../../functions/runtime/aws-clients/kinesis.js";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { FunctionTimeouts } from "../../functions/shared/function-timeouts.js";
import { metricsNamespace } from "../../infra/lib/monitoring.js";
import { repositoryRoot } from "../../infra/lib/paths.js";
import {
  agentTrust,
  certificateSummary,
  ensureDevCertificates,
  issueClientCertificate,
} from "../local/certs.js";
import { kinesisStreamEventOf } from "../local/stream-poller.js";
import { scheduledEvent } from "../local/sweeper-timer.js";
import { readShardRecords } from "../test-support/stream-reader.js";
import type { ColdStartJob, ColdStartSample } from "./cold-start-child.js";
import {
  AGENT_API_BUNDLE_LIMIT_BYTES,
  bundleFunction,
  type FunctionBundle,
  functionNames,
} from "./function-bundles.js";
import { bundleSources, summarizeProfile } from "./profile.js";

/** A cold start's budget: the init and the first request within 300 ms at p99, for every function. */
export const COLD_START_BUDGET_MS = 300;
/** Records in the stream consumer's batch. */
const STREAM_BATCH_RECORDS = 5;
/** New agents the stream consumer's case registers at most, when no other case put its batch's events. */
const MAX_REGISTRATIONS_FOR_BATCH = 3 * STREAM_BATCH_RECORDS;
const CPP_EXAMPLES = path.join(repositoryRoot, "schemas/c2/examples/cpp");

export interface ColdStartOptions {
  /** The backends' environment (endpoints, names, credentials), as startBackends gives it. */
  env: Record<string, string>;
  /** A folder for the bundles, the certificates and the children's jobs; the caller removes it. */
  stateDir: string;
  /** Fresh processes per request measured. */
  runs: number;
  /**
   * Fresh processes per request run first, unmeasured, so that the local backends have compiled the paths the
   * request takes: DynamoDB Local's JVM answers a kind of query slower until its JIT has seen it often, where
   * AWS's services are never cold. Their wrong answers count as the measured ones' do.
   */
  warmUps: number;
  /** The functions to start; all by default. Every function is bundled and sized all the same. */
  functions?: string[];
  /** Whose agents the requests are about: the bench's own tenant. */
  tenant: string;
  /** A folder to write each process's CPU profile to (`--cpu-prof`), a folder per request. */
  profileDir?: string;
  log: (line: string) => void;
}

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** One figure's percentiles for the init, the first request and both together. */
export interface PhasePercentiles {
  initMs: Percentiles;
  firstRequestMs: Percentiles;
  totalMs: Percentiles;
}

export interface ColdStartCaseReport {
  functionName: string;
  request: string;
  samples: Omit<ColdStartSample, "answer">[];
  initMs: Percentiles;
  initCpuMs: Percentiles;
  firstRequestMs: Percentiles;
  firstRequestCpuMs: Percentiles;
  /** The init and the first request of each process, together: what the budget holds. */
  totalMs: Percentiles;
  /** Their CPU time together: what the machine's other work does not stretch. */
  totalCpuMs: Percentiles;
  /**
   * Where Linux says how long each process waited for a core: that wait, and the wall-clock time less it (the
   * function's own CPU and its waits on the backends), for the init, the first request and both.
   */
  queued?: PhasePercentiles;
  unqueued?: PhasePercentiles;
  /** With profileDir: where the first measured process spent its CPU time, by area and by function. */
  profile?: { byArea: string[]; byFunction: string[] };
  /** Answers that were not what the request must answer; none when every process answered it right. */
  wrongAnswers: string[];
}

export interface ColdStartReport {
  machine: { cpu: string; cores: number; node: string };
  /** 1, 5 and 15 minutes, before the first process and after the last. */
  load: { before: number[]; after: number[] };
  runs: number;
  warmUps: number;
  /** Each bundle's sizes (the sources it loads left out of the report). */
  bundles: Omit<FunctionBundle, "sourcesAtStart">[];
  cases: ColdStartCaseReport[];
}

/** One representative first request of a function. */
interface ColdStartCase {
  functionName: string;
  request: string;
  env: Record<string, string>;
  /** The event of run `run`: 0 for the one that prepares (unmeasured), then 1, 2, … for the warm-ups and the measured. */
  eventOf(run: number): unknown | Promise<unknown>;
  /** Run once first, unmeasured, to put in place what the request expects (a registered agent). */
  prepared?: boolean;
  /** Why `answer` is not what this request must answer; undefined when it is. */
  wrongIn(answer: unknown): string | undefined;
}

/** Starts a fresh process of the function's bundle on one event, profiled into `profileDir` if given. */
type StartFunction = (
  functionName: string,
  env: Record<string, string>,
  event: unknown,
  profileDir?: string,
) => Promise<ColdStartSample>;

export async function runColdStartBench(options: ColdStartOptions): Promise<ColdStartReport> {
  const { stateDir, log } = options;
  const bundlesDir = path.join(stateDir, "bundles");
  const bundles: FunctionBundle[] = [];
  for (const name of functionNames()) {
    bundles.push(await bundleFunction(name, bundlesDir));
    log(`bundled ${name}`);
  }
  const child = await bundleChild(stateDir);
  const bundleOf = (functionName: string) =>
    bundles.find(({ name }) => name === functionName) as FunctionBundle;
  const start: StartFunction = (functionName, env, event, profileDir) =>
    startCold(child, stateDir, {
      bundle: bundleOf(functionName).file,
      functionName,
      timeoutSeconds: timeoutOf(functionName),
      event,
      env,
      profileDir,
    });
  const cases = await coldStartCases(options, start);
  const loadBefore = loadavg();
  const reports: ColdStartCaseReport[] = [];
  // The cases run in order: the agent API's registrations come first, and the stream consumer reads their events.
  for (const coldStartCase of cases) {
    const bundle = bundleOf(coldStartCase.functionName);
    const profileDir =
      options.profileDir === undefined
        ? undefined
        : path.join(
            options.profileDir,
            `${coldStartCase.functionName}-${coldStartCase.request.replace(/\W+/g, "-")}`,
          );
    const run = async (index: number, profiled: boolean) =>
      start(
        coldStartCase.functionName,
        coldStartCase.env,
        await coldStartCase.eventOf(index),
        profiled ? profileDir : undefined,
      );
    if (coldStartCase.prepared) {
      const wrong = wrongAnswerOf(coldStartCase, await run(0, false));
      if (wrong)
        throw new Error(`${coldStartCase.functionName}: preparing ${coldStartCase.request}: ${wrong}`);
    }
    const warmUps: ColdStartSample[] = [];
    for (let index = 1; index <= options.warmUps; index++) warmUps.push(await run(index, false));
    const samples: ColdStartSample[] = [];
    for (let index = 1; index <= options.runs; index++)
      samples.push(await run(options.warmUps + index, true));
    reports.push({
      ...caseReport(coldStartCase, samples, warmUps),
      profile: profileDir === undefined ? undefined : firstProfileIn(profileDir, bundle.file),
    });
    log(`${coldStartCase.functionName} (${coldStartCase.request}): ${options.runs} cold starts measured`);
  }
  return {
    machine: {
      cpu: cpus()[0]?.model ?? "unknown CPU",
      cores: cpus().length,
      node: reports[0]?.samples[0]?.node ?? "not started",
    },
    load: { before: loadBefore, after: loadavg() },
    runs: options.runs,
    warmUps: options.warmUps,
    bundles: bundles.map(({ sourcesAtStart: _sources, ...sizes }) => sizes),
    cases: reports,
  };
}

/** The child's own code, bundled to plain JavaScript: no TypeScript loader in the measured process. */
async function bundleChild(stateDir: string): Promise<string> {
  const file = path.join(stateDir, "cold-start-child.mjs");
  await build({
    entryPoints: [path.join(repositoryRoot, "scripts/bench/cold-start-child.ts")],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    logLevel: "warning",
  });
  return file;
}

const WITH_NODE22 = path.join(repositoryRoot, "scripts/build/with-node22");

interface StartOptions extends Omit<ColdStartJob, "resultFile"> {
  env: Record<string, string>;
  /** Where the process writes its CPU profile, if anywhere. */
  profileDir?: string;
}

/** Starts one fresh Node 22 process on the job and waits for its figures. */
async function startCold(child: string, stateDir: string, options: StartOptions): Promise<ColdStartSample> {
  const { env, profileDir, ...rest } = options;
  const jobsDir = path.join(stateDir, "jobs");
  mkdirSync(jobsDir, { recursive: true });
  const id = randomUUID();
  const job: ColdStartJob = { ...rest, resultFile: path.join(jobsDir, `${id}.result.json`) };
  const jobFile = path.join(jobsDir, `${id}.json`);
  writeFileSync(jobFile, JSON.stringify(job));
  // Only what Lambda would give it: its own variables, and a PATH to find Node 22 on.
  const output: Buffer[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const profiling = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
    const running = spawn(WITH_NODE22, ["node", ...profiling, child, jobFile], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    running.stderr.on("data", (chunk: Buffer) => output.push(chunk));
    running.on("error", reject);
    running.on("exit", resolve);
  });
  if (code !== 0) {
    throw new Error(
      `${options.functionName}: the cold start exited ${code}:\n${Buffer.concat(output).toString("utf8").slice(-4_000)}`,
    );
  }
  return JSON.parse(readFileSync(job.resultFile, "utf8")) as ColdStartSample;
}

/**
 * Where the first process profiled into `dir` spent its CPU time (profiles are named by time, then pid), the
 * bundle's code named by the package or source file it came from, through the bundle's source map.
 */
function firstProfileIn(dir: string, bundle: string): { byArea: string[]; byFunction: string[] } | undefined {
  const [first] = readdirSync(dir)
    .filter((name) => name.endsWith(".cpuprofile"))
    .sort();
  return first === undefined
    ? undefined
    : summarizeProfile(JSON.parse(readFileSync(path.join(dir, first), "utf8")), bundleSources(bundle));
}

const timeoutOf = (functionName: string): number =>
  FunctionTimeouts[
    functionName.replace(/-(\w)/g, (_dash, letter: string) =>
      letter.toUpperCase(),
    ) as keyof typeof FunctionTimeouts
  ];

const wrongAnswerOf = (coldStartCase: ColdStartCase, sample: ColdStartSample): string | undefined =>
  sample.error === undefined ? coldStartCase.wrongIn(sample.answer) : `threw ${sample.error}`;

/** Nearest-rank percentiles. */
export function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN };
}

function phasePercentiles(
  samples: ColdStartSample[],
  init: (sample: ColdStartSample) => number,
  firstRequest: (sample: ColdStartSample) => number,
): PhasePercentiles {
  return {
    initMs: percentiles(samples.map(init)),
    firstRequestMs: percentiles(samples.map(firstRequest)),
    totalMs: percentiles(samples.map((sample) => init(sample) + firstRequest(sample))),
  };
}

function caseReport(
  coldStartCase: ColdStartCase,
  samples: ColdStartSample[],
  warmUps: ColdStartSample[],
): ColdStartCaseReport {
  const wall = phasePercentiles(
    samples,
    (sample) => sample.initMs,
    (sample) => sample.firstRequestMs,
  );
  const cpu = phasePercentiles(
    samples,
    (sample) => sample.initCpuMs,
    (sample) => sample.firstRequestCpuMs,
  );
  const queueKnown = samples.every(
    (sample) => sample.initQueuedMs !== undefined && sample.firstRequestQueuedMs !== undefined,
  );
  return {
    functionName: coldStartCase.functionName,
    request: coldStartCase.request,
    samples: samples.map(({ answer: _answer, ...figures }) => figures),
    ...wall,
    initCpuMs: cpu.initMs,
    firstRequestCpuMs: cpu.firstRequestMs,
    totalCpuMs: cpu.totalMs,
    ...(queueKnown && {
      queued: phasePercentiles(
        samples,
        (sample) => sample.initQueuedMs as number,
        (sample) => sample.firstRequestQueuedMs as number,
      ),
      unqueued: phasePercentiles(
        samples,
        (sample) => sample.initMs - (sample.initQueuedMs as number),
        (sample) => sample.firstRequestMs - (sample.firstRequestQueuedMs as number),
      ),
    }),
    wrongAnswers: [
      ...warmUps.flatMap((sample) => {
        const wrong = wrongAnswerOf(coldStartCase, sample);
        return wrong === undefined ? [] : `warming up: ${wrong}`;
      }),
      ...samples.flatMap((sample) => wrongAnswerOf(coldStartCase, sample) ?? []),
    ],
  };
}

/** What the budget refuses: each function over 300 ms at p99, and the agent API's bundle over 1.05 MB. */
export function budgetBreaches(report: ColdStartReport): string[] {
  const agentApi = report.bundles.find(({ name }) => name === "agent-api");
  return [
    ...report.cases
      .filter(({ totalMs }) => totalMs.p99 > COLD_START_BUDGET_MS)
      .map(
        ({ functionName, request, totalMs }) =>
          `${functionName} (${request}): init + first request p99 ${totalMs.p99.toFixed(0)} ms, over ${COLD_START_BUDGET_MS} ms`,
      ),
    ...(agentApi && agentApi.bytes > AGENT_API_BUNDLE_LIMIT_BYTES
      ? [
          `agent-api bundle ${agentApi.bytes.toLocaleString("en")} bytes, over ${AGENT_API_BUNDLE_LIMIT_BYTES.toLocaleString("en")}`,
        ]
      : []),
    ...report.cases.flatMap(({ functionName, request, wrongAnswers }) =>
      wrongAnswers.map((wrong) => `${functionName} (${request}) answered wrong: ${wrong}`),
    ),
  ];
}

/** The report as the benchmark prints it: the machine and its load first, as the figures depend on them. */
export function reportLines(report: ColdStartReport): string[] {
  const loads = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
  const kb = (bytes: number) => `${(bytes / 1_000).toFixed(0)} kB`;
  const ms = ({ p50, p95, p99, max }: Percentiles) =>
    [p50, p95, p99, max].map((value) => value.toFixed(0).padStart(5)).join(" ");
  const caseName = ({ functionName, request }: ColdStartCaseReport) => `${functionName} (${request})`;
  const width = Math.max(...report.cases.map((result) => caseName(result).length));
  const table = (title: string, figures: (result: ColdStartCaseReport) => PhasePercentiles) => [
    `  ${title.padEnd(width)}  ${["init", "first request", "init + first request"].map((heading) => heading.padEnd(23)).join("  ")}`.trimEnd(),
    ...report.cases.map((result) => {
      const { initMs, firstRequestMs, totalMs } = figures(result);
      return `  ${caseName(result).padEnd(width)}  ${[initMs, firstRequestMs, totalMs].map(ms).join("  ")}`;
    }),
  ];
  return [
    `machine: ${report.machine.cores} × ${report.machine.cpu}, Node ${report.machine.node}`,
    `load average (1, 5, 15 min): ${loads(report.load.before)} before the first process, ${loads(report.load.after)} after the last`,
    "bundles, what a cold start loads (minified; gzip) and chunks loaded on first use:",
    ...report.bundles.map(
      ({ name, bytes, gzipBytes, chunkBytes }) =>
        `  ${name.padEnd(20)} ${bytes.toLocaleString("en").padStart(10)} bytes (${kb(bytes)}; ${kb(gzipBytes)} gzip)${chunkBytes > 0 ? ` + ${kb(chunkBytes)} in chunks` : ""}`,
    ),
    `cold starts, ${report.runs} fresh processes each, after ${report.warmUps} unmeasured; ms as p50 p95 p99 max:`,
    ...table("wall-clock", (result) => result),
    ...table("CPU", (result) => ({
      initMs: result.initCpuMs,
      firstRequestMs: result.firstRequestCpuMs,
      totalMs: result.totalCpuMs,
    })),
    ...(report.cases.every((result) => result.queued && result.unqueued)
      ? [
          ...table("waiting for a core", ({ queued }) => queued as PhasePercentiles),
          ...table("wall-clock less that wait", ({ unqueued }) => unqueued as PhasePercentiles),
        ]
      : []),
    ...report.cases.flatMap((result) =>
      result.profile
        ? [
            `where ${caseName(result)} spent its CPU (the first process's profile), by area, then by function:`,
            ...result.profile.byArea.slice(0, 8).map((line) => `  ${line}`),
            ...result.profile.byFunction.slice(0, 8).map((line) => `  ${line}`),
          ]
        : [],
    ),
  ];
}

/** A heartbeat as API Gateway hands it to the agent API over mutual TLS: the body as the agent sent it. */
function heartbeatEvent(
  body: string,
  clientCert: ReturnType<typeof certificateSummary>,
): APIGatewayProxyEventV2 {
  const heartbeatPath = AgentRoutes.heartbeat.path;
  const now = new Date();
  return {
    version: "2.0",
    routeKey: `POST ${heartbeatPath}`,
    rawPath: heartbeatPath,
    rawQueryString: "",
    headers: { "content-type": "application/json", host: "agents.beacon.local", "user-agent": "minifi-cpp" },
    requestContext: {
      accountId: "000000000000",
      apiId: "beacon-agents",
      domainName: "agents.beacon.local",
      domainPrefix: "agents",
      http: {
        method: "POST",
        path: heartbeatPath,
        protocol: "HTTP/1.1",
        sourceIp: "127.0.0.1",
        userAgent: "minifi-cpp",
      },
      requestId: randomUUID(),
      routeKey: `POST ${heartbeatPath}`,
      stage: "$default",
      time: now.toISOString(),
      timeEpoch: now.getTime(),
      authentication: { clientCert },
    } as APIGatewayProxyEventV2["requestContext"],
    body,
    isBase64Encoded: false,
  };
}

/** The first page of the console's agent list, as the Agents page asks for it, from a viewer of `tenant`. */
function agentListEvent(tenant: string) {
  const now = new Date();
  return {
    version: "2.0",
    routeKey: "GET /api/v1/agents",
    rawPath: "/api/v1/agents",
    rawQueryString: "limit=50",
    queryStringParameters: { limit: "50" },
    headers: { host: "console.beacon.local" },
    requestContext: {
      accountId: "000000000000",
      apiId: "beacon-console",
      domainName: "console.beacon.local",
      domainPrefix: "console",
      http: {
        method: "GET",
        path: "/api/v1/agents",
        protocol: "HTTP/1.1",
        sourceIp: "127.0.0.1",
        userAgent: "bench",
      },
      requestId: randomUUID(),
      routeKey: "GET /api/v1/agents",
      stage: "$default",
      time: now.toISOString(),
      timeEpoch: now.getTime(),
      authorizer: {
        jwt: {
          claims: {
            [ConsoleClaims.tenant]: tenant,
            [ConsoleClaims.role]: "viewer",
            [ConsoleClaims.subject]: "bench",
          },
          scopes: null,
        },
      },
    },
    isBase64Encoded: false,
  };
}

/** A C++ example heartbeat as agent `agentId` sends it. */
function cppHeartbeat(example: "heartbeat-full" | "heartbeat-light", agentId: string): string {
  const template = readFileSync(path.join(CPP_EXAMPLES, `${example}.json`), "utf8");
  const templateId = (JSON.parse(template) as { agentInfo: { identifier: string } }).agentInfo.identifier;
  return template.replaceAll(templateId, agentId);
}

function httpAnswerWrong(answer: unknown, check: (body: Record<string, unknown>) => string | undefined) {
  const { statusCode, body } = (answer ?? {}) as APIGatewayProxyStructuredResultV2;
  if (statusCode !== 200) return `status ${statusCode}: ${String(body).slice(0, 300)}`;
  return check(JSON.parse(String(body)) as Record<string, unknown>);
}

const heartbeatAnswerWrong = (answer: unknown) =>
  httpAnswerWrong(answer, (body) =>
    Array.isArray(body.requestedOperations) ? undefined : "no requestedOperations in the heartbeat's answer",
  );

/**
 * A batch of the records the agent API put on the stream for `tenant`, from one shard: those of its cold starts
 * measured before, or, when there are too few (its cases not selected), of new agents that `registerAgent` has
 * it register first, one at a time. Each first heartbeat puts one event, which its process may end before the
 * stream took (as Lambda freezes a container once it has answered), hence the attempts to spare.
 */
async function streamBatchOf(
  env: Record<string, string>,
  tenant: string,
  registerAgent: () => Promise<void>,
) {
  const kinesis: KinesisClient = makeKinesisClient(env);
  try {
    const streamName = env[EnvNames.streamName] as string;
    const batchShardOf = async () => {
      const mine = (await readShardRecords(kinesis, streamName)).filter(
        (record) => (record.data as { tenant?: string }).tenant === tenant,
      );
      const shard = mine[0]?.shard;
      return mine.filter((record) => record.shard === shard).slice(0, STREAM_BATCH_RECORDS);
    };
    let records = await batchShardOf();
    for (
      let registered = 0;
      records.length < STREAM_BATCH_RECORDS && registered < MAX_REGISTRATIONS_FOR_BATCH;
      registered++
    ) {
      await registerAgent();
      records = await batchShardOf();
    }
    const shard = records[0]?.shard;
    if (shard === undefined || records.length < STREAM_BATCH_RECORDS)
      throw new Error(
        `${records.length} events of tenant ${tenant} on ${streamName}, not ${STREAM_BATCH_RECORDS}`,
      );
    const batch = records.map((record) => ({
      SequenceNumber: record.sequenceNumber,
      PartitionKey: tenant,
      Data: Buffer.from(JSON.stringify(record.data)),
    }));
    return kinesisStreamEventOf(`arn:aws:kinesis:us-east-1:000000000000:stream/${streamName}`, shard, batch);
  } finally {
    kinesis.destroy();
  }
}

/** The requests measured, each with the environment the local stack (scripts/local/start.ts) gives its function. */
async function coldStartCases(options: ColdStartOptions, start: StartFunction): Promise<ColdStartCase[]> {
  const { tenant, stateDir } = options;
  const certsDir = path.join(stateDir, "certs");
  await ensureDevCertificates(certsDir);
  const fleet = await issueClientCertificate(certsDir, { tenant, fleet: true });
  const clientCert = certificateSummary(readFileSync(fleet.certPath));
  const lambdaEnv = (functionName: string) => ({
    ...options.env,
    AWS_LAMBDA_FUNCTION_NAME: functionName,
    AWS_LAMBDA_INITIALIZATION_TYPE: "on-demand",
    POWERTOOLS_SERVICE_NAME: `${functionName}-bench`,
    POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
    POWERTOOLS_LOG_LEVEL: "INFO",
  });
  // No agent is sent to it, nor any webhook test: the URLs are named because the configuration asks for them.
  const unused = "https://127.0.0.1:1";
  const webhookEnv = { [EnvNames.webhookAllowedHosts]: "127.0.0.1,localhost" };
  const steadyAgent = `cold-steady-${randomUUID().slice(0, 8)}`;
  const agentApiEnv = {
    ...lambdaEnv("agent-api"),
    [EnvNames.agentApiUrl]: unused,
    [EnvNames.agentCaBindings]: JSON.stringify((await agentTrust(certsDir)).bindings),
  };
  /** A new agent registered by a fresh, unmeasured process of the agent API, for a case that needs one. */
  const registerNewAgent = async (forWhat: string) => {
    const newAgent = `cold-new-${randomUUID().slice(0, 8)}`;
    const sample = await start(
      "agent-api",
      agentApiEnv,
      heartbeatEvent(cppHeartbeat("heartbeat-full", newAgent), clientCert),
    );
    const wrong = sample.error ?? heartbeatAnswerWrong(sample.answer);
    if (wrong) throw new Error(`agent-api: registering ${newAgent} for ${forWhat}: ${wrong}`);
  };
  const cases: ColdStartCase[] = [
    {
      functionName: "agent-api",
      request: "steady heartbeat",
      env: agentApiEnv,
      prepared: true,
      eventOf: (run) =>
        heartbeatEvent(
          cppHeartbeat(run === 0 ? "heartbeat-full" : "heartbeat-light", steadyAgent),
          clientCert,
        ),
      wrongIn: heartbeatAnswerWrong,
    },
    {
      functionName: "agent-api",
      request: "first heartbeat",
      env: agentApiEnv,
      eventOf: (run) =>
        heartbeatEvent(
          cppHeartbeat("heartbeat-full", `cold-new-${run}-${randomUUID().slice(0, 8)}`),
          clientCert,
        ),
      wrongIn: heartbeatAnswerWrong,
    },
    {
      functionName: "console-api",
      request: "agent list page",
      env: {
        ...lambdaEnv("console-api"),
        ...webhookEnv,
        [EnvNames.agentCaDir]: certsDir,
        [EnvNames.agentApiUrl]: unused,
        [AwsEndpointEnvNames.lambda]: unused,
        [EnvNames.webhookTesterFunction]: "webhook-dispatcher",
      },
      // The list must hold an agent: one is registered first, should the agent API's cases not have run.
      prepared: true,
      eventOf: async (run) => {
        if (run === 0) await registerNewAgent("the console's agent list");
        return agentListEvent(tenant);
      },
      wrongIn: (answer) =>
        httpAnswerWrong(answer, ({ items }) =>
          Array.isArray(items) && items.length > 0 ? undefined : "no agent in the list",
        ),
    },
    {
      functionName: "sweeper",
      request: "scheduled run",
      env: { ...lambdaEnv("sweeper"), ...webhookEnv, [EnvNames.agentApiUrl]: unused },
      eventOf: () => scheduledEvent("sweeper"),
      wrongIn: (answer) => (answer === undefined ? undefined : `answered ${JSON.stringify(answer)}`),
    },
    {
      functionName: "stream-consumer",
      request: `batch of ${STREAM_BATCH_RECORDS} records`,
      env: { ...lambdaEnv("stream-consumer"), ...webhookEnv },
      eventOf: () =>
        streamBatchOf(options.env, tenant, () => registerNewAgent("the stream consumer's batch")),
      wrongIn: (answer) => {
        const failures = (answer as { batchItemFailures?: unknown[] } | undefined)?.batchItemFailures;
        return Array.isArray(failures) && failures.length === 0
          ? undefined
          : `batch item failures ${JSON.stringify(failures)}`;
      },
    },
    {
      functionName: "webhook-dispatcher",
      request: "scheduled run",
      env: { ...lambdaEnv("webhook-dispatcher"), ...webhookEnv },
      eventOf: () => scheduledEvent("webhook-dispatcher"),
      wrongIn: (answer) => (answer === undefined ? undefined : `answered ${JSON.stringify(answer)}`),
    },
  ];
  const wanted = options.functions;
  return wanted === undefined ? cases : cases.filter(({ functionName }) => wanted.includes(functionName));
}
