import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { TenantSettings, TenantSettingsChange, TenantSettingsStore } from "../../core/fleet/ports.js";
import { dropUndefined } from "../../core/json.js";
import { Keys } from "./keys.js";

/** The tenant's settings, one small item in no index: the sweeper reads it once per tenant and run. */
export class DynamoTenantSettings implements TenantSettingsStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(tenant: string) {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: Keys.tenantSettings(tenant) }),
    );
    return Item ? toSettings(Item) : {};
  }

  /** One update: a field given is set, a null one removed, one left out kept. */
  async put(tenant: string, change: TenantSettingsChange, now: number) {
    const { cleanUpAfterDays } = change;
    const set = [
      "updatedAt = :now",
      ...(typeof cleanUpAfterDays === "number" ? ["cleanUpAfterDays = :days"] : []),
    ];
    const remove = cleanUpAfterDays === null ? " REMOVE cleanUpAfterDays" : "";
    const { Attributes = {} } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: Keys.tenantSettings(tenant),
        UpdateExpression: `SET ${set.join(", ")}${remove}`,
        ExpressionAttributeValues: dropUndefined({ ":now": now, ":days": cleanUpAfterDays ?? undefined }),
        ReturnValues: "ALL_NEW",
      }),
    );
    return toSettings(Attributes);
  }
}

function toSettings(item: Record<string, unknown>): TenantSettings {
  return dropUndefined({
    cleanUpAfterDays: item.cleanUpAfterDays as number | undefined,
    updatedAt: item.updatedAt as number | undefined,
  });
}
