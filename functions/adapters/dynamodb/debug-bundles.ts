import type { DebugBundle } from "../../core/bundles/model.js";
import type { DebugBundleStore } from "../../core/bundles/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { Keys, putIfAbsent } from "./keys.js";
import { queryPartition } from "./paging.js";
import { TableSchema } from "./table-schema.js";

const BUNDLE_PREFIX = "B#";
const { byClass } = TableSchema.indexes;
/**
 * An expired bundle's entry stays this long after, so that the console answers 410 for it rather than 404;
 * then DynamoDB's time to live removes it.
 */
const EXPIRED_KEPT_SECONDS = 7 * 24 * 3600;

/**
 * One item per bundle in the tenant's bundle partition, written once. The record's `expiresAt` (epoch ms, the
 * end of its retention) is kept as `servedUntil`: the table's time-to-live attribute of that name is in seconds.
 */
export class DynamoDebugBundles implements DebugBundleStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  create(bundle: DebugBundle): Promise<boolean> {
    const { expiresAt, ...rest } = bundle;
    return putIfAbsent(this.client, this.tableName, {
      ...Keys.debugBundle(bundle.tenant, bundle.operationId),
      // In the index by class (gsi1) under its agent's bundles, by operation id: one agent's list is read by key.
      [byClass.partitionKey]: Keys.debugBundlesOfAgent(bundle.tenant, bundle.agentId),
      [byClass.sortKey]: `${BUNDLE_PREFIX}${bundle.operationId}`,
      ...rest,
      servedUntil: expiresAt,
      [TableSchema.timeToLiveAttribute]: Math.floor(expiresAt / 1000) + EXPIRED_KEPT_SECONDS,
    });
  }

  async get(tenant: string, operationId: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.debugBundle(tenant, operationId),
      ConsistentRead: true,
    });
    return Item ? toBundle(Item) : undefined;
  }

  async list(tenant: string, request: PageRequest, now: number, agentId?: string) {
    if (agentId !== undefined) return this.listOfAgent(tenant, agentId, request, now);
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk: Keys.debugBundle(tenant, "").pk, prefix: BUNDLE_PREFIX },
      { ...request, descending: true },
      { FilterExpression: "servedUntil > :now", ExpressionAttributeValues: { ":now": now } },
    );
    return { items: page.items.map(toBundle), last: page.last };
  }

  /** Pages continue from the last key returned, rebuilt into the index's key from the caller's tenant. */
  private async listOfAgent(tenant: string, agentId: string, request: PageRequest, now: number) {
    const pk = Keys.debugBundlesOfAgent(tenant, agentId);
    const { after } = request;
    const page = await directCalls(this.client).query({
      TableName: this.tableName,
      IndexName: byClass.indexName,
      KeyConditionExpression: "#pk = :pk",
      FilterExpression: "servedUntil > :now",
      ExpressionAttributeNames: { "#pk": byClass.partitionKey },
      ExpressionAttributeValues: { ":pk": pk, ":now": now },
      ScanIndexForward: false,
      Limit: request.limit,
      ExclusiveStartKey:
        after === undefined
          ? undefined
          : {
              [byClass.partitionKey]: pk,
              [byClass.sortKey]: `${BUNDLE_PREFIX}${after}`,
              ...Keys.debugBundle(tenant, after),
            },
    });
    const last = page.LastEvaluatedKey?.[byClass.sortKey] as string | undefined;
    return { items: (page.Items ?? []).map(toBundle), last: last?.slice(BUNDLE_PREFIX.length) };
  }
}

function toBundle(item: Record<string, unknown>): DebugBundle {
  const {
    pk: _pk,
    sk: _sk,
    [byClass.partitionKey]: _agentBundles,
    [byClass.sortKey]: _byOperation,
    servedUntil,
    [TableSchema.timeToLiveAttribute]: _ttl,
    ...record
  } = item;
  return { ...(record as Omit<DebugBundle, "expiresAt">), expiresAt: servedUntil as number };
}
