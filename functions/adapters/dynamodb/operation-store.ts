import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { dropUndefined } from "../../core/c2/json.js";
import {
  isFinal,
  type OperationChange,
  type OperationRecord,
  type OperationState,
} from "../../core/operations/model.js";
import type { OperationQuery, OperationStore } from "../../core/ports.js";
import { isConditionalCheckFailure, Keys } from "./keys.js";
import { queryAll } from "./paging.js";
import { TableSchema } from "./table-schema.js";

/** Closed operations stay readable this long, then DynamoDB's time to live removes them. */
const CLOSED_RETENTION_SECONDS = 90 * 24 * 3600;
const OPERATION_PREFIX = "OP#";

const tenantIndexOf = (record: Pick<OperationRecord, "tenant" | "operationId">) => ({
  gsi2pk: Keys.operationsOfTenant(record.tenant),
  gsi2sk: Keys.operationInTenant(record.operationId),
});

/** Item attributes that are not the record's own. */
const KEY_ATTRIBUTES = ["pk", "sk", "gsi2pk", "gsi2sk", TableSchema.timeToLiveAttribute];

function toRecord(item: Record<string, unknown>): OperationRecord {
  const record = { ...item };
  for (const name of KEY_ATTRIBUTES) delete record[name];
  return record as unknown as OperationRecord;
}

/**
 * An agent's operations share one partition, so the heartbeat reads its open ones with one consistent
 * query; the tenant index lists them tenant-wide for the console. Closed ones expire after 90 days,
 * which keeps the partition a heartbeat reads small.
 */
export class DynamoOperationStore implements OperationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(operations: OperationRecord[]): Promise<void> {
    for (const record of operations) {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...Keys.operation(record.tenant, record.agentId, record.operationId),
            ...tenantIndexOf(record),
            ...dropUndefined(record),
          },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
    }
  }

  async get(tenant: string, agentId: string, operationId: string) {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: Keys.operation(tenant, agentId, operationId),
        ConsistentRead: true,
      }),
    );
    return Item ? toRecord(Item) : undefined;
  }

  async find(tenant: string, operationId: string) {
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: TableSchema.indexes.byTenant.indexName,
      KeyConditionExpression: "gsi2pk = :pk AND gsi2sk = :sk",
      ExpressionAttributeValues: {
        ":pk": Keys.operationsOfTenant(tenant),
        ":sk": Keys.operationInTenant(operationId),
      },
    });
    const [item] = items;
    // The index holds a copy: the item itself is the truth about its state.
    return item ? this.get(tenant, item.agentId as string, operationId) : undefined;
  }

  async open(tenant: string, agentId: string) {
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      FilterExpression: "#state IN (:queued, :delivered)",
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: {
        ":pk": Keys.operation(tenant, agentId, "").pk,
        ":prefix": OPERATION_PREFIX,
        ":queued": "queued",
        ":delivered": "delivered",
      },
      ConsistentRead: true,
    });
    return items.map(toRecord);
  }

  async transition(operation: OperationRecord, from: OperationState, change: OperationChange) {
    const values: Record<string, unknown> = {
      ...dropUndefined(change),
      ...(isFinal(change.state)
        ? {
            [TableSchema.timeToLiveAttribute]:
              Math.floor((change.finishedAt ?? 0) / 1000) + CLOSED_RETENTION_SECONDS,
          }
        : {}),
    };
    const names = Object.keys(values);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.operation(operation.tenant, operation.agentId, operation.operationId),
          UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(", ")}`,
          ConditionExpression: "#state = :from",
          ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
          ExpressionAttributeValues: {
            ...Object.fromEntries(names.map((name) => [`:${name}`, values[name]])),
            ":from": from,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
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
    const page = await this.client.send(
      new QueryCommand({
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
      }),
    );
    const lastKey = page.LastEvaluatedKey?.[skName] as string | undefined;
    return {
      items: (page.Items ?? []).map(toRecord),
      last: lastKey?.slice(OPERATION_PREFIX.length),
    };
  }
}
