import type { TenantSettings, TenantSettingsChange, TenantSettingsStore } from "../../core/fleet/ports.js";
import { dropUndefined } from "../../core/json.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { Keys } from "./keys.js";

/** The tenant's settings, one small item in no index: the sweeper reads it once per tenant and run. */
export class DynamoTenantSettings implements TenantSettingsStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async get(tenant: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.tenantSettings(tenant),
    });
    return Item ? toSettings(Item) : {};
  }

  /** One update: a field given is set, a null one removed, one left out kept. */
  async put(tenant: string, change: TenantSettingsChange, now: number) {
    const given = Object.entries(change).filter(([, value]) => value !== undefined);
    const set = given.filter(([, value]) => value !== null);
    const removed = given.filter(([, value]) => value === null);
    const remove = removed.length > 0 ? ` REMOVE ${removed.map(([name]) => `#${name}`).join(", ")}` : "";
    const { Attributes = {} } = await directCalls(this.client).update({
      TableName: this.tableName,
      Key: Keys.tenantSettings(tenant),
      UpdateExpression: `SET ${["updatedAt = :now", ...set.map(([name]) => `#${name} = :${name}`)].join(", ")}${remove}`,
      ExpressionAttributeNames:
        given.length > 0 ? Object.fromEntries(given.map(([name]) => [`#${name}`, name])) : undefined,
      ExpressionAttributeValues: Object.fromEntries([
        [":now", now],
        ...set.map(([name, value]) => [`:${name}`, value]),
      ]),
      ReturnValues: "ALL_NEW",
    });
    return toSettings(Attributes);
  }
}

function toSettings(item: Record<string, unknown>): TenantSettings {
  return dropUndefined({
    cleanUpAfterDays: item.cleanUpAfterDays as number | undefined,
    timeZone: item.timeZone as string | undefined,
    updatedAt: item.updatedAt as number | undefined,
  });
}
