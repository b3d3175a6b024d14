import type { RevocationList } from "../../core/identity/ports.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { Keys } from "./keys.js";
import { queryAll } from "./paging.js";

/** Revoked serials live in one small partition per tenant, written by the console when it revokes. */
export class DynamoRevocationList implements RevocationList {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async revokedSerials(tenant: string): Promise<string[]> {
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": Keys.revokedSerial(tenant, "").pk },
      ProjectionExpression: "serial",
      ConsistentRead: true,
    });
    return items.map((item) => item.serial as string);
  }

  async isRevoked(tenant: string, serial: string): Promise<boolean> {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.revokedSerial(tenant, serial),
      ConsistentRead: true,
    });
    return Item !== undefined;
  }
}
