import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { RevocationList } from "../../core/ports.js";
import { Keys } from "./keys.js";

/** Revoked serials live in one small partition per tenant, written by the console when it revokes. */
export class DynamoRevocationList implements RevocationList {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async revokedSerials(tenant: string): Promise<string[]> {
    const serials: string[] = [];
    let exclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": Keys.revokedSerial(tenant, "").pk },
          ProjectionExpression: "serial",
          ConsistentRead: true,
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) serials.push(item.serial as string);
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey);
    return serials;
  }

  async isRevoked(tenant: string, serial: string): Promise<boolean> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: Keys.revokedSerial(tenant, serial),
        ConsistentRead: true,
      }),
    );
    return Item !== undefined;
  }
}
