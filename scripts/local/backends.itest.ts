import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import net from "node:net";
import { fileURLToPath } from "node:url";
import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  GetItemCommand,
  PutItemCommand,
} from "@aws-sdk/client-dynamodb";
import { DescribeEventBusCommand } from "@aws-sdk/client-eventbridge";
import {
  DescribeStreamSummaryCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type KinesisClient,
  PutRecordsCommand,
} from "@aws-sdk/client-kinesis";
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, inject, it } from "vitest";
import { TableSchema } from "../../functions/adapters/dynamodb/table-schema.js";
import { makeDynamoDbClient } from "../../functions/runtime/aws-clients/dynamodb.js";
import { makeEventBridgeClient } from "../../functions/runtime/aws-clients/eventbridge.js";
import { makeKinesisClient } from "../../functions/runtime/aws-clients/kinesis.js";
import { makeS3Client } from "../../functions/runtime/aws-clients/s3.js";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { startCountingProxy } from "./counting-proxy.js";
import { startKinesisEmulator } from "./kinesis-emulator.js";
import { findFreePort } from "./ports.js";
import { provisionBucket, provisionEventBus, provisionStream, provisionTable } from "./provision.js";
import { startRedisServer } from "./redis-server.js";

const env = inject("beaconEnv");

function envValue(name: string): string {
  const value = env[name];
  if (value === undefined) throw new Error(`the global setup provided no ${name}`);
  return value;
}

const tableName = envValue(EnvNames.tableName);
const streamName = envValue(EnvNames.streamName);
const assetBucket = envValue(EnvNames.assetBucket);
const scratchPath = (name: string) =>
  fileURLToPath(new URL(`../../.beacon/test-${name}-${randomUUID()}`, import.meta.url));

/** Puts records, reads the shard from the first of them, and expects them back in order. */
async function expectRecordsRoundTrip(kinesis: KinesisClient, stream: string): Promise<void> {
  const sent = [1, 2, 3].map((n) => `record ${n} ${randomUUID()}`);
  const put = await kinesis.send(
    new PutRecordsCommand({
      StreamName: stream,
      Records: sent.map((text) => ({ Data: Buffer.from(text), PartitionKey: "T#round-trip" })),
    }),
  );
  expect(put.FailedRecordCount ?? 0).toBe(0);
  const first = put.Records?.[0];
  const { ShardIterator } = await kinesis.send(
    new GetShardIteratorCommand({
      StreamName: stream,
      ShardId: first?.ShardId,
      ShardIteratorType: "AT_SEQUENCE_NUMBER",
      StartingSequenceNumber: first?.SequenceNumber,
    }),
  );
  // Other test files share the stream, so foreign records may sit between ours.
  const received: string[] = [];
  let iterator = ShardIterator;
  for (let batch = 0; batch < 10 && iterator && received.length < sent.length; batch++) {
    const page = await kinesis.send(new GetRecordsCommand({ ShardIterator: iterator }));
    for (const record of page.Records ?? []) {
      const text = Buffer.from(record.Data ?? []).toString();
      if (sent.includes(text)) received.push(text);
    }
    iterator = page.NextShardIterator;
  }
  expect(received).toEqual(sent);
}

describe("local backends", () => {
  const dynamodb = makeDynamoDbClient(env);
  const kinesis = makeKinesisClient(env);
  afterAll(() => {
    dynamodb.destroy();
    kinesis.destroy();
  });

  it("provide the table as the CDK app defines it, and an active stream", async () => {
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: TableSchema.partitionKey, KeyType: "HASH" },
      { AttributeName: TableSchema.sortKey, KeyType: "RANGE" },
    ]);
    expect(Table?.BillingModeSummary?.BillingMode).toBe("PAY_PER_REQUEST");
    expect(Table?.GlobalSecondaryIndexes).toEqual(
      Object.values(TableSchema.indexes).map((index) =>
        expect.objectContaining({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: "HASH" },
            { AttributeName: index.sortKey, KeyType: "RANGE" },
          ],
          Projection: { ProjectionType: "ALL" },
        }),
      ),
    );
    const { TimeToLiveDescription } = await dynamodb.send(
      new DescribeTimeToLiveCommand({ TableName: tableName }),
    );
    expect(TimeToLiveDescription).toEqual({
      TimeToLiveStatus: "ENABLED",
      AttributeName: TableSchema.timeToLiveAttribute,
    });

    const { StreamDescriptionSummary } = await kinesis.send(
      new DescribeStreamSummaryCommand({ StreamName: streamName }),
    );
    expect(StreamDescriptionSummary?.StreamStatus).toBe("ACTIVE");
    expect(StreamDescriptionSummary?.OpenShardCount).toBe(1);
  });

  it("provision again without complaint", async () => {
    await provisionTable(dynamodb, tableName);
    await provisionStream(kinesis, streamName);
    await provisionTable(dynamodb, tableName);
    await provisionStream(kinesis, streamName);
  });

  it("provide the notification bus on moto, and provision it again without complaint", async () => {
    const busName = envValue(EnvNames.notificationBusName);
    const eventBridge = makeEventBridgeClient(env);
    try {
      expect((await eventBridge.send(new DescribeEventBusCommand({ Name: busName }))).Name).toBe(busName);
      await provisionEventBus(eventBridge, busName);
    } finally {
      eventBridge.destroy();
    }
  });

  it("let the counting proxy see every DynamoDB request", async () => {
    const proxy = await startCountingProxy(envValue(AwsEndpointEnvNames.dynamodb));
    const viaProxy = makeDynamoDbClient({ ...env, [AwsEndpointEnvNames.dynamodb]: proxy.url });
    try {
      const key = { pk: { S: "T#backends-test#AGENT" }, sk: { S: randomUUID() } };
      await viaProxy.send(
        new PutItemCommand({ TableName: tableName, Item: { ...key, note: { S: "counted" } } }),
      );
      const { Item } = await viaProxy.send(new GetItemCommand({ TableName: tableName, Key: key }));
      expect(Item?.note).toEqual({ S: "counted" });
      expect(proxy.counts()).toEqual({ "DynamoDB_20120810.PutItem": 1, "DynamoDB_20120810.GetItem": 1 });
      proxy.reset();
      expect(proxy.counts()).toEqual({});
    } finally {
      viaProxy.destroy();
      await proxy.close();
    }
  });

  it("carry Kinesis records through the stack's emulator, countable by the proxy", async () => {
    // A stream of its own: the shared one carries only Beacon's JSON events, which other tests read back.
    const roundTripStream = "beacon-round-trip-test";
    await provisionStream(kinesis, roundTripStream);
    const proxy = await startCountingProxy(envValue(AwsEndpointEnvNames.kinesis));
    const viaProxy = makeKinesisClient({ ...env, [AwsEndpointEnvNames.kinesis]: proxy.url });
    try {
      await expectRecordsRoundTrip(viaProxy, roundTripStream);
      expect(proxy.counts()).toMatchObject({
        "Kinesis_20131202.PutRecords": 1,
        "Kinesis_20131202.GetShardIterator": 1,
      });
    } finally {
      viaProxy.destroy();
      await proxy.close();
    }
  });

  it("carry Kinesis records through kinesis-mock", async () => {
    const stateDir = scratchPath("kinesis-mock");
    const port = await findFreePort();
    const emulator = await startKinesisEmulator({ emulator: "kinesis-mock", port, stateDir, clientEnv: env });
    const mockClient = makeKinesisClient({
      ...env,
      [AwsEndpointEnvNames.kinesis]: `http://127.0.0.1:${port}`,
    });
    try {
      await provisionStream(mockClient, "beacon-events-mock");
      await expectRecordsRoundTrip(mockClient, "beacon-events-mock");
    } finally {
      mockClient.destroy();
      await emulator.stop();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it("keep objects in S3Proxy, byte for byte with their content type, for signed requests only", async () => {
    const s3 = makeS3Client(env);
    const forged = makeS3Client({ ...env, AWS_SECRET_ACCESS_KEY: "not-the-local-credential" });
    const key = `backends-test/assets/${randomUUID()}`;
    const bytes = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80]);
    try {
      await provisionBucket(s3, assetBucket);
      await s3.send(
        new PutObjectCommand({
          Bucket: assetBucket,
          Key: key,
          Body: bytes,
          ContentType: "application/x-test",
        }),
      );
      const object = await s3.send(new GetObjectCommand({ Bucket: assetBucket, Key: key }));
      expect(object.ContentType).toBe("application/x-test");
      expect(Buffer.from((await object.Body?.transformToByteArray()) ?? [])).toEqual(bytes);
      await expect(
        forged.send(new GetObjectCommand({ Bucket: assetBucket, Key: key })),
      ).rejects.toMatchObject({
        $metadata: { httpStatusCode: 403 },
      });
      await s3.send(new DeleteObjectCommand({ Bucket: assetBucket, Key: key }));
      await expect(s3.send(new GetObjectCommand({ Bucket: assetBucket, Key: key }))).rejects.toMatchObject({
        name: "NoSuchKey",
      });
    } finally {
      s3.destroy();
      forged.destroy();
    }
  });

  it("name the variable to set when a port is taken", async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen({ port: 0, host: "127.0.0.1" }, resolve));
    const { port } = holder.address() as net.AddressInfo;
    try {
      // The port check comes first, so nothing is written to this folder.
      await expect(startRedisServer({ port, stateDir: scratchPath("taken-port") })).rejects.toThrow(
        `port ${port} for Redis is taken; set BEACON_REDIS_PORT`,
      );
    } finally {
      holder.close();
    }
  });
});
