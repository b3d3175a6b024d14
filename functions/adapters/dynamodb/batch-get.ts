import { type DocumentClient, directCalls } from "./direct-calls.js";

/** BatchGetItem takes 100 keys a request. */
const BATCH_GET_KEYS = 100;

/**
 * Every item of these keys that exists, 100 keys a BatchGetItem, keys DynamoDB left unprocessed asked again. Sent
 * directly: the console's agent list and the sweeper's first run read the agents' last sightings so.
 */
export async function batchGetAll(
  client: DocumentClient,
  tableName: string,
  keys: Record<string, unknown>[],
  options: { ProjectionExpression?: string; ConsistentRead?: boolean },
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_KEYS) {
    let pending = keys.slice(start, start + BATCH_GET_KEYS);
    while (pending.length > 0) {
      const { Responses, UnprocessedKeys } = await directCalls(client).batchGet({
        RequestItems: { [tableName]: { Keys: pending, ...options } },
      });
      items.push(...(Responses?.[tableName] ?? []));
      pending = UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return items;
}
