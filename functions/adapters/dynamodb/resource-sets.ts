import type { TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import type { ResourceSetStore } from "../../core/assets/ports.js";
import type { ResourceSet } from "../../core/assets/resource-set.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { failedTransactionConditions, Keys } from "./keys.js";

/**
 * Resource sets, one item per class. Replacing one is a transaction with the `usedBy` marks of the assets it
 * adds (each must still exist) and drops, conditional on the set being the one read before.
 */
export class DynamoResourceSetStore implements ResourceSetStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async get(tenant: string, className: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.resourceSet(tenant, className),
      ConsistentRead: true,
    });
    if (!Item) return undefined;
    const { pk: _pk, sk: _sk, ...set } = Item;
    return set as unknown as ResourceSet;
  }

  async replace(tenant: string, set: ResourceSet, previous: ResourceSet | undefined) {
    const before = new Set(previous?.entries.map((entry) => entry.assetId));
    const after = new Set(set.entries.map((entry) => entry.assetId));
    const mark = (assetId: string, action: "ADD" | "DELETE") => ({
      Update: {
        TableName: this.tableName,
        Key: Keys.asset(tenant, assetId),
        UpdateExpression: `${action} usedBy :class`,
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":class": new Set([set.className]) },
      },
    });
    const items: NonNullable<TransactWriteCommandInput["TransactItems"]> = [
      {
        Put: {
          TableName: this.tableName,
          Item: { ...Keys.resourceSet(tenant, set.className), ...set },
          ...(previous
            ? {
                ConditionExpression: "digest = :digest AND updatedAt = :updatedAt",
                ExpressionAttributeValues: { ":digest": previous.digest, ":updatedAt": previous.updatedAt },
              }
            : { ConditionExpression: "attribute_not_exists(pk)" }),
        },
      },
      ...[...after].filter((assetId) => !before.has(assetId)).map((assetId) => mark(assetId, "ADD")),
      ...[...before].filter((assetId) => !after.has(assetId)).map((assetId) => mark(assetId, "DELETE")),
    ];
    try {
      await directCalls(this.client).transactWrite({ TransactItems: items });
      return "replaced" as const;
    } catch (error) {
      // A failed condition, or a transaction racing this one on the same items: either way, nothing changed.
      if (failedTransactionConditions(error) !== undefined) return "conflict" as const;
      throw error;
    }
  }
}
