/**
 * No heartbeat event lost through a stream outage and a stream consumer that dies mid-batch, as the archive's
 * integrity report (`npm run integrity`) counts them. Simulated agents heartbeat through the real agent API
 * onto a kinesalite of this file's own, which keeps its streams on disk. It is stopped: the agents' events
 * are held in the cache's buffer. It is started again on the same store, as when the stream recovers; the
 * sweeper's relay puts the held events on it, and the agents go on heartbeating onto it. The real stream consumer handler archives part of the shard's batch to S3Proxy and
 * its invocation dies; the batch is delivered again whole, split otherwise, so part of it is archived twice.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { KinesisStreamEvent } from "aws-lambda";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { S3EventArchive } from "../../functions/adapters/s3/event-archive.js";
import { S3EventArchiveReader } from "../../functions/adapters/s3/event-archive-reader.js";
import { s3ObjectCalls } from "../../functions/adapters/s3/object-calls.js";
import { makeArchiveConsumer } from "../../functions/core/archive/consumer.js";
import type { IntegrityReport } from "../../functions/core/archive/integrity.js";
import type { BeaconEvent } from "../../functions/core/events/model.js";
import type { EventConsumer } from "../../functions/core/events/ports.js";
import { makeKinesisClient } from "../../functions/runtime/aws-clients/kinesis.js";
import { makeS3Client } from "../../functions/runtime/aws-clients/s3.js";
import { sweeperConfig } from "../../functions/shared/config.js";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { FunctionTimeouts } from "../../functions/shared/function-timeouts.js";
import { functionLogger, MetricNames } from "../../functions/shared/observability.js";
import { makeStreamHandler } from "../../functions/stream-consumer/batch.js";
import { composeSweeper } from "../../functions/sweeper/composition.js";
import { cppHeartbeatOf } from "../common/c2-examples.js";
import type { ChildService } from "../local/child-service.js";
import { openTemporaryFunctionLog } from "../local/function-logs.js";
import { metricTotals } from "../local/function-metrics.js";
import { type KinesisEmulatorOptions, startKinesisEmulator } from "../local/kinesis-emulator.js";
import { invoker } from "../local/lambda-runtime.js";
import { findFreePort } from "../local/ports.js";
import { provisionBucket, provisionStream } from "../local/provision.js";
import { type AgentApiUnderTest, startAgentApi } from "../test-support/agent-api-harness.js";
import { wholeShardBatch } from "../test-support/stream-reader.js";

const run = promisify(execFile);
const suffix = randomUUID().slice(0, 8);
const streamName = `integrity-${suffix}`;
const tenant = `integrity-${suffix}`;
const agentIds = ["cpp-1", "cpp-2", "cpp-3", "cpp-4"];
const beatsBefore = 1;
const beatsWhileDown = 3;
const beatsAfter = 2;

const backends = inject("beaconEnv");
const s3 = makeS3Client(backends);
const functionLog = openTemporaryFunctionLog();
const stateDir = mkdtempSync(path.join(tmpdir(), "beacon-integrity-"));
let emulatorOptions: KinesisEmulatorOptions;
let emulator: ChildService | undefined;
let kinesis: ReturnType<typeof makeKinesisClient>;
let api: AgentApiUnderTest;
let fleet: string;

beforeAll(async () => {
  const port = await findFreePort();
  emulatorOptions = {
    emulator: "kinesalite",
    port,
    stateDir,
    clientEnv: backends,
    storePath: path.join(stateDir, "kinesalite"),
  };
  emulator = await startKinesisEmulator(emulatorOptions);
  const kinesisUrl = `http://127.0.0.1:${port}`;
  kinesis = makeKinesisClient({ ...backends, [AwsEndpointEnvNames.kinesis]: kinesisUrl });
  await provisionStream(kinesis, streamName);
  api = await startAgentApi({ [EnvNames.streamName]: streamName, [AwsEndpointEnvNames.kinesis]: kinesisUrl });
  fleet = await api.issueCertificate({ tenant, fleet: true });
}, 60_000);

afterAll(async () => {
  await api?.close();
  await emulator?.stop();
  kinesis?.destroy();
  s3.destroy();
  functionLog.close();
  rmSync(stateDir, { recursive: true, force: true });
});

/** Each agent's next heartbeat, its first one full (with its manifest), the others light. */
async function heartbeatAll(full: boolean) {
  for (const agentId of agentIds) {
    const response = await api.post("/c2/api/heartbeat", cppHeartbeatOf(agentId, "integrity", full), {
      certificate: fleet,
    });
    expect(response.status, response.body).toBe(200);
  }
}

/** `npm run integrity` over the bucket: its exit code and what it printed. */
async function integrity(bucket: string, from: number, to: number, ...options: string[]) {
  const args = ["tsx", "scripts/commands/integrity.ts", "--tenant", tenant, "--bucket", bucket, ...options];
  args.push("--from", new Date(from).toISOString(), "--to", new Date(to).toISOString());
  const env = { ...process.env, ...backends, [EnvNames.archiveBucket]: "" };
  return await run("npx", args, { env }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

/** `npm run integrity -- --json`: its exit code and its report. */
async function integrityReport(bucket: string, from: number, to: number) {
  const { code, stdout } = await integrity(bucket, from, to, "--json");
  return { code, report: JSON.parse(stdout) as IntegrityReport };
}

/** The stream consumer over `consumers`, telling copies by the archive in `bucket`. */
const handlerOver = (consumers: EventConsumer[], bucket: string) =>
  invoker(
    { name: "stream-consumer", timeoutSeconds: FunctionTimeouts.streamConsumer },
    functionLog.log,
    makeStreamHandler(consumers, new S3EventArchiveReader(s3ObjectCalls(s3, bucket)), functionLogger()),
  );

const heartbeatsIn = (batch: KinesisStreamEvent) =>
  batch.Records.map(
    (record) => JSON.parse(Buffer.from(record.kinesis.data, "base64").toString("utf8")) as BeaconEvent,
  ).filter((event) => event.type === "heartbeat");

const HOUR_MS = 3_600_000;
/** Longer than the test's heartbeats take to reach the batch, on a busy machine. */
const EVENTS_SPAN_MS = 60_000;

/**
 * Waits, when the next hour is near, until it has begun: the archive puts events into a folder per hour, so a
 * batch that crossed one would be two objects, and the first part's object in the earlier hour would be the
 * whole batch's there too (the same records, the same name), written again rather than copied.
 */
async function awayFromAnHourBoundary(): Promise<void> {
  const untilNextHour = HOUR_MS - (Date.now() % HOUR_MS);
  if (untilNextHour < EVENTS_SPAN_MS) await new Promise((resolve) => setTimeout(resolve, untilNextHour + 1));
}

it("archives every heartbeat event through a Kinesis outage and a consumer killed mid-batch: none lost, the copies counted", async () => {
  await awayFromAnHourBoundary();
  const from = Date.now();
  for (let beat = 0; beat < beatsBefore; beat++) await heartbeatAll(beat === 0);
  // The stream's emulator stops: the agents' heartbeats are answered, their events held.
  await emulator?.stop();
  const outage = Date.now();
  for (let beat = 0; beat < beatsWhileDown; beat++) await heartbeatAll(false);
  const held = await metricTotals(api.functionLog, [MetricNames.eventsHeld, MetricNames.eventsLost], {
    from: outage,
    to: Date.now(),
  });
  const sent = agentIds.length * (beatsBefore + beatsWhileDown + beatsAfter);
  expect(held).toEqual({
    [MetricNames.eventsHeld]: agentIds.length * beatsWhileDown,
    [MetricNames.eventsLost]: 0,
  });

  // It starts again on its store: the sweeper relays what was held, and the agents' next heartbeats go on it.
  emulator = await startKinesisEmulator(emulatorOptions);
  const sweeper = composeSweeper(sweeperConfig(api.env));
  let relayed = 0;
  try {
    for (let more = true; more; ) {
      const pass = await sweeper.relayHeld();
      relayed += pass.relayed;
      more = pass.more;
    }
  } finally {
    await sweeper.close();
  }
  expect(relayed).toBe(agentIds.length * beatsWhileDown);
  for (let beat = 0; beat < beatsAfter; beat++) await heartbeatAll(false);

  const batch = await wholeShardBatch(kinesis, streamName);
  expect(heartbeatsIn(batch)).toHaveLength(sent);

  // The consumer archives the first part of a batch, and its invocation dies before it returns.
  const bucket = `integrity-${suffix}`;
  await provisionBucket(s3, bucket);
  const archive = makeArchiveConsumer(new S3EventArchive(s3ObjectCalls(s3, bucket)));
  const killed: EventConsumer = {
    name: "killed-mid-batch",
    async consume() {
      throw new Error("the stream consumer's invocation died");
    },
  };
  const firstPart = { Records: batch.Records.slice(0, 7) };
  await expect(handlerOver([archive, killed], bucket)(firstPart)).rejects.toThrow(
    /All records failed processing/,
  );
  // Delivered again, split otherwise: the whole batch, whose object has another name than the first part's.
  expect(await handlerOver([archive], bucket)(batch)).toEqual({ batchItemFailures: [] });

  const { code, report } = await integrityReport(bucket, from, Date.now() + 1);
  expect(report.totals).toEqual({
    expected: sent,
    received: sent,
    lost: 0,
    duplicated: heartbeatsIn(firstPart).length,
    unsequenced: 0,
    runs: agentIds.length,
  });
  expect(report.agents.map((agent) => [agent.agentId, agent.expected, agent.lost])).toEqual(
    agentIds.map((agentId) => [agentId, beatsBefore + beatsWhileDown + beatsAfter, 0]),
  );
  expect(code).toBe(0);

  // Had the first part been all the archive kept, the report would show the rest lost, and fail.
  const partial = `integrity-partial-${suffix}`;
  await provisionBucket(s3, partial);
  await handlerOver(
    [makeArchiveConsumer(new S3EventArchive(s3ObjectCalls(s3, partial)))],
    partial,
  )({
    Records: [...batch.Records.slice(0, 7), ...batch.Records.slice(-agentIds.length)],
  });
  // Each agent's first heartbeat and last, and three agents' second: 11 of 24, the 13 between them lost.
  const lossy = await integrityReport(partial, from, Date.now() + 1);
  expect(lossy.report.totals).toMatchObject({ expected: sent, received: 11, lost: 13, duplicated: 0 });
  expect(lossy.code).toBe(1);
  const printed = await integrity(partial, from, Date.now() + 1);
  expect(printed.code).toBe(1);
  expect(printed.stdout).toMatch(/^total\s+24\s+11\s+13\s+0\s+0\s+4$/m);
  expect(printed.stdout).toContain("lost: cpp-4 run 1, sequence 2..5");
}, 180_000);
