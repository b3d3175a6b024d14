/**
 * The functions process comes up with the console's gateway and the local Lambda endpoint answering, stops when
 * told, and never outlives the process that started it: killed outright, its parent leaves nothing behind. Its
 * backends are ports nothing listens on: the functions load, the poller retries, and nothing here needs them.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { untilTrue } from "../test-support/until.js";
import { LocalStackNames, localAwsEnv } from "./backends.js";
import { ensureDevCertificates } from "./certs.js";
import {
  type FunctionsProcess,
  type FunctionsProcessOptions,
  startFunctionsProcess,
} from "./functions-process.js";
import { findFreePorts } from "./ports.js";

const dir = mkdtempSync(path.join(tmpdir(), "beacon-functions-process-"));
let options: FunctionsProcessOptions;
let functions: FunctionsProcess | undefined;

/** Whether the process runs: there, and not a zombie its new parent has yet to reap. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

beforeAll(async () => {
  const [dynamodb, redis, kinesis, s3, agent] = await findFreePorts(5);
  const env = {
    ...localAwsEnv,
    [AwsEndpointEnvNames.dynamodb]: `http://127.0.0.1:${dynamodb}`,
    [AwsEndpointEnvNames.kinesis]: `http://127.0.0.1:${kinesis}`,
    [AwsEndpointEnvNames.s3]: `http://127.0.0.1:${s3}`,
    [EnvNames.redisUrl]: `redis://127.0.0.1:${redis}`,
    [EnvNames.tableName]: LocalStackNames.tableName,
    [EnvNames.streamName]: LocalStackNames.streamName,
    [EnvNames.assetBucket]: LocalStackNames.assetBucket,
    [EnvNames.archiveBucket]: LocalStackNames.archiveBucket,
  };
  const certsDir = path.join(dir, "certs");
  await ensureDevCertificates(certsDir);
  options = {
    logFile: path.join(dir, "logs", "functions.jsonl"),
    terminalLevel: "error",
    functionsEnv: env,
    streamEnv: env,
    webhookEnv: {},
    certsDir,
    agentApiUrl: `https://127.0.0.1:${agent}`,
    consolePort: 0,
    lambdaPort: 0,
    issuerDir: path.join(dir, "console-issuer"),
  };
  functions = await startFunctionsProcess(options, () => {});
}, 120_000);

afterAll(async () => {
  await functions?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("serves the console's gateway and the local Lambda endpoint, and is gone once stopped", async () => {
  const running = functions as FunctionsProcess;
  const unsigned = await fetch(`${running.consoleUrl}/api/v1/agents`);
  expect(unsigned.status).toBe(401);
  const dryRun = await fetch(
    `${running.lambdaUrl}/2015-03-31/functions/${running.webhookDispatcherName}/invocations`,
    { method: "POST", headers: { "x-amz-invocation-type": "DryRun" } },
  );
  expect(dryRun.status).toBe(204);
  await running.stop();
  expect(alive(running.pid)).toBe(false);
  functions = undefined;
});

it("ends itself when the process that started it is killed outright", async () => {
  const moduleUrl = new URL("./functions-process.ts", import.meta.url).href;
  // A stand-in for `npm start`: starts the functions process, prints its pid, and waits to be killed.
  const parent = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `const { startFunctionsProcess } = await import(${JSON.stringify(moduleUrl)});
       const started = await startFunctionsProcess(JSON.parse(process.argv[1]), () => {});
       console.log(started.pid);
       setInterval(() => {}, 1000);`,
      JSON.stringify(options),
    ],
    { cwd: fileURLToPath(new URL("../../", import.meta.url)), stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: parent.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const pid = Number((await lines.next()).value);
  expect(alive(pid)).toBe(true);
  parent.kill("SIGKILL");
  await untilTrue("the functions process to end with its parent", () => !alive(pid));
}, 120_000);
