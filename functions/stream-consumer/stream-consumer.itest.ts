/**
 * The stream consumer on the local stack: agents heartbeat and acknowledge through the real agent API onto a
 * kinesalite stream of this file's own, the local poller feeds the real handler module from it, and the
 * archive in S3Proxy ends up with every event exactly once. The handler is then given batches directly: the
 * same batch again, records that are not events, and consumers that fail.
 */
import { randomUUID } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import type { KinesisStreamEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cppAckOf, cppHeartbeatOf } from "../../scripts/common/c2-examples.js";
import { openTemporaryFunctionLog } from "../../scripts/local/function-logs.js";
import { metricLines } from "../../scripts/local/function-metrics.js";
import { invoker } from "../../scripts/local/lambda-runtime.js";
import { provisionBucket, provisionStream } from "../../scripts/local/provision.js";
import { pollStream, startStreamPoller } from "../../scripts/local/stream-poller.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeat as javaHeartbeat } from "../../scripts/test-support/console-seed.js";
import { readWholeStream, wholeShardBatch } from "../../scripts/test-support/stream-reader.js";
import { until } from "../../scripts/test-support/until.js";
import { S3EventArchive } from "../adapters/s3/event-archive.js";
import { S3EventArchiveReader } from "../adapters/s3/event-archive-reader.js";
import { s3ObjectCalls } from "../adapters/s3/object-calls.js";
import { makeArchiveConsumer } from "../core/archive/consumer.js";
import { partitionOf, partitionPath } from "../core/archive/layout.js";
import { PartlyConsumed } from "../core/events/consumption.js";
import type { BeaconEvent } from "../core/events/model.js";
import type { EventConsumer, StreamRecord } from "../core/events/ports.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { makeS3Client } from "../runtime/aws-clients/s3.js";
import { EnvNames } from "../shared/env-names.js";
import { eventValidator } from "../shared/event-validators.js";
import { FunctionTimeouts } from "../shared/function-timeouts.js";
import { functionLogger } from "../shared/observability.js";
import { makeStreamHandler } from "./batch.js";

const HEARTBEAT = "/c2/api/heartbeat";
const ACKNOWLEDGE = "/c2/api/acknowledge";
const suffix = randomUUID().slice(0, 8);
const streamName = `archive-events-${suffix}`;
const archiveBucket = `archive-${suffix}`;
const tenant = `archive-${suffix}`;
/** Options a C++ agent acknowledges DESCRIBE CONFIGURATION with: every configured property but passwords. */
const configurationOptions = {
  "nifi.c2.rest.url": `https://c2.internal.example/${suffix}/heartbeat`,
  "nifi.security.client.certificate": `/etc/minifi/${suffix}-client.pem`,
  "nifi.c2.agent.identifier.token": `token-${suffix}-7f3a`,
};

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let stopPoller: () => Promise<void>;
const functionLog = openTemporaryFunctionLog();
const backends = inject("beaconEnv");
const kinesis = makeKinesisClient(backends);
const s3 = makeS3Client(backends);

/** Every object under `events/` of a bucket, by key, as the events its JSON lines hold. */
async function archived(bucket: string): Promise<Map<string, BeaconEvent[]>> {
  const objects = new Map<string, BeaconEvent[]>();
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: "events/", ContinuationToken: token }),
    );
    for (const { Key } of page.Contents ?? []) {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key }));
      const text = gunzipSync(await (object.Body?.transformToByteArray() ?? new Uint8Array())).toString();
      expect(text.endsWith("\n"), Key).toBe(true);
      objects.set(
        Key as string,
        text
          .trimEnd()
          .split("\n")
          .map((line) => JSON.parse(line) as BeaconEvent),
      );
    }
    token = page.NextContinuationToken;
  } while (token);
  return objects;
}

const eventIdsIn = (objects: Map<string, BeaconEvent[]>) =>
  [...objects.values()].flatMap((events) => events.map((event) => event.eventId));

/** A bucket of its own, for a handler under test that must not touch the poller's archive. */
async function freshBucket(): Promise<string> {
  const bucket = `archive-${randomUUID().slice(0, 8)}`;
  await provisionBucket(s3, bucket);
  return bucket;
}

/** The handler over `consumers`, invoked as Lambda invokes it, writing to `log`. */
const handlerOver = (consumers: EventConsumer[], log = functionLog.log) =>
  invoker(
    { name: "stream-consumer", timeoutSeconds: FunctionTimeouts.streamConsumer },
    log,
    makeStreamHandler(
      consumers,
      new S3EventArchiveReader(s3ObjectCalls(s3, archiveBucket)),
      functionLogger(),
    ),
  );

/** A record Lambda could deliver that holds no Beacon event. */
function withGarbageFirst(batch: KinesisStreamEvent): KinesisStreamEvent {
  const [first] = batch.Records;
  if (!first) throw new Error("empty batch");
  const garbage = {
    ...first,
    kinesis: {
      ...first.kinesis,
      // A sequence number below every other of the shard's.
      sequenceNumber: "1",
      data: Buffer.from("{not an event").toString("base64"),
    },
  };
  return { Records: [garbage, ...batch.Records] };
}

beforeAll(async () => {
  const env = { ...backends, [EnvNames.streamName]: streamName, [EnvNames.archiveBucket]: archiveBucket };
  await Promise.all([provisionStream(kinesis, streamName), provisionBucket(s3, archiveBucket)]);
  agentApi = await startAgentApi({ [EnvNames.streamName]: streamName });
  consoleApi = await startConsoleApi(agentApi, { [EnvNames.streamName]: streamName });
  stopPoller = await startStreamPoller(env, () => {}, functionLog.log, { idleMs: 200, retryMs: 200 });
});

afterAll(async () => {
  await stopPoller?.();
  await consoleApi?.close();
  await agentApi?.close();
  kinesis.destroy();
  s3.destroy();
  functionLog.close();
});

describe("the archive, fed from the stream by the local poller", () => {
  let describeConfigurationId: string;

  beforeAll(async () => {
    const fleet = await agentApi.issueCertificate({ tenant, fleet: true });
    const operator = await consoleApi.token({ tenant, role: "operator" });
    for (const agentId of ["cpp-1", "cpp-2"]) {
      const full = await agentApi.post(HEARTBEAT, cppHeartbeatOf(agentId, "archive-cpp", true), {
        certificate: fleet,
      });
      expect(full.status).toBe(200);
    }
    expect(await javaHeartbeat(agentApi, fleet, "java-1", "archive-java", `${tenant}-java`)).toBe(200);
    const queued = await consoleApi.request("POST", "/api/v1/operations", {
      token: operator,
      body: { agentId: "cpp-1", operation: "DESCRIBE", operand: "CONFIGURATION" },
    });
    expect(queued.status, queued.body).toBe(201);
    const reply = await agentApi.post(HEARTBEAT, cppHeartbeatOf("cpp-1", "archive-cpp"), {
      certificate: fleet,
    });
    const requested = reply.json().requestedOperations as { identifier: string; operand?: string }[];
    const describe = requested.find((operation) => operation.operand?.toUpperCase() === "CONFIGURATION");
    describeConfigurationId = describe?.identifier as string;
    expect(describeConfigurationId).toBeDefined();
    const ack = {
      ...cppAckOf("cpp-1", describeConfigurationId, "FULLY_APPLIED"),
      configuration_options: configurationOptions,
    };
    expect((await agentApi.post(ACKNOWLEDGE, ack, { certificate: fleet })).status).toBe(200);
    for (const agentId of ["cpp-1", "cpp-2"])
      await agentApi.post(HEARTBEAT, cppHeartbeatOf(agentId, "archive-cpp"), { certificate: fleet });
  });

  it("holds every event of the stream exactly once, as JSON lines of the event schemas, in its tenant's day and hour", async () => {
    const streamed = (await readWholeStream(kinesis, streamName)) as BeaconEvent[];
    expect(streamed.length).toBeGreaterThan(10);
    const objects = await until("the archive to hold every streamed event", async () => {
      const now = await archived(archiveBucket);
      return eventIdsIn(now).length >= streamed.length ? now : undefined;
    });
    expect(eventIdsIn(objects).sort()).toEqual(streamed.map((event) => event.eventId).sort());
    expect(new Set(streamed.map((event) => event.type))).toEqual(new Set(["heartbeat", "ack", "operation"]));
    for (const [key, events] of objects) {
      for (const event of events) {
        const validate = eventValidator(event);
        expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
        expect(key.startsWith(partitionPath(partitionOf(event))), key).toBe(true);
      }
      expect(key).toMatch(
        /^events\/tenant=[^/]+\/day=\d{4}-\d{2}-\d{2}\/hour=\d{2}\/shardId-\d+-\d+-\d+\.json\.gz$/,
      );
    }
  });

  it("keeps a C++ agent's DESCRIBE CONFIGURATION acknowledgement without any of the options it carried", async () => {
    const objects = await until("the acknowledgement in the archive", async () => {
      const now = await archived(archiveBucket);
      const acks = [...now.values()].flat().filter((event) => event.type === "ack");
      return acks.some((event) => event.operationId === describeConfigurationId) ? now : undefined;
    });
    const ack = [...objects.values()]
      .flat()
      .find((event) => event.type === "ack" && event.operationId === describeConfigurationId);
    expect(ack).toMatchObject({ type: "ack", agentId: "cpp-1", state: "FULLY_APPLIED", matched: true });
    const archiveText = JSON.stringify([...objects.values()]);
    for (const [name, value] of Object.entries(configurationOptions)) {
      expect(archiveText).not.toContain(value);
      expect(archiveText).not.toContain(name);
    }
    expect(archiveText).not.toContain("configuration_options");
  });
});

describe("the stream consumer's handler", () => {
  it("writes the same objects, and nothing more, when given the same batch again", async () => {
    const bucket = await freshBucket();
    const handler = handlerOver([makeArchiveConsumer(new S3EventArchive(s3ObjectCalls(s3, bucket)))]);
    const batch = await wholeShardBatch(kinesis, streamName);
    expect(await handler(batch)).toEqual({ batchItemFailures: [] });
    const first = await archived(bucket);
    expect(eventIdsIn(first)).toHaveLength(batch.Records.length);
    expect(await handler(batch)).toEqual({ batchItemFailures: [] });
    expect(await archived(bucket)).toEqual(first);
  });

  it("passes over a record that is no event, and reports a failing consumer's records from the first it did not take", async () => {
    const bucket = await freshBucket();
    const given: StreamRecord[][] = [];
    const takesTwo: EventConsumer = {
      name: "takes-two",
      async consume(records) {
        given.push(records);
        throw new PartlyConsumed(2, { cause: new Error("throttled") });
      },
    };
    const batch = withGarbageFirst(await wholeShardBatch(kinesis, streamName));
    const sequenceNumbers = batch.Records.map((record) => record.kinesis.sequenceNumber);
    const response = await handlerOver([
      makeArchiveConsumer(new S3EventArchive(s3ObjectCalls(s3, bucket))),
      takesTwo,
    ])(batch);
    // The garbage and the two records taken are done; Lambda resumes at the third event.
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(
      sequenceNumbers.slice(3),
    );
    expect(given).toHaveLength(1);
    expect(given[0]?.map((record) => record.position)).toEqual(sequenceNumbers.slice(1));
    expect(eventIdsIn(await archived(bucket))).toHaveLength(batch.Records.length - 1);
  });

  it("counts the heartbeat events it took, in one metric line a batch", async () => {
    const batchLog = openTemporaryFunctionLog();
    try {
      const takesThree: EventConsumer = {
        name: "takes-three",
        async consume() {
          throw new PartlyConsumed(3, { cause: new Error("throttled") });
        },
      };
      const batch = await wholeShardBatch(kinesis, streamName);
      const types = batch.Records.map(
        (record) => (JSON.parse(Buffer.from(record.kinesis.data, "base64").toString()) as BeaconEvent).type,
      );
      const heartbeatsIn = (count: number) => types.slice(0, count).filter((type) => type === "heartbeat");
      expect(heartbeatsIn(types.length).length).toBeGreaterThan(3);
      const from = Date.now();
      await handlerOver([], batchLog.log)(batch);
      await handlerOver([takesThree], batchLog.log)(batch);
      const lines = await metricLines(batchLog.log.file, { from, to: Date.now() });
      expect(lines.map((line) => [line.EventsConsumed, line.Heartbeats])).toEqual([
        [types.length, heartbeatsIn(types.length).length],
        [3, heartbeatsIn(3).length],
      ]);
    } finally {
      batchLog.close();
    }
  });

  it("fails every event of the batch when the archive cannot write, and the whole invocation when that is all of it", async () => {
    const handler = handlerOver([
      makeArchiveConsumer(new S3EventArchive(s3ObjectCalls(s3, `missing-${suffix}`))),
    ]);
    const batch = await wholeShardBatch(kinesis, streamName);
    await expect(handler(batch)).rejects.toThrow(/All records failed processing/);
    const withGarbage = withGarbageFirst(batch);
    const response = await handler(withGarbage);
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(
      withGarbage.Records.slice(1).map((record) => record.kinesis.sequenceNumber),
    );
  });
});

describe("the local poller", () => {
  it("reads a batch again from the lowest sequence number of its partial batch response", async () => {
    const deliveries: StreamRecord[][] = [];
    const failsOnce: EventConsumer = {
      name: "fails-once",
      async consume(records) {
        deliveries.push(records);
        if (deliveries.length === 1) throw new PartlyConsumed(1, { cause: new Error("once") });
      },
    };
    const streamed = (await readWholeStream(kinesis, streamName)) as BeaconEvent[];
    const poller = pollStream({
      kinesis,
      streamName,
      invoke: handlerOver([failsOnce]),
      log: () => {},
      idleMs: 100,
      retryMs: 100,
    });
    try {
      await until("the stream read to its end", async () =>
        new Set(deliveries.flat().map((record) => record.event.eventId)).size >= streamed.length
          ? true
          : undefined,
      );
    } finally {
      await poller.stop();
    }
    const [first, second] = deliveries;
    expect(first?.length).toBeGreaterThan(1);
    expect(second?.[0]?.position).toBe(first?.[1]?.position);
    expect(new Set(deliveries.flat().map((record) => record.event.eventId))).toEqual(
      new Set(streamed.map((event) => event.eventId)),
    );
  });
});
