/**
 * `npm run soak`: a fleet heartbeating at a steady rate for half an hour (or `--minutes`) against the local stack
 * as `npm start` runs it (started here on free ports, in a state folder of its own), with a fault every two
 * minutes, round robin, as faults happen to the backends: the Kinesis emulator's process frozen, Redis frozen,
 * DynamoDB Local frozen, each for 20 s (SIGSTOP, then SIGCONT). The agents are MiNiFi Java agents of the dev
 * fleet's client certificate, each over a mutual-TLS connection it keeps alive; a tenth more register during the
 * run, and every new agent answers the DESCRIBE MANIFEST its first heartbeat is asked with an ack. At the end it
 * reads the whole stream, the archive and the tenant's fleet history, prints the report (soak-report.ts) and exits
 * 1 when a figure is over its bound.
 */
import { writeFileSync } from "node:fs";
import { Agent } from "node:https";
import { cpus, loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { S3EventArchiveReader } from "../../functions/adapters/s3/event-archive-reader.js";
import { s3ObjectCalls } from "../../functions/adapters/s3/object-calls.js";
import { AgentAnswerBudget } from "../../functions/core/agent-requests/answer-budget.js";
import { AgentRoutes } from "../../functions/core/c2/routes.js";
import type { JsonObject } from "../../functions/core/json.js";
import { makeKinesisClient } from "../../functions/runtime/aws-clients/kinesis.js";
import { makeS3Client } from "../../functions/runtime/aws-clients/s3.js";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { javaAgentOf } from "../common/c2-examples.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { LocalStackNames, localAwsEnv } from "../local/backends.js";
import { DEV_TENANT } from "../local/certs.js";
import { consoleToken, ensureConsoleIssuer, LOCAL_ISSUER_DIR } from "../local/console-issuer.js";
import { FUNCTIONS_PROCESS_COMMAND } from "../local/functions-process.js";
import { type LocalStack, repositoryRoot, startLocalStack } from "../test-support/local-stack.js";
import { readWholeStream } from "../test-support/stream-reader.js";
import { clientTls, describeManifestsAsked, postAsAgent } from "./agent-client.js";
import { FLEET_CLASSES } from "./agent-fleet.js";
import { BACKEND_PROCESSES, namedDescendants, processNamer, residentBytes } from "./process-cpu.js";
import {
  type Answer,
  type AnswerKind,
  ackKey,
  boundChecks,
  clock,
  type FaultWindow,
  heartbeatKey,
  type MemorySample,
  reportLines,
  SOAK_BOUNDS,
  soakFigures,
} from "./soak-report.js";

const USAGE = `Usage: npm run soak -- [--minutes <n>] [--agents <n>] [--rate <n>] [--json <file>]

A fleet heartbeating at a steady rate against a local stack of its own, a backend fault every two minutes, then
the report: events accepted, on the stream, archived and counted, lost and duplicated, answers over their
budgets, and the processes' memory; exits 1 when a figure is over its bound.
  --minutes  how long the fleet runs (default 30; 6 injects each fault once)
  --agents   the fleet at the start (default 200); a tenth more register during the run
  --rate     heartbeats a second at the start (default 20): each agent heartbeats every agents/rate seconds
  --json     a file to write the figures, bounds and samples to, as JSON`;

const { values } = parseCommandLine(USAGE, {
  options: {
    minutes: { type: "string", default: "30" },
    agents: { type: "string", default: "200" },
    rate: { type: "string", default: "20" },
    json: { type: "string" },
  },
});
const minutes = Number(values.minutes);
const agentCount = Number(values.agents);
const rate = Number(values.rate);
if (!(minutes > 0) || !Number.isInteger(agentCount) || agentCount < 1 || !(rate > 0))
  exitWithUsage(USAGE, "--minutes and --rate are positive numbers, --agents a positive whole number");
const periodMs = Math.round((agentCount / rate) * 1000);
if (periodMs < 1_000)
  exitWithUsage(USAGE, "--rate may be at most --agents a second: agents heartbeat at most every second");

/** The share of the starting fleet that registers during the run, evenly spread over it. */
const JOINING_SHARE = 0.1;
/** A fault every this often, the first half of it into the run. */
const FAULT_EVERY_MS = 120_000;
/** How long a backend stays frozen. */
const FAULT_MS = 20_000;
/** After a fault, the time the stack is given to catch up: answers sent within it count in the fault's window. */
const RECOVERY_MS = 10_000;
/** An agent's HTTP client gives up on an answer after this long (MiNiFi Java's read timeout is of this order). */
const AGENT_TIMEOUT_MS = 60_000;
const MEMORY_SAMPLE_MS = 30_000;
/** While the stream, archive and history still change, they are read again this often. */
const SETTLE_POLL_MS = 10_000;
/** Unchanged for this long, they are taken as final: the sweeper relays held events every minute. */
const SETTLED_AFTER_MS = 150_000;

/** The processes of the stack by their command lines. */
const processNameOf = processNamer([
  // tsx's relay and the process it starts, which hosts the agent API and its gateway.
  [/scripts\/local\/start\.ts/, "Beacon (npm start)"],
  // The console API, the sweeper, the webhook dispatcher and the stream consumer (functions-process.ts).
  [FUNCTIONS_PROCESS_COMMAND, "Beacon functions"],
  ...BACKEND_PROCESSES,
  [/s3proxy/, "S3Proxy"],
  [/moto/, "moto"],
]);

/** The faults, round robin: each freezes the processes of one name, as a stalled host or a paused VM does. */
const FAULTS = [
  { fault: "Kinesis emulator frozen", process: "kinesalite" },
  // npm start runs one Redis, not a cluster: the fault freezes it, as a master that stops answering.
  { fault: "Redis frozen", process: "redis-server" },
  { fault: "DynamoDB Local frozen", process: "DynamoDB Local" },
] as const;

const log = (line: string) => console.log(`soak: ${line}`);
const pidsOf = (name: string) =>
  namedDescendants(process.pid, processNameOf)
    .filter((named) => named.name === name)
    .map(({ stat }) => stat.pid);

log(`starting the local stack (npm start on free ports)`);
// The agent API keeps to the answer budget agents get on AWS, DynamoDB's share included: a frozen table is the
// fault the soak injects, not DynamoDB Local's pauses, which the local stack's longer share is for.
const stack = await startLocalStack("soak", {
  env: { [EnvNames.agentStorageShareMs]: String(AgentAnswerBudget.storageMs) },
});
const frozen = new Set<number>();
const thaw = () => {
  for (const pid of frozen) process.kill(pid, "SIGCONT");
  frozen.clear();
};
let exitCode = 1;
try {
  exitCode = await soak(stack);
} finally {
  thaw();
  await stack.stop();
}
process.exit(exitCode);

async function soak(stack: LocalStack): Promise<number> {
  const tls = clientTls(`${repositoryRoot}.beacon/certs`, "dev-fleet");
  const gatewayUrl = `https://127.0.0.1:${stack.ports.agent}`;
  const heartbeatUrl = new URL(AgentRoutes.heartbeat.path, gatewayUrl);
  const ackUrl = new URL(AgentRoutes.acknowledge.path, gatewayUrl);
  const startedAt = Date.now();
  const endAt = startedAt + minutes * 60_000;
  const joining = Math.ceil(agentCount * JOINING_SHARE);
  log(
    `${agentCount} agents heartbeating every ${periodMs / 1000} s (${rate}/s) for ${minutes} min, ` +
      `${joining} more registering meanwhile; a fault every ${FAULT_EVERY_MS / 60_000} min`,
  );

  const answers: Answer[] = [];
  const post = async (kind: AnswerKind, key: string, url: URL, body: JsonObject, connection: Agent) => {
    const sentAt = Date.now();
    try {
      const reply = await postAsAgent(url, [Buffer.from(JSON.stringify(body))], {
        agent: connection,
        tls,
        timeoutMs: AGENT_TIMEOUT_MS,
      });
      answers.push({ kind, key, sentAt, ms: reply.ms, status: reply.status });
      return reply;
    } catch (error) {
      const status = (error as NodeJS.ErrnoException).code ?? "connection";
      answers.push({ kind, key, sentAt, ms: Date.now() - sentAt, status });
      return undefined;
    }
  };

  /** One agent from `firstAt` to the end: a heartbeat every period, each advancing its uptime, its acks asked. */
  const runAgent = async (index: number, firstAt: number) => {
    const agentId = `soak-${String(index).padStart(5, "0")}`;
    const varied = javaAgentOf(
      agentId,
      FLEET_CLASSES[index % FLEET_CLASSES.length] as string,
      String(periodMs),
    );
    const connection = new Agent({ keepAlive: true, maxSockets: 1, ...tls });
    for (let beat = 1, at = firstAt; at < endAt; beat++, at += periodMs) {
      await sleep(at - Date.now());
      const heartbeat = varied.light();
      const agentInfo = heartbeat.agentInfo as JsonObject;
      const uptime = beat * periodMs;
      agentInfo.status = { ...(agentInfo.status as JsonObject), uptime };
      const reply = await post(
        "heartbeat",
        heartbeatKey(agentId, uptime),
        heartbeatUrl,
        heartbeat,
        connection,
      );
      for (const identifier of reply ? describeManifestsAsked(reply) : [])
        await post("ack", ackKey(agentId, identifier), ackUrl, varied.describeAck(identifier), connection);
    }
    connection.destroy();
  };

  const faults: FaultWindow[] = [];
  const injectFaults = async () => {
    for (let turn = 0; ; turn++) {
      const at = startedAt + FAULT_EVERY_MS / 2 + turn * FAULT_EVERY_MS;
      if (at + FAULT_MS + RECOVERY_MS > endAt) return;
      await sleep(at - Date.now());
      const { fault, process: name } = FAULTS[turn % FAULTS.length] as (typeof FAULTS)[number];
      const pids = pidsOf(name);
      if (pids.length === 0) throw new Error(`no ${name} process to freeze`);
      const from = Date.now();
      for (const pid of pids) {
        process.kill(pid, "SIGSTOP");
        frozen.add(pid);
      }
      log(`${clock(from - startedAt)} ${fault} (pid ${pids.join(", ")}) for ${FAULT_MS / 1000} s`);
      await sleep(FAULT_MS);
      thaw();
      faults.push({ fault, from, to: Date.now() + RECOVERY_MS });
    }
  };

  const memory: MemorySample[] = [];
  const loadAverages: number[] = [];
  const sampleMemory = () => {
    const bytes: Record<string, number> = {};
    for (const { name, stat } of namedDescendants(process.pid, processNameOf))
      bytes[name] = (bytes[name] ?? 0) + residentBytes(stat.pid);
    memory.push({ at: Date.now(), bytes });
    loadAverages.push(loadavg()[0] as number);
  };
  sampleMemory();
  const sampler = setInterval(sampleMemory, MEMORY_SAMPLE_MS);
  const progress = setInterval(
    () =>
      log(
        `${clock(Date.now() - startedAt)} ${answers.length} answers, ` +
          `${answers.filter(({ status }) => status !== 200).length} not 200`,
      ),
    FAULT_EVERY_MS / 2,
  );
  try {
    await Promise.all([
      injectFaults(),
      ...Array.from({ length: agentCount }, (_, index) =>
        runAgent(index, startedAt + (index * periodMs) / agentCount),
      ),
      ...Array.from({ length: joining }, (_, index) =>
        runAgent(agentCount + index, startedAt + ((index + 1) * (endAt - startedAt)) / (joining + 1)),
      ),
    ]);
  } finally {
    clearInterval(sampler);
    clearInterval(progress);
  }
  sampleMemory();

  log("the fleet stopped; reading the stream, the archive and the fleet history until they settle");
  const outcome = await settledOutcome(stack, startedAt, answers, faults, memory);
  const figures = soakFigures(outcome);
  const checks = boundChecks(figures);
  const machine = {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? "unknown CPU",
    node: process.version,
    loadAverage1m: {
      mean: loadAverages.reduce((sum, value) => sum + value, 0) / loadAverages.length,
      max: Math.max(...loadAverages),
    },
  };
  console.log("");
  console.log(`machine: ${machine.cores} × ${machine.cpu}, Node ${machine.node}`);
  console.log(
    `soak: ${minutes} min, ${agentCount} + ${joining} agents every ${periodMs / 1000} s, ${faults.length} faults ` +
      `of ${FAULT_MS / 1000} s (windows include ${RECOVERY_MS / 1000} s after); load average (1 min) mean ` +
      `${machine.loadAverage1m.mean.toFixed(1)}, max ${machine.loadAverage1m.max.toFixed(1)}`,
  );
  for (const line of reportLines(figures, memory, checks)) console.log(line);
  if (values.json) {
    writeFileSync(
      values.json,
      `${JSON.stringify(
        {
          options: { minutes, agents: agentCount, joining, rate, periodMs },
          machine,
          bounds: SOAK_BOUNDS,
          figures,
          checks,
          faults,
          memory,
        },
        null,
        2,
      )}\n`,
    );
    log(`figures written to ${values.json}`);
  }
  return checks.every(({ within }) => within) ? 0 : 1;
}

/**
 * The stream, the archive and the fleet history read until what they hold accounts for every accepted event, or
 * stops changing: the stream consumer reads behind the stream, and the sweeper relays events held in the cache.
 */
async function settledOutcome(
  stack: LocalStack,
  startedAt: number,
  answers: Answer[],
  faults: FaultWindow[],
  memory: MemorySample[],
) {
  const env = {
    ...localAwsEnv,
    [AwsEndpointEnvNames.kinesis]: `http://127.0.0.1:${stack.ports.kinesis}`,
    [AwsEndpointEnvNames.s3]: `http://127.0.0.1:${stack.ports.s3}`,
  };
  const kinesis = makeKinesisClient(env);
  const s3 = makeS3Client(env);
  const archiveReader = new S3EventArchiveReader(s3ObjectCalls(s3, LocalStackNames.archiveBucket));
  const token = await consoleToken(await ensureConsoleIssuer(LOCAL_ISSUER_DIR), {
    tenant: DEV_TENANT,
    role: "viewer",
  });
  const historyHeartbeats = async () => {
    const from = Math.floor(startedAt / 60_000) * 60_000 - 60_000;
    const to = Math.ceil(Date.now() / 60_000) * 60_000 + 60_000;
    const query = new URLSearchParams({
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      step: String((to - from) / 1000),
    });
    const response = await fetch(`http://127.0.0.1:${stack.ports.console}/api/v1/fleet/history?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!response.ok)
      throw new Error(`the fleet history answered ${response.status}: ${await response.text()}`);
    const { points } = (await response.json()) as { points: { heartbeats: number }[] };
    return points.reduce((sum, point) => sum + point.heartbeats, 0);
  };
  try {
    let last = "";
    let changedAt = Date.now();
    for (;;) {
      const archive: unknown[] = [];
      for await (const event of archiveReader.eventsUnder("events/")) archive.push(event);
      const outcome = {
        answers,
        stream: await readWholeStream(kinesis, LocalStackNames.streamName),
        archive,
        historyHeartbeats: await historyHeartbeats(),
        faults,
        memory,
        startedAt,
      };
      const figures = soakFigures(outcome);
      const held = [figures.onStream.records, figures.archived, figures.historyHeartbeats];
      log(`stream ${held[0]} records, archive ${held[1]} accepted events, history ${held[2]} heartbeats`);
      if (figures.lost === 0 && figures.notArchived === 0 && figures.historyShort === 0) return outcome;
      if (JSON.stringify(held) !== last) {
        last = JSON.stringify(held);
        changedAt = Date.now();
      } else if (Date.now() - changedAt >= SETTLED_AFTER_MS) return outcome;
      await sleep(SETTLE_POLL_MS);
    }
  } finally {
    kinesis.destroy();
    s3.destroy();
  }
}
