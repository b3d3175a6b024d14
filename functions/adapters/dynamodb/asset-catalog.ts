import type { AssetRecord } from "../../core/assets/model.js";
import type { AssetCatalog } from "../../core/assets/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { isConditionalCheckFailure, Keys, putIfAbsent } from "./keys.js";
import { queryPartition } from "./paging.js";

const ASSET_PREFIX = "A#";

/**
 * Asset records, one item each in the tenant's asset partition, written once. `usedBy` is a string set of
 * the classes whose resource set holds the asset, kept by the resource sets' transactions; DynamoDB drops
 * the attribute when its last class goes, which is what lets a delete through.
 */
export class DynamoAssetCatalog implements AssetCatalog {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async add(tenant: string, record: AssetRecord) {
    const { usedBy: _usedBy, ...written } = record;
    if (
      await putIfAbsent(this.client, this.tableName, { ...Keys.asset(tenant, record.assetId), ...written })
    ) {
      return { record: written, created: true };
    }
    return { record: (await this.get(tenant, record.assetId)) as AssetRecord, created: false };
  }

  async get(tenant: string, assetId: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.asset(tenant, assetId),
      ConsistentRead: true,
    });
    return Item ? toAsset(Item) : undefined;
  }

  async list(tenant: string, request: PageRequest) {
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk: Keys.asset(tenant, "").pk, prefix: ASSET_PREFIX },
      request,
    );
    return { items: page.items.map(toAsset), last: page.last };
  }

  async remove(tenant: string, assetId: string) {
    try {
      await directCalls(this.client).delete({
        TableName: this.tableName,
        Key: Keys.asset(tenant, assetId),
        ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(usedBy)",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD",
      });
      return "removed" as const;
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      return (error as { Item?: unknown }).Item ? ("in_use" as const) : ("absent" as const);
    }
  }
}

function toAsset(item: Record<string, unknown>): AssetRecord {
  const { pk: _pk, sk: _sk, usedBy, ...record } = item;
  const classes = usedBy instanceof Set ? [...(usedBy as Set<string>)].sort() : [];
  return { ...(record as unknown as AssetRecord), ...(classes.length > 0 ? { usedBy: classes } : {}) };
}
