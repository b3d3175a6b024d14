import { createHash } from "node:crypto";
import type { TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import type { OperationEvent, OperationState } from "../../core/events/model.js";
import { dropUndefined } from "../../core/json.js";
import { isFinal, type OperationChange, type OperationRecord } from "../../core/operations/model.js";
import type { ExistingOperations, OperationQuery, OperationStore } from "../../core/operations/ports.js";
import type { Page, PageRequest } from "../../core/paging.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { stagedEventItem } from "./event-outbox.js";
import { failedTransactionConditions, isConditionalCheckFailure, Keys, recordOf } from "./keys.js";
import { queryAll } from "./paging.js";
import { TableSchema } from "./table-schema.js";

/** Closed operations stay readable this long, then DynamoDB's time to live removes them. */
const CLOSED_RETENTION_SECONDS = 90 * 24 * 3600;
const OPERATION_PREFIX = "OP#";

const tenantIndexOf = (record: Pick<OperationRecord, "tenant" | "operationId">) => ({
  gsi2pk: Keys.operationsOfTenant(record.tenant),
  gsi2sk: Keys.operationInTenant(record.operationId),
});

/**
 * Shards of the due index. Every operation created or delivered writes its entry, so one partition would
 * cap a fleet-wide rollout at one index partition's write rate; 16 spread it, for 16 small queries a run.
 */
const DUE_SHARDS = 16;
/** Entries read per query of one shard: a run stops at its bound, so it rarely reads more than a page. */
const DUE_PAGE_SIZE = 100;
const dueIndex = TableSchema.indexes.due;
/** Queued operations held for maintenance windows, per class: what a change of the windows reads. */
const heldIndex = TableSchema.indexes.byClass;

/** New operations written at once: one by one, a selection step's thousand would take a thousand round trips. */
const CREATE_CONCURRENCY = 16;

type TransactItem = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];

/** An agent's operations share a shard, which keeps their order in it by due time. */
const dueShardOf = (tenant: string, agentId: string): number =>
  createHash("sha256").update(`${tenant}/${agentId}`).digest().readUInt16BE(0) % DUE_SHARDS;

const dueIndexOf = (record: Pick<OperationRecord, "tenant" | "agentId">, dueAt: number) => ({
  [dueIndex.partitionKey]: Keys.dueShard(dueShardOf(record.tenant, record.agentId)),
  [dueIndex.sortKey]: Keys.dueAt(dueAt),
});

/** A queued operation with a `notBefore` is in the held index until it leaves queued. */
const heldIndexOf = (record: OperationRecord) =>
  record.state === "queued" && record.notBefore !== undefined && record.agentClass !== undefined
    ? {
        [heldIndex.partitionKey]: Keys.heldOperationsOfClass(record.tenant, record.agentClass),
        [heldIndex.sortKey]: Keys.heldOperation(record.agentId, record.operationId),
      }
    : {};

/** Item attributes that are not the record's own. */
const KEY_ATTRIBUTES = [
  "pk",
  "sk",
  "gsi2pk",
  "gsi2sk",
  dueIndex.partitionKey,
  dueIndex.sortKey,
  heldIndex.partitionKey,
  heldIndex.sortKey,
  TableSchema.timeToLiveAttribute,
];

const toRecord = (item: Record<string, unknown>) => recordOf<OperationRecord>(item, KEY_ATTRIBUTES);

/**
 * An agent's operations share one partition, so the heartbeat reads its open ones with one consistent
 * query; the tenant index lists them tenant-wide for the console. Closed ones expire after 90 days,
 * which keeps the partition a heartbeat reads small.
 */
export class DynamoOperationStore implements OperationStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async create(
    operations: OperationRecord[],
    events: OperationEvent[] = [],
    { existing = "refuse" }: { existing?: ExistingOperations } = {},
  ): Promise<string[]> {
    const eventOf = new Map(events.map((event) => [event.operationId, event]));
    const written = new Array<boolean>(operations.length).fill(false);
    let next = 0;
    // Each operation is a conditional write of its own: a selection step's thousand go a few at a time.
    const writer = async () => {
      for (let at = next++; at < operations.length; at = next++) {
        const record = operations[at] as OperationRecord;
        const put = {
          Put: {
            TableName: this.tableName,
            Item: {
              ...Keys.operation(record.tenant, record.agentId, record.operationId),
              ...tenantIndexOf(record),
              ...(record.dueAt === undefined ? {} : dueIndexOf(record, record.dueAt)),
              ...heldIndexOf(record),
              ...dropUndefined(record),
            },
            ConditionExpression: "attribute_not_exists(pk)",
          },
        };
        written[at] = await this.write(put, eventOf.get(record.operationId), existing);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CREATE_CONCURRENCY, operations.length) }, writer));
    return operations.filter((_, at) => written[at]).map((record) => record.operationId);
  }

  async get(tenant: string, agentId: string, operationId: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.operation(tenant, agentId, operationId),
      ConsistentRead: true,
    });
    return Item ? toRecord(Item) : undefined;
  }

  async open(tenant: string, agentId: string) {
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      FilterExpression: "#state IN (:queued, :delivered, :awaiting)",
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: {
        ":pk": Keys.operation(tenant, agentId, "").pk,
        ":prefix": OPERATION_PREFIX,
        ":queued": "queued",
        ":delivered": "delivered",
        ":awaiting": "awaiting_effect",
      },
      ConsistentRead: true,
    });
    return items.map(toRecord);
  }

  async transition(
    operation: OperationRecord,
    from: OperationState,
    change: OperationChange,
    event?: OperationEvent,
  ) {
    const closing = isFinal(change.state);
    const values: Record<string, unknown> = {
      ...dropUndefined(change),
      ...(closing
        ? {
            [TableSchema.timeToLiveAttribute]:
              Math.floor((change.finishedAt ?? 0) / 1000) + CLOSED_RETENTION_SECONDS,
          }
        : {}),
      // Both index keys, so that an operation queued before the due index existed joins it too.
      ...(change.dueAt === undefined ? {} : dueIndexOf(operation, change.dueAt)),
    };
    const names = Object.keys(values);
    // A closed operation leaves the due index: the sweeper never reads it again; one no longer queued, the held index.
    const removed = [
      ...(closing ? ["dueAt", dueIndex.partitionKey, dueIndex.sortKey] : []),
      ...(change.state === "queued" ? [] : [heldIndex.partitionKey, heldIndex.sortKey]),
    ];
    const update = {
      Update: {
        TableName: this.tableName,
        Key: Keys.operation(operation.tenant, operation.agentId, operation.operationId),
        UpdateExpression: [
          `SET ${names.map((name) => `#${name} = :${name}`).join(", ")}`,
          ...(removed.length > 0 ? [`REMOVE ${removed.map((name) => `#${name}`).join(", ")}`] : []),
        ].join(" "),
        ConditionExpression: "#state = :from",
        ExpressionAttributeNames: Object.fromEntries(
          [...names, ...removed].map((name) => [`#${name}`, name]),
        ),
        ExpressionAttributeValues: {
          ...Object.fromEntries(names.map((name) => [`:${name}`, values[name]])),
          ":from": from,
        },
      },
    };
    return this.write(update, event);
  }

  /**
   * One change and its staged event, both or neither; false when an update's condition failed. A change
   * without an event is a plain write: a transaction costs twice the write units.
   */
  private async write(
    change: TransactItem,
    event: OperationEvent | undefined,
    existing: ExistingOperations = "refuse",
  ): Promise<boolean> {
    try {
      if (event) {
        const staged = { Put: { TableName: this.tableName, Item: stagedEventItem(event) } };
        await directCalls(this.client).transactWrite({ TransactItems: [change, staged] });
      } else if (change.Put) await directCalls(this.client).put(change.Put);
      else if (change.Update) await directCalls(this.client).update(change.Update);
      return true;
    } catch (error) {
      const conditionFailed = isConditionalCheckFailure(error) || failedTransactionConditions(error)?.[0];
      // A new operation whose id exists is an error, unless kept as done; a change the operation has left
      // behind is a lost race.
      if (!conditionFailed || (change.Put && existing === "refuse")) throw error;
      return false;
    }
  }

  /**
   * Merges the shards' queries by due time, each read a page at a time as the merge needs it, so a run
   * bounded to a few hundred operations reads about that many entries whatever the backlog.
   */
  async *due(time: number): AsyncGenerator<OperationRecord> {
    const shards = Array.from({ length: DUE_SHARDS }, (_, shard) => this.dueInShard(shard, time));
    const heads = await Promise.all(shards.map((shard) => shard.next()));
    for (;;) {
      let earliest: { index: number; item: Record<string, string> } | undefined;
      for (const [index, head] of heads.entries()) {
        if (head.done) continue;
        const key = head.value[dueIndex.sortKey] as string;
        if (!earliest || key < (earliest.item[dueIndex.sortKey] as string))
          earliest = { index, item: head.value };
      }
      if (!earliest) return;
      yield toRecord(earliest.item);
      heads[earliest.index] = await (shards[earliest.index] as (typeof shards)[number]).next();
    }
  }

  private async *dueInShard(shard: number, time: number): AsyncGenerator<Record<string, string>> {
    let exclusiveStartKey: Record<string, unknown> | undefined;
    do {
      // Sent directly, as the outbox's shards are read: the sweeper's every run reads this fan.
      const page = await directCalls(this.client).query({
        TableName: this.tableName,
        IndexName: dueIndex.indexName,
        KeyConditionExpression: "#pk = :pk AND #sk <= :time",
        ExpressionAttributeNames: { "#pk": dueIndex.partitionKey, "#sk": dueIndex.sortKey },
        ExpressionAttributeValues: { ":pk": Keys.dueShard(shard), ":time": Keys.dueAt(time) },
        Limit: DUE_PAGE_SIZE,
        ExclusiveStartKey: exclusiveStartKey,
      });
      yield* (page.Items ?? []) as Record<string, string>[];
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey);
  }

  async held(tenant: string, agentClass: string, page: PageRequest): Promise<Page<OperationRecord>> {
    const { Items, LastEvaluatedKey } = await directCalls(this.client).query({
      TableName: this.tableName,
      IndexName: heldIndex.indexName,
      KeyConditionExpression: page.after === undefined ? "#pk = :pk" : "#pk = :pk AND #sk > :after",
      ExpressionAttributeNames: {
        "#pk": heldIndex.partitionKey,
        ...(page.after === undefined ? {} : { "#sk": heldIndex.sortKey }),
      },
      ExpressionAttributeValues: dropUndefined({
        ":pk": Keys.heldOperationsOfClass(tenant, agentClass),
        ":after": page.after,
      }),
      Limit: page.limit,
    });
    return {
      items: (Items ?? []).map(toRecord),
      last: LastEvaluatedKey?.[heldIndex.sortKey] as string | undefined,
    };
  }

  /**
   * Newest first. The page continues below the last id returned through the key condition, so the
   * cursor needs no table key: the query is rebuilt from the caller's tenant every time.
   */
  async list(tenant: string, query: OperationQuery) {
    const byAgent = query.agentId !== undefined;
    const [pkName, skName] = byAgent ? ["pk", "sk"] : ["gsi2pk", "gsi2sk"];
    const pk = byAgent
      ? Keys.operation(tenant, query.agentId as string, "").pk
      : Keys.operationsOfTenant(tenant);
    const page = await directCalls(this.client).query({
      TableName: this.tableName,
      IndexName: byAgent ? undefined : TableSchema.indexes.byTenant.indexName,
      KeyConditionExpression:
        query.after === undefined
          ? `${pkName} = :pk AND begins_with(${skName}, :prefix)`
          : `${pkName} = :pk AND ${skName} < :before`,
      FilterExpression: query.state ? "#state = :state" : undefined,
      ExpressionAttributeNames: query.state ? { "#state": "state" } : undefined,
      ExpressionAttributeValues: dropUndefined({
        ":pk": pk,
        // The partition holds operations only, so below the last key returned is the rest of the list.
        ":prefix": query.after === undefined ? OPERATION_PREFIX : undefined,
        ":before": query.after === undefined ? undefined : `${OPERATION_PREFIX}${query.after}`,
        ":state": query.state,
      }),
      ScanIndexForward: false,
      Limit: query.limit,
    });
    const lastKey = page.LastEvaluatedKey?.[skName] as string | undefined;
    return {
      items: (page.Items ?? []).map(toRecord),
      last: lastKey?.slice(OPERATION_PREFIX.length),
    };
  }
}
