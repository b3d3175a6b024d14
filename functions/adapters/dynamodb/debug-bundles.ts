import { type DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import type { DebugBundle } from "../../core/bundles/model.js";
import type { DebugBundleStore } from "../../core/bundles/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { Keys, putIfAbsent } from "./keys.js";
import { queryPartition } from "./paging.js";
import { TableSchema } from "./table-schema.js";

const BUNDLE_PREFIX = "B#";
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
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  create(bundle: DebugBundle): Promise<boolean> {
    const { expiresAt, ...rest } = bundle;
    return putIfAbsent(this.client, this.tableName, {
      ...Keys.debugBundle(bundle.tenant, bundle.operationId),
      ...rest,
      servedUntil: expiresAt,
      [TableSchema.timeToLiveAttribute]: Math.floor(expiresAt / 1000) + EXPIRED_KEPT_SECONDS,
    });
  }

  async get(tenant: string, operationId: string) {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: Keys.debugBundle(tenant, operationId),
        ConsistentRead: true,
      }),
    );
    return Item ? toBundle(Item) : undefined;
  }

  async list(tenant: string, request: PageRequest, now: number) {
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk: Keys.debugBundle(tenant, "").pk, prefix: BUNDLE_PREFIX },
      { ...request, descending: true },
      { FilterExpression: "servedUntil > :now", ExpressionAttributeValues: { ":now": now } },
    );
    return { items: page.items.map(toBundle), last: page.last };
  }
}

function toBundle(item: Record<string, unknown>): DebugBundle {
  const { pk: _pk, sk: _sk, servedUntil, [TableSchema.timeToLiveAttribute]: _ttl, ...record } = item;
  return { ...(record as Omit<DebugBundle, "expiresAt">), expiresAt: servedUntil as number };
}
