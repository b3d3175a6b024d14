import { setTimeout as sleep } from "node:timers/promises";
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import {
  CreateEventBusCommand,
  type EventBridgeClient,
  ResourceAlreadyExistsException,
} from "@aws-sdk/client-eventbridge";
import {
  CreateStreamCommand,
  DescribeStreamSummaryCommand,
  type KinesisClient,
} from "@aws-sdk/client-kinesis";
import { BucketAlreadyOwnedByYou, CreateBucketCommand, type S3Client } from "@aws-sdk/client-s3";
import { TableSchema } from "../../functions/adapters/dynamodb/table-schema.js";

/** Creates Beacon's table as the CDK app defines it, unless it exists; then makes sure TTL is on. */
export async function provisionTable(dynamodb: DynamoDBClient, tableName: string): Promise<void> {
  const { partitionKey, sortKey, timeToLiveAttribute } = TableSchema;
  const indexes = Object.values(TableSchema.indexes);
  const attributeDefinitions = [
    partitionKey,
    sortKey,
    ...indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ].map((name) => ({ AttributeName: name, AttributeType: "S" as const }));
  const indexDefinition = (index: (typeof indexes)[number]) => ({
    IndexName: index.indexName,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: "HASH" as const },
      { AttributeName: index.sortKey, KeyType: "RANGE" as const },
    ],
    Projection: { ProjectionType: TableSchema.indexProjection },
  });
  try {
    await dynamodb.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: attributeDefinitions,
        KeySchema: [
          { AttributeName: partitionKey, KeyType: "HASH" },
          { AttributeName: sortKey, KeyType: "RANGE" },
        ],
        GlobalSecondaryIndexes: indexes.map(indexDefinition),
      }),
    );
  } catch (error) {
    if (!isAlreadyExisting(error)) throw error;
    // A table kept on disk from an older Beacon may lack an index added since.
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
    const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
    for (const index of indexes.filter((candidate) => !present.has(candidate.indexName))) {
      await dynamodb.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: attributeDefinitions,
          GlobalSecondaryIndexUpdates: [{ Create: indexDefinition(index) }],
        }),
      );
    }
  }
  // Enabling TTL twice is an error, so look first.
  const { TimeToLiveDescription } = await dynamodb.send(
    new DescribeTimeToLiveCommand({ TableName: tableName }),
  );
  const status = TimeToLiveDescription?.TimeToLiveStatus;
  if (status === "ENABLED" || status === "ENABLING") {
    if (TimeToLiveDescription?.AttributeName === timeToLiveAttribute) return;
    throw new Error(
      `table ${tableName} expires items by ${TimeToLiveDescription?.AttributeName}, not ${timeToLiveAttribute}`,
    );
  }
  await dynamodb.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: timeToLiveAttribute, Enabled: true },
    }),
  );
}

const streamActiveTimeoutMs = 30_000;
const streamPollMs = 50;

/** Creates the event stream with one shard unless it exists, and waits until it takes records. */
export async function provisionStream(kinesis: KinesisClient, streamName: string): Promise<void> {
  try {
    await kinesis.send(new CreateStreamCommand({ StreamName: streamName, ShardCount: 1 }));
  } catch (error) {
    if (!isAlreadyExisting(error)) throw error;
  }
  // The SDK's waiter polls every 10 s at best; the emulators turn ACTIVE within milliseconds.
  const deadline = Date.now() + streamActiveTimeoutMs;
  for (;;) {
    const { StreamDescriptionSummary } = await kinesis.send(
      new DescribeStreamSummaryCommand({ StreamName: streamName }),
    );
    const status = StreamDescriptionSummary?.StreamStatus;
    if (status === "ACTIVE" || status === "UPDATING") return;
    if (Date.now() > deadline) {
      throw new Error(`stream ${streamName} is still ${status} after ${streamActiveTimeoutMs} ms`);
    }
    await sleep(streamPollMs);
  }
}

/** Both services answer a create of an existing resource with ResourceInUseException. */
function isAlreadyExisting(error: unknown): boolean {
  return error instanceof Error && error.name === "ResourceInUseException";
}

/** Creates the bucket unless this identity has it already (S3Proxy keeps buckets on disk when asked to). */
export async function provisionBucket(s3: S3Client, bucket: string): Promise<void> {
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (error) {
    if (!(error instanceof BucketAlreadyOwnedByYou)) throw error;
  }
}

/** Creates the notifications' event bus unless it exists, as the CDK app does on AWS (without its archive). */
export async function provisionEventBus(eventBridge: EventBridgeClient, busName: string): Promise<void> {
  try {
    await eventBridge.send(new CreateEventBusCommand({ Name: busName }));
  } catch (error) {
    if (!(error instanceof ResourceAlreadyExistsException)) throw error;
  }
}
