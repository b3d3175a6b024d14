import { setTimeout as sleep } from "node:timers/promises";
import {
  CreateTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import {
  CreateStreamCommand,
  DescribeStreamSummaryCommand,
  type KinesisClient,
} from "@aws-sdk/client-kinesis";
import { TableSchema } from "../../functions/adapters/dynamodb/table-schema.js";

/** Creates Beacon's table as the CDK app defines it, unless it exists; then makes sure TTL is on. */
export async function provisionTable(dynamodb: DynamoDBClient, tableName: string): Promise<void> {
  const { partitionKey, sortKey, timeToLiveAttribute } = TableSchema;
  const byClass = TableSchema.indexes.byClass;
  try {
    await dynamodb.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [partitionKey, sortKey, byClass.partitionKey, byClass.sortKey].map((name) => ({
          AttributeName: name,
          AttributeType: "S",
        })),
        KeySchema: [
          { AttributeName: partitionKey, KeyType: "HASH" },
          { AttributeName: sortKey, KeyType: "RANGE" },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: byClass.indexName,
            KeySchema: [
              { AttributeName: byClass.partitionKey, KeyType: "HASH" },
              { AttributeName: byClass.sortKey, KeyType: "RANGE" },
            ],
            Projection: { ProjectionType: "ALL" },
          },
        ],
      }),
    );
  } catch (error) {
    if (!isAlreadyExisting(error)) throw error;
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
