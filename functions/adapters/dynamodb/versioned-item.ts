import { type DocumentClient, directCalls } from "./direct-calls.js";
import { isConditionalCheckFailure } from "./keys.js";

/** Writers of one item are the stream's shards that hold its events, a few at once: a race lost this often is a fault. */
const MAX_UPDATE_ATTEMPTS = 20;

/**
 * Replaces one item with what `change` makes of it as read, over the version read: it reads the item
 * consistently and puts `itemOf` the change back on condition that the version is still the one read, so
 * writers of different shards never lose each other's counts. A race lost reads again and asks `change` again.
 */
export async function updateOverVersion<T>(
  client: DocumentClient,
  tableName: string,
  key: { pk: string; sk: string },
  io: { read: (item: Record<string, unknown>) => T; itemOf: (next: T) => Record<string, unknown> },
  change: (stored: T | undefined) => T | undefined,
): Promise<void> {
  // Sent directly: the stream consumer's first batch updates its minutes and hours so, and pays no middleware.
  const calls = directCalls(client);
  for (let attempt = 1; ; attempt++) {
    const { Item } = await calls.get({ TableName: tableName, Key: key, ConsistentRead: true });
    const next = change(Item && io.read(Item));
    if (!next) return;
    try {
      await calls.put({
        TableName: tableName,
        Item: { ...key, ...io.itemOf(next), version: ((Item?.version as number | undefined) ?? 0) + 1 },
        ConditionExpression: Item ? "version = :version" : "attribute_not_exists(pk)",
        ExpressionAttributeValues: Item ? { ":version": Item.version } : undefined,
      });
      return;
    } catch (error) {
      if (!isConditionalCheckFailure(error) || attempt >= MAX_UPDATE_ATTEMPTS) throw error;
    }
  }
}
