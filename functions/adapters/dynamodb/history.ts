import { type AgentLogEvent, agentLogKey } from "../../core/history/agent-log.js";
import {
  type BucketKey,
  DEFAULT_HISTORY_RETENTION_DAYS,
  type HistoryBucket,
  type HistoryCounts,
  MINUTE_MS,
  zeroCounts,
} from "../../core/history/model.js";
import type { AgentEventLog, FleetHistoryStore } from "../../core/history/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { batchGetAll } from "./batch-get.js";
import { batchWriteAll } from "./batch-write.js";
import { countedFromItem, countedToItem } from "./counted-item.js";
import type { DocumentClient } from "./direct-calls.js";
import { expiresAtSeconds, Keys } from "./keys.js";
import { queryAll, queryPartition } from "./paging.js";
import { TableSchema } from "./table-schema.js";
import { updateOverVersion } from "./versioned-item.js";

export interface HistoryRetention {
  retentionDays: number;
}

/**
 * One item per tenant, class and minute: its counts, its agents sketch, the last position applied per shard
 * and a version, updated over the version read (updateOverVersion). Items expire `retentionDays` after their
 * minute.
 */
export class DynamoFleetHistory implements FleetHistoryStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
    private readonly retention: HistoryRetention = { retentionDays: DEFAULT_HISTORY_RETENTION_DAYS },
  ) {}

  async update(key: BucketKey, change: (stored: HistoryBucket | undefined) => HistoryBucket | undefined) {
    await updateOverVersion(
      this.client,
      this.tableName,
      Keys.historyBucket(key.tenant, key.agentClass, key.minute),
      {
        read: (item) => toBucket(key, item),
        itemOf: (next) => ({
          ...countedToItem(next),
          [TableSchema.timeToLiveAttribute]: expiresAtSeconds((key.minute + 1) * MINUTE_MS, this.retention),
        }),
      },
      change,
    );
  }

  async read(tenant: string, agentClass: string, fromMinute: number, toMinute: number) {
    const { pk } = Keys.historyBucket(tenant, agentClass, fromMinute);
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to",
      ExpressionAttributeValues: {
        ":pk": pk,
        ":from": Keys.historyMinute(fromMinute),
        ":to": Keys.historyMinute(toMinute - 1),
      },
    });
    return items.map((item) =>
      toBucket({ tenant, agentClass, minute: Number((item.sk as string).slice(2)) }, item),
    );
  }

  async countsInMinute(tenant: string, agentClasses: string[], minute: number) {
    const keys = agentClasses.map((agentClass) => Keys.historyBucket(tenant, agentClass, minute));
    const items = await batchGetAll(this.client, this.tableName, keys, {
      ProjectionExpression: "pk, counts",
    });
    const byPartition = new Map(items.map((item) => [item.pk as string, item]));
    return new Map(
      agentClasses.map((agentClass, index) => {
        const item = byPartition.get(keys[index]?.pk as string);
        return [agentClass, { ...zeroCounts(), ...(item?.counts as Partial<HistoryCounts> | undefined) }];
      }),
    );
  }
}

function toBucket(key: BucketKey, item: Record<string, unknown>): HistoryBucket {
  return { ...key, ...countedFromItem(zeroCounts(), item) };
}

/**
 * Each kept event is one item keyed by its time and id: written again, it is the same item with the same
 * content, so no condition is needed. Items expire `retentionDays` after the event.
 */
export class DynamoAgentEventLog implements AgentEventLog {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
    private readonly retention: HistoryRetention = { retentionDays: DEFAULT_HISTORY_RETENTION_DAYS },
  ) {}

  async add(events: AgentLogEvent[]) {
    const requests = events.map((event) => ({
      PutRequest: {
        Item: {
          ...event,
          ...Keys.agentEvent(event.tenant, event.agentId, agentLogKey(event)),
          [TableSchema.timeToLiveAttribute]: expiresAtSeconds(event.at, this.retention),
        },
      },
    }));
    await batchWriteAll(this.client, this.tableName, requests, "agent events");
  }

  async list(tenant: string, agentId: string, request: PageRequest) {
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk: Keys.agentEvent(tenant, agentId, "").pk, prefix: "E#" },
      request,
    );
    return { items: page.items.map(toAgentEvent), last: page.last };
  }
}

function toAgentEvent(item: Record<string, unknown>): AgentLogEvent {
  const { pk: _pk, sk: _sk, [TableSchema.timeToLiveAttribute]: _expiresAt, ...event } = item;
  return event as unknown as AgentLogEvent;
}
