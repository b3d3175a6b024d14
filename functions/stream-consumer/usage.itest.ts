/**
 * Usage metered exactly once on the local stack. Agents heartbeat and acknowledge through the real agent API
 * onto a kinesalite stream of this file's own, an operator queues an operation, and a relay's copy of one
 * heartbeat goes on the stream again; the real stream consumer handler is then given the shard as Lambda
 * could give it: a batch a consumer fails partway, delivered again from the first record not taken, the whole
 * batch retried, and a bisected half again. GET /usage answers, from DynamoDB Local, what the agents were told,
 * and the bytes of their requests (some gzipped) and replies exactly. An agent downloading an asset twice is
 * counted twice, its bytes to the byte, however often the stream delivers the download's event, and so is each
 * link to an asset an operator is granted; a debug bundle an agent uploads through the streaming intake is
 * counted once, its bytes as received, and an upload refused not at all.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { KinesisStreamEvent } from "aws-lambda";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { cppAckOf, cppHeartbeatOf } from "../../scripts/common/c2-examples.js";
import { openTemporaryFunctionLog } from "../../scripts/local/function-logs.js";
import { invoker } from "../../scripts/local/lambda-runtime.js";
import { provisionBucket, provisionStream } from "../../scripts/local/provision.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { agentAwaitingBundle, uploadBundle } from "../../scripts/test-support/debug-bundles.js";
import { readShardRecords, wholeShardBatch } from "../../scripts/test-support/stream-reader.js";
import { KinesisEventSink } from "../adapters/kinesis/event-sink.js";
import { S3AssetContent } from "../adapters/s3/asset-content.js";
import { PartlyConsumed } from "../core/events/consumption.js";
import { type BeaconEvent, resentOf } from "../core/events/model.js";
import type { EventConsumer } from "../core/events/ports.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { makeS3Client } from "../runtime/aws-clients/s3.js";
import { historyConsumerConfig, streamConsumerConfig, webhookDeliveryConfig } from "../shared/config.js";
import { EnvNames } from "../shared/env-names.js";
import { FunctionTimeouts } from "../shared/function-timeouts.js";
import { functionLogger } from "../shared/observability.js";
import { makeStreamHandler } from "./batch.js";
import { composeStreamConsumers } from "./composition.js";

const HEARTBEAT = "/c2/api/heartbeat";
const ACKNOWLEDGE = "/c2/api/acknowledge";
const ROUNDS = 4;
const suffix = randomUUID().slice(0, 8);
const streamName = `usage-${suffix}`;
const archiveBucket = `usage-${suffix}`;
const tenant = `usage-${suffix}`;
const agentIds = ["pump-1", "pump-2", "pump-3"].map((name) => `${tenant}-${name}`);
const backends = inject("beaconEnv");
const kinesis = makeKinesisClient(backends);
const s3 = makeS3Client(backends);
const consumerLog = openTemporaryFunctionLog();
let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let consumers: ReturnType<typeof composeStreamConsumers> | undefined;

beforeAll(async () => {
  const env = { ...backends, [EnvNames.streamName]: streamName, [EnvNames.archiveBucket]: archiveBucket };
  await Promise.all([provisionStream(kinesis, streamName), provisionBucket(s3, archiveBucket)]);
  agentApi = await startAgentApi({ [EnvNames.streamName]: streamName });
  consoleApi = await startConsoleApi(agentApi, { [EnvNames.streamName]: streamName });
  // The composition makes its clients from the environment, as on Lambda.
  Object.assign(process.env, env);
  consumers = composeStreamConsumers(
    streamConsumerConfig(env),
    historyConsumerConfig(env),
    webhookDeliveryConfig(env),
  );
}, 120_000);

afterAll(async () => {
  await consumers?.close();
  await consoleApi?.close();
  await agentApi?.close();
  kinesis.destroy();
  s3.destroy();
  consumerLog.close();
});

/** The real handler over the stream consumer's consumers and `more`, invoked as Lambda invokes it. */
const handlerWith = (more: EventConsumer[] = []) =>
  invoker(
    { name: "stream-consumer", timeoutSeconds: FunctionTimeouts.streamConsumer },
    consumerLog.log,
    makeStreamHandler([...(consumers?.consumers ?? []), ...more], consumers?.kept as never, functionLogger()),
  );

/** The batch's records from the one with `sequenceNumber` on: what Lambda delivers again after a failure. */
const from = (batch: KinesisStreamEvent, sequenceNumber: string): KinesisStreamEvent => ({
  Records: batch.Records.slice(
    batch.Records.findIndex((record) => record.kinesis.sequenceNumber === sequenceNumber),
  ),
});

/** Every event on the stream so far. */
const onStream = async () =>
  (await readShardRecords(kinesis, streamName)).map((record) => record.data as BeaconEvent);

/** A relay's copy of `copied` put on the stream after it: the whole shard, as a batch, then holds both. */
async function shardWithCopyOf(copied: BeaconEvent): Promise<KinesisStreamEvent> {
  await new KinesisEventSink(kinesis, streamName).publish([resentOf(copied)]);
  return wholeShardBatch(kinesis, streamName);
}

/** GET /usage with the token, from `startedAt` to now. */
const usageSince = (startedAt: number, token: string) =>
  consoleApi.request(
    "GET",
    `/api/v1/usage?from=${new Date(startedAt).toISOString()}&to=${new Date(Date.now() + 1).toISOString()}`,
    { token },
  );

/** A body's size as the harness sends it: its JSON, gzipped when asked. */
const wireBytes = (body: unknown, gzip: boolean): number => {
  const text = JSON.stringify(body);
  return gzip ? gzipSync(text).length : Buffer.byteLength(text);
};

it("counts each heartbeat, acknowledgement, operation, byte and agent once however often the stream delivers it", async () => {
  const fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  const admin = await consoleApi.token({ tenant, role: "admin" });
  const startedAt = Date.now();
  let heartbeats = 0;
  const bytes = { in: 0, out: 0 };
  /** A heartbeat, the agent's first with its manifest, so that Beacon knows what it can take. */
  const beat = async (agentId: string, full = false) => {
    const body = cppHeartbeatOf(agentId, "pumps", full);
    // Every other heartbeat compressed, as agents may send them: bytes in are what came over the wire.
    const gzip = heartbeats % 2 === 1;
    const response = await agentApi.post(HEARTBEAT, body, { certificate: fleet, gzip });
    expect(response.status, response.body).toBe(200);
    heartbeats++;
    bytes.in += wireBytes(body, gzip);
    bytes.out += Buffer.byteLength(response.body);
    return response;
  };
  for (let round = 0; round < ROUNDS; round++)
    for (const agentId of agentIds) await beat(agentId, round === 0);
  const queued = await consoleApi.request("POST", "/api/v1/operations", {
    token: admin,
    body: { agentId: agentIds[0], operation: "DESCRIBE", operand: "CONFIGURATION" },
  });
  expect(queued.status, queued.body).toBe(201);
  const reply = await beat(agentIds[0] as string);
  const sent = reply.json().requestedOperations as { identifier: string }[] | undefined;
  const operationId = sent?.[0]?.identifier as string;
  expect(operationId, reply.body).toBeDefined();
  const ack = cppAckOf(agentIds[0] as string, operationId, "FULLY_APPLIED");
  const acknowledged = await agentApi.post(ACKNOWLEDGE, ack, { certificate: fleet });
  expect(acknowledged.status, acknowledged.body).toBe(200);
  bytes.in += wireBytes(ack, false);
  bytes.out += Buffer.byteLength(acknowledged.body);

  // A relay's copy of a heartbeat already on the stream: the same event, marked resent, at a later position.
  const before = await onStream();
  const batch = await shardWithCopyOf(before.find((event) => event.type === "heartbeat") as BeaconEvent);
  expect(batch.Records).toHaveLength(before.length + 1);

  // A consumer takes five records, then fails: Lambda delivers the batch again from the sixth.
  let failures = 0;
  const failsOnce: EventConsumer = {
    name: "fails-once",
    async consume() {
      if (failures++ === 0) throw new PartlyConsumed(5, { cause: new Error("throttled") });
    },
  };
  const handler = handlerWith([failsOnce]);
  const failed = await handler(batch);
  expect(failed.batchItemFailures).toHaveLength(batch.Records.length - 5);
  const resumeAt = failed.batchItemFailures[0]?.itemIdentifier as string;
  expect(await handler(from(batch, resumeAt))).toEqual({ batchItemFailures: [] });
  // The whole batch retried, and its first half again as a bisection would deliver it.
  expect(await handler(batch)).toEqual({ batchItemFailures: [] });
  expect(await handler({ Records: batch.Records.slice(0, Math.ceil(batch.Records.length / 2)) })).toEqual({
    batchItemFailures: [],
  });

  const usage = await usageSince(startedAt, admin);
  expect(usage.status, usage.body).toBe(200);
  expect(usage.json().totals).toEqual({
    activeAgents: agentIds.length,
    heartbeats,
    acknowledgements: 1,
    operations: 1,
    bytesIn: bytes.in,
    bytesOut: bytes.out,
    downloads: 0,
    downloadBytes: 0,
    uploads: 0,
    uploadBytes: 0,
  });
  const hours = usage.json().hours as { heartbeats: number }[];
  expect(hours.reduce((sum, hour) => sum + hour.heartbeats, 0)).toBe(heartbeats);

  const operator = await consoleApi.token({ tenant, role: "operator" });
  const refused = await consoleApi.request("GET", "/api/v1/usage", { token: operator });
  expect(refused.status).toBe(403);
  const other = await consoleApi.token({ tenant: `${tenant}-other`, role: "admin" });
  const elsewhere = await consoleApi.request("GET", "/api/v1/usage", { token: other });
  expect(elsewhere.json()).toMatchObject({ hours: [], totals: { heartbeats: 0, activeAgents: 0 } });
});

it("counts each asset download an agent makes, and its bytes, once however often the stream delivers it", async () => {
  const downloader = `${tenant}-downloads`;
  const agent = await agentApi.issueCertificate({ tenant: downloader, agentId: `${downloader}-pump-1` });
  const admin = await consoleApi.token({ tenant: downloader, role: "admin" });
  const startedAt = Date.now();
  const bytes = randomBytes(200_000);
  const assetId = createHash("sha256").update(bytes).digest("hex");
  const assets = new S3AssetContent(s3, agentApi.env[EnvNames.assetBucket] as string);
  await assets.put(downloader, assetId, bytes, "application/octet-stream");
  const path = `/c2/api/assets/${assetId}/content`;
  for (let download = 0; download < 2; download++) {
    const response = await agentApi.get(path, { certificate: agent });
    expect(response.status, response.body.slice(0, 200)).toBe(200);
    expect(response.bytes.equals(bytes)).toBe(true);
  }
  // An agent that holds the bytes already is sent none, and counts no download.
  const held = await agentApi.get(path, { certificate: agent, headers: { "if-none-match": `"${assetId}"` } });
  expect(held.status).toBe(304);

  // A relay's copy of the first download's event, and the shard delivered whole twice.
  const downloads = (await onStream()).filter(
    (event) => event.type === "download" && event.tenant === downloader,
  );
  expect(downloads).toHaveLength(2);
  const batch = await shardWithCopyOf(downloads[0] as BeaconEvent);
  const handler = handlerWith();
  expect(await handler(batch)).toEqual({ batchItemFailures: [] });
  expect(await handler(batch)).toEqual({ batchItemFailures: [] });

  const usage = await usageSince(startedAt, admin);
  expect(usage.status, usage.body).toBe(200);
  // Downloading is no heartbeat: the agent is not counted active for it.
  expect(usage.json().totals).toMatchObject({
    activeAgents: 0,
    heartbeats: 0,
    downloads: 2,
    downloadBytes: 2 * bytes.length,
  });
  const month = new Date(startedAt).toISOString().slice(0, 7);
  const statement = await consoleApi.request("GET", `/api/v1/usage/statement?month=${month}`, {
    token: admin,
  });
  expect(statement.status, statement.body).toBe(200);
  const line = (statement.json().lines as { unit: string; quantity: number }[]).find(
    (priced) => priced.unit === "downloadBytes",
  );
  expect(line?.quantity).toBe(2 * bytes.length);
});

it("counts each link to an asset an operator is granted as a download of the whole asset, once", async () => {
  const operatorTenant = `${tenant}-links`;
  const operator = await consoleApi.token({ tenant: operatorTenant, role: "operator" });
  const startedAt = Date.now();
  const bytes = randomBytes(150_000);
  const uploaded = await consoleApi.request("POST", "/api/v1/assets?name=model.bin", {
    token: operator,
    body: bytes,
    headers: { "content-type": "application/octet-stream" },
  });
  expect(uploaded.status, uploaded.body).toBe(201);
  const { assetId } = uploaded.json() as { assetId: string };
  for (let link = 0; link < 2; link++) {
    const granted = await consoleApi.request("GET", `/api/v1/assets/${assetId}/content?redirect=false`, {
      token: operator,
    });
    expect(granted.status, granted.body).toBe(200);
  }
  // A link refused (no such asset) counts nothing.
  const refused = await consoleApi.request("GET", `/api/v1/assets/${"0".repeat(64)}/content`, {
    token: operator,
  });
  expect(refused.status).toBe(404);

  const links = (await onStream()).filter(
    (event) => event.type === "download" && event.tenant === operatorTenant,
  );
  expect(links).toMatchObject([
    { what: "asset", bytesOut: bytes.length, link: true },
    { what: "asset", bytesOut: bytes.length, link: true },
  ]);
  expect(links[0]).not.toHaveProperty("agentId");
  const batch = await shardWithCopyOf(links[1] as BeaconEvent);
  expect(await handlerWith()(batch)).toEqual({ batchItemFailures: [] });

  const usage = await usageSince(
    startedAt,
    await consoleApi.token({ tenant: operatorTenant, role: "admin" }),
  );
  expect(usage.status, usage.body).toBe(200);
  expect(usage.json().totals).toMatchObject({ downloads: 2, downloadBytes: 2 * bytes.length });
});

it("counts a debug bundle an agent uploads, and its bytes, once however often the stream delivers it", async () => {
  const uploader = `${tenant}-uploads`;
  const fleet = await agentApi.issueCertificate({ tenant: uploader, fleet: true });
  const operator = await consoleApi.token({ tenant: uploader, role: "operator" });
  const startedAt = Date.now();
  const { agentId, uploadPath } = await agentAwaitingBundle(
    agentApi,
    consoleApi,
    { fleet, operator },
    `${uploader}-edge-1`,
  );
  const bundle = randomBytes(300_000);
  const uploaded = await uploadBundle(agentApi, uploadPath, bundle, fleet);
  expect(uploaded.status, uploaded.body).toBe(201);
  // An upload refused (the operation has its bundle) puts no event.
  const again = await uploadBundle(agentApi, uploadPath, bundle, fleet);
  expect(again.status, again.body).toBe(409);

  const uploads = (await onStream()).filter((event) => event.type === "upload" && event.tenant === uploader);
  expect(uploads).toMatchObject([{ agentId, what: "debugBundle", bytesIn: bundle.length }]);
  // A relay's copy of the upload's event, and the shard delivered whole twice.
  const batch = await shardWithCopyOf(uploads[0] as BeaconEvent);
  const handler = handlerWith();
  expect(await handler(batch)).toEqual({ batchItemFailures: [] });
  expect(await handler(batch)).toEqual({ batchItemFailures: [] });

  const usage = await usageSince(startedAt, await consoleApi.token({ tenant: uploader, role: "admin" }));
  expect(usage.status, usage.body).toBe(200);
  expect(usage.json().totals).toMatchObject({ uploads: 1, uploadBytes: bundle.length, downloads: 0 });
});
