import { createHash } from "node:crypto";
import { type DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { BeaconEvent, OperationEvent } from "../../core/events/model.js";
import type { EventOutbox } from "../../core/events/ports.js";
import { batchWriteAll } from "./batch-write.js";
import { Keys } from "./keys.js";
import { TableSchema } from "./table-schema.js";

/**
 * Shards of the outbox in the due index: a rollout's deliveries stage thousands of events a minute, more than
 * one index partition takes; the relay reads each shard's oldest, a small query each.
 */
const OUTBOX_SHARDS = 16;
/** A staged event the relay never cleared (a bug, a lost table) goes after a week rather than forever. */
const STAGED_RETENTION_SECONDS = 7 * 24 * 3600;
const dueIndex = TableSchema.indexes.due;

const outboxShardOf = (eventId: string): number =>
  createHash("sha256").update(eventId).digest().readUInt16BE(0) % OUTBOX_SHARDS;

/** The item that stages `event`: written in the same transaction as the change it records. */
export function stagedEventItem(event: OperationEvent): Record<string, unknown> {
  return {
    ...Keys.stagedEvent(event.tenant, event.agentId, event.eventId),
    [dueIndex.partitionKey]: Keys.outboxShard(outboxShardOf(event.eventId)),
    [dueIndex.sortKey]: `${Keys.dueAt(event.at)}#${event.eventId}`,
    [TableSchema.timeToLiveAttribute]: Math.floor(event.at / 1000) + STAGED_RETENTION_SECONDS,
    event: JSON.stringify(event),
  };
}

/** Only operation events are staged today: those are the ones written with a state change in this table. */
const isStaged = (event: BeaconEvent): event is OperationEvent => event.type === "operation";

export class DynamoEventOutbox implements EventOutbox {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async pending(before: number, limit: number): Promise<BeaconEvent[]> {
    const shards = await Promise.all(
      Array.from({ length: OUTBOX_SHARDS }, (_, shard) =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: dueIndex.indexName,
            KeyConditionExpression: "#pk = :pk AND #sk < :before",
            ExpressionAttributeNames: { "#pk": dueIndex.partitionKey, "#sk": dueIndex.sortKey },
            ExpressionAttributeValues: { ":pk": Keys.outboxShard(shard), ":before": Keys.dueAt(before) },
            Limit: limit,
          }),
        ),
      ),
    );
    return shards
      .flatMap(({ Items }) => Items ?? [])
      .map((item) => JSON.parse(item.event as string) as BeaconEvent)
      .sort((a, b) => a.at - b.at)
      .slice(0, limit);
  }

  async clear(events: BeaconEvent[]): Promise<void> {
    const requests = events.filter(isStaged).map((event) => ({
      DeleteRequest: { Key: Keys.stagedEvent(event.tenant, event.agentId, event.eventId) },
    }));
    await batchWriteAll(this.client, this.tableName, requests, "outbox clearances");
  }
}
