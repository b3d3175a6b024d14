import type { UsageStore } from "../../core/history/ports.js";
import type { StoredSnapshot } from "../../core/history/stored.js";
import { type UsageHour, type UsageHourKey, zeroUsage } from "../../core/history/usage.js";
import { countedFromItem, countedToItem } from "./counted-item.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { isConditionalCheckFailure, Keys, putIfAbsent } from "./keys.js";
import { queryAll } from "./paging.js";
import { updateOverVersion } from "./versioned-item.js";

/**
 * One item per tenant and hour, in the tenant's usage partition: its counts, its agents sketch (at most 1 KB),
 * the last position counted per shard and a version, updated over the version read (updateOverVersion); and
 * one per tenant and day beside them, its snapshot of what it stores (~300 bytes and ~25 a day of archive
 * kept: ~10 KB at 400 days), written once. Kept for
 * good: usage is what a tenant is billed for.
 */
export class DynamoUsage implements UsageStore {
  constructor(
    private readonly client: DocumentClient,
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

  keepStored(snapshot: StoredSnapshot) {
    const { tenant, day, ...kept } = snapshot;
    return putIfAbsent(this.client, this.tableName, { ...Keys.usageDay(tenant, day), ...kept });
  }

  async readStored(tenant: string, fromDay: number, toDay: number) {
    if (toDay <= fromDay) return [];
    const { pk, sk: from } = Keys.usageDay(tenant, fromDay);
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to",
      ExpressionAttributeValues: { ":pk": pk, ":from": from, ":to": Keys.usageDay(tenant, toDay - 1).sk },
    });
    return items.map(
      (item): StoredSnapshot => ({
        tenant,
        day: Number((item.sk as string).slice(2)),
        takenAt: item.takenAt as number,
        stored: item.stored as StoredSnapshot["stored"],
        archiveDays: item.archiveDays as StoredSnapshot["archiveDays"],
      }),
    );
  }

  async rememberTenant(tenant: string, at: number) {
    await directCalls(this.client).put({
      TableName: this.tableName,
      Item: { ...Keys.snapshotTenant(tenant), rememberedAt: at },
    });
  }

  async forgetTenant(tenant: string, rememberedBefore: number) {
    try {
      await directCalls(this.client).delete({
        TableName: this.tableName,
        Key: Keys.snapshotTenant(tenant),
        ConditionExpression: "rememberedAt < :before",
        ExpressionAttributeValues: { ":before": rememberedBefore },
      });
    } catch (error) {
      // Remembered since, or not at all: either way there is nothing to drop.
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }

  async rememberedTenants() {
    const { pk } = Keys.snapshotTenant("");
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": pk },
      ProjectionExpression: "sk",
    });
    return items.map((item) => (item.sk as string).slice(2));
  }
}

function toUsageHour(key: UsageHourKey, item: Record<string, unknown>): UsageHour {
  return { ...key, ...countedFromItem(zeroUsage(), item) };
}
