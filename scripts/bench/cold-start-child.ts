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
  /** The handler's answer, or its error's message. */
  answer?: unknown;
  error?: string;
}

type FunctionModule = { handler(event: unknown, context: Context): Promise<unknown> };

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1_000;
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
const initCpu = process.cpuUsage();
const initStart = performance.now();
const loaded = (await import(pathToFileURL(job.bundle).href)) as FunctionModule;
const initMs = performance.now() - initStart;
const initCpuMs = cpuMsSince(initCpu);

const context = contextOf(job);
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
  ...outcome,
};
writeFileSync(job.resultFile, JSON.stringify(sample));
// Lambda freezes the environment here; the connections the function keeps for later requests stay open.
process.exit(0);
