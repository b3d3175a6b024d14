import { createHash } from "node:crypto";
import {
  type BeaconEvent,
  isStagedEvent,
  partitionKeyOf,
  type StagedEvent,
} from "../../core/events/model.js";
import type { EventOutbox } from "../../core/events/ports.js";
import { batchWriteAll } from "./batch-write.js";
import type { DocumentClient } from "./direct-calls.js";
import { Keys } from "./keys.js";
import { earliestDue } from "./paging.js";
import { TableSchema } from "./table-schema.js";

/**
 * Shards of the outbox in the due index: a rollout's deliveries stage thousands of events a minute, more than
 * one index partition takes; the relay reads each shard's oldest, a small query each. Kept events have as many
 * shards of their own.
 */
const OUTBOX_SHARDS = 16;
/** A staged event the relay never cleared (a bug, a lost table) goes after a week rather than forever. */
const STAGED_RETENTION_SECONDS = 7 * 24 * 3600;
/**
 * How long keeping events may take: they are kept while a request waits, and a table that has not answered by
 * then is as down as the stream and the cache.
 */
const KEEP_TIMEOUT_MS = 1_000;
const dueIndex = TableSchema.indexes.due;

const shardOf = (key: string): number =>
  createHash("sha256").update(key).digest().readUInt16BE(0) % OUTBOX_SHARDS;

const retainedUntil = (event: BeaconEvent) => Math.floor(event.at / 1000) + STAGED_RETENTION_SECONDS;

/** The item that stages `event`: written in the same transaction as the change it records. */
export function stagedEventItem(event: StagedEvent): Record<string, unknown> {
  return {
    ...Keys.stagedEvent(event.tenant, event.agentId, event.eventId),
    [dueIndex.partitionKey]: Keys.outboxShard(shardOf(event.eventId)),
    [dueIndex.sortKey]: `${Keys.dueAt(event.at)}#${event.eventId}`,
    [TableSchema.timeToLiveAttribute]: retainedUntil(event),
    event: JSON.stringify(event),
  };
}

/**
 * The item that keeps `event`, the `place`th of the events kept together: an agent's events share a shard, and
 * sort by time and then by their place, so that events of one time keep their order.
 */
function keptEventItem(event: BeaconEvent, place: number): Record<string, unknown> {
  return {
    ...Keys.keptEvent(event.tenant, event.eventId),
    [dueIndex.partitionKey]: Keys.keptEventShard(shardOf(partitionKeyOf(event))),
    [dueIndex.sortKey]: `${Keys.dueAt(event.at)}#${String(place).padStart(5, "0")}#${event.eventId}`,
    [TableSchema.timeToLiveAttribute]: retainedUntil(event),
    event: JSON.stringify(event),
  };
}

export class DynamoEventOutbox implements EventOutbox {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  pending(before: number, limit: number): Promise<BeaconEvent[]> {
    return this.oldest(Keys.outboxShard, limit, Keys.dueAt(before));
  }

  async keep(events: BeaconEvent[]): Promise<void> {
    const requests = events.map((event, place) => ({ PutRequest: { Item: keptEventItem(event, place) } }));
    await batchWriteAll(this.client, this.tableName, requests, "kept events", {
      abortSignal: AbortSignal.timeout(KEEP_TIMEOUT_MS),
    });
  }

  kept(limit: number): Promise<BeaconEvent[]> {
    return this.oldest(Keys.keptEventShard, limit);
  }

  async clear(events: BeaconEvent[]): Promise<void> {
    const requests = events.map((event) => ({
      DeleteRequest: {
        Key: isStagedEvent(event)
          ? Keys.stagedEvent(event.tenant, event.agentId, event.eventId)
          : Keys.keptEvent(event.tenant, event.eventId),
      },
    }));
    await batchWriteAll(this.client, this.tableName, requests, "outbox clearances");
  }

  /** Every shard's oldest events (before `before`, when given), merged: the oldest `limit` of them all. */
  private async oldest(
    shardKey: (shard: number) => string,
    limit: number,
    before?: string,
  ): Promise<BeaconEvent[]> {
    const shards = Array.from({ length: OUTBOX_SHARDS }, (_, shard) => shardKey(shard));
    const items = await earliestDue(
      this.client,
      this.tableName,
      shards,
      limit,
      before === undefined ? undefined : { before },
    );
    return items.map((item) => JSON.parse(item.event as string) as BeaconEvent);
  }
}
