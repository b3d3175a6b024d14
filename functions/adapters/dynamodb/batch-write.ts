import { type DocumentClient, directCalls } from "./direct-calls.js";

/** DynamoDB's most items of one BatchWriteItem. */
const BATCH_WRITE_ITEMS = 25;
const MAX_BATCH_WRITE_ATTEMPTS = 8;

export type WriteRequest =
  | { PutRequest: { Item: Record<string, unknown> } }
  | { DeleteRequest: { Key: Record<string, unknown> } };

/**
 * Writes every request, 25 to a batch. DynamoDB may leave some of a batch unprocessed when throttled: those
 * are sent again, a while later, and a batch still not written after eight tries is an error. An abort signal
 * bounds the whole in time.
 */
export async function batchWriteAll(
  client: DocumentClient,
  tableName: string,
  requests: WriteRequest[],
  what: string,
  options: { abortSignal?: AbortSignal } = {},
): Promise<void> {
  for (let start = 0; start < requests.length; start += BATCH_WRITE_ITEMS) {
    let pending = requests.slice(start, start + BATCH_WRITE_ITEMS);
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > MAX_BATCH_WRITE_ATTEMPTS) throw new Error(`DynamoDB left ${what} unwritten`);
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
      const { UnprocessedItems } = await directCalls(client).batchWrite(
        { RequestItems: { [tableName]: pending } },
        options.abortSignal,
      );
      pending = (UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
    }
  }
}
