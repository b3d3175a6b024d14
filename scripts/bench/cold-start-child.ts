/**
 * One cold start of a function, in a process of its own as Lambda starts one: it imports the function's
 * bundle (the init) and hands the handler one event (the first request), timing each and its CPU time, and
 * writes the figures and the handler's answer to the result file the job names. `npm run bench:cold-start`
 * bundles this file to plain JavaScript first, so that no TypeScript loader runs in the measured process.
 *
 *   node cold-start-child.mjs <job.json>
 */
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { Context } from "aws-lambda";

/** What the parent asks of one child. */
export interface ColdStartJob {
  bundle: string;
  functionName: string;
  timeoutSeconds: number;
  event: unknown;
  resultFile: string;
}

/** What one child measured: wall-clock and CPU milliseconds of the init and of the first request. */
export interface ColdStartSample {
  /** The Node.js version the process ran. */
  node: string;
  initMs: number;
  initCpuMs: number;
  firstRequestMs: number;
  firstRequestCpuMs: number;
  /**
   * How long the process's main thread was ready to run but waited for a core, in the init and in the first
   * request: what the machine's other work adds, where Linux says (/proc/self/schedstat); undefined elsewhere.
   */
  initQueuedMs?: number;
  firstRequestQueuedMs?: number;
  /** The handler's answer, or its error's message. */
  answer?: unknown;
  error?: string;
}

type FunctionModule = { handler(event: unknown, context: Context): Promise<unknown> };

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1_000;
};

/** The main thread's time so far waiting for a core, in ms; undefined where the kernel does not keep it. */
function queuedMs(): number | undefined {
  try {
    const waitedNs = Number(readFileSync("/proc/self/schedstat", "utf8").split(" ")[1]);
    return Number.isFinite(waitedNs) ? waitedNs / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

const queuedMsSince = (start: number | undefined): number | undefined => {
  const now = queuedMs();
  return start === undefined || now === undefined ? undefined : now - start;
};

function contextOf(job: ColdStartJob): Context {
  const deadline = Date.now() + job.timeoutSeconds * 1_000;
  const unsupported = () => {
    throw new Error("async handlers only");
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: job.functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${job.functionName}`,
    memoryLimitInMB: "1024",
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${job.functionName}`,
    logStreamName: "cold-start",
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}

const job = JSON.parse(readFileSync(process.argv[2] as string, "utf8")) as ColdStartJob;
const initQueued = queuedMs();
const initCpu = process.cpuUsage();
const initStart = performance.now();
const loaded = (await import(pathToFileURL(job.bundle).href)) as FunctionModule;
const initMs = performance.now() - initStart;
const initCpuMs = cpuMsSince(initCpu);
const initQueuedMs = queuedMsSince(initQueued);

const context = contextOf(job);
const requestQueued = queuedMs();
const requestCpu = process.cpuUsage();
const requestStart = performance.now();
let outcome: Pick<ColdStartSample, "answer" | "error">;
try {
  outcome = { answer: await loaded.handler(job.event, context) };
} catch (error) {
  outcome = { error: String(error) };
}
const sample: ColdStartSample = {
  node: process.version,
  initMs,
  initCpuMs,
  firstRequestMs: performance.now() - requestStart,
  firstRequestCpuMs: cpuMsSince(requestCpu),
  initQueuedMs,
  firstRequestQueuedMs: queuedMsSince(requestQueued),
  ...outcome,
};
writeFileSync(job.resultFile, JSON.stringify(sample));
// Lambda freezes the environment here; the connections the function keeps for later requests stay open.
process.exit(0);
