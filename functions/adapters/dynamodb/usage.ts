import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { UsageStore } from "../../core/history/ports.js";
import { type UsageHour, type UsageHourKey, zeroUsage } from "../../core/history/usage.js";
import { countedFromItem, countedToItem } from "./counted-item.js";
import { Keys } from "./keys.js";
import { queryAll } from "./paging.js";
import { updateOverVersion } from "./versioned-item.js";

/**
 * One item per tenant and hour, in the tenant's usage partition: its counts, its agents sketch (at most 1 KB),
 * the last position counted per shard and a version, updated over the version read (updateOverVersion). Kept
 * for good: usage is what a tenant is billed for.
 */
export class DynamoUsage implements UsageStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async update(key: UsageHourKey, change: (stored: UsageHour | undefined) => UsageHour | undefined) {
    await updateOverVersion(
      this.client,
      this.tableName,
      Keys.usageHour(key.tenant, key.hour),
      {
        read: (item) => toUsageHour(key, item),
        itemOf: countedToItem,
      },
      change,
    );
  }

  async read(tenant: string, fromHour: number, toHour: number) {
    if (toHour <= fromHour) return [];
    const { pk, sk: from } = Keys.usageHour(tenant, fromHour);
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to",
      ExpressionAttributeValues: { ":pk": pk, ":from": from, ":to": Keys.usageHour(tenant, toHour - 1).sk },
    });
    return items.map((item) => toUsageHour({ tenant, hour: Number((item.sk as string).slice(2)) }, item));
  }
}

function toUsageHour(key: UsageHourKey, item: Record<string, unknown>): UsageHour {
  return { ...key, ...countedFromItem(zeroUsage(), item) };
}
