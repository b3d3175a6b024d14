/**
 * A DynamoDB client for measurements: it counts its requests, those that write, and the capacity they consumed,
 * as DynamoDB (Local) returns it to each request that asks (ReturnConsumedCapacity).
 */
import type { ConsumedCapacity } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { type DirectCallWatch, directCallWatch } from "../../functions/adapters/dynamodb/direct-calls.js";
import { makeDynamoDbClient } from "../../functions/runtime/aws-clients/dynamodb.js";

/** DynamoDB's use by a client: its requests, those that write, and the capacity units they consumed. */
export interface DynamoUse {
  requests: number;
  writeRequests: number;
  readUnits: number;
  writeUnits: number;
}

/** What `after` used since `before`. */
export const usedSince = (before: DynamoUse, after: DynamoUse): DynamoUse => ({
  requests: after.requests - before.requests,
  writeRequests: after.writeRequests - before.writeRequests,
  readUnits: after.readUnits - before.readUnits,
  writeUnits: after.writeUnits - before.writeUnits,
});

/** Commands that write (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems), by name. */
const WRITES = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;

/**
 * Counts the client's requests and the capacity they consumed, asking every request to return it; a write's
 * units are write units, any other's read units.
 */
export function meteredClient(env: Record<string, string>) {
  const client = makeDynamoDbClient(env);
  const meter: DynamoUse = { requests: 0, writeRequests: 0, readUnits: 0, writeUnits: 0 };
  const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  watchConsumedCapacity(documents, "TOTAL", (request, consumed) => {
    const writes = WRITES.test(request);
    meter.requests++;
    if (writes) meter.writeRequests++;
    for (const capacity of [consumed ?? []].flat()) {
      if (writes) meter.writeUnits += capacity.CapacityUnits ?? 0;
      else meter.readUnits += capacity.CapacityUnits ?? 0;
    }
  });
  return { documents, meter };
}

/**
 * Asks every request of `documents` to return the capacity it consumed (`returned`) and tells `consumed` of each,
 * with its command's or operation's name: the SDK's commands through the client's middleware stack, the calls
 * sent directly (direct-calls.ts) through their watch.
 */
export function watchConsumedCapacity(
  documents: DynamoDBDocumentClient,
  returned: "TOTAL" | "INDEXES",
  consumed: (request: string, capacity: ConsumedCapacity | ConsumedCapacity[] | undefined) => void,
): void {
  documents.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = returned;
      const result = await next(args);
      consumed(context.commandName ?? "", (result.output as ConsumedOutput).ConsumedCapacity);
      return result;
    },
    { step: "initialize", name: "consumedCapacity" },
  );
  const watch: DirectCallWatch = async (operation, input, send) => {
    input.ReturnConsumedCapacity = returned;
    const output = await send();
    consumed(operation, (output as ConsumedOutput).ConsumedCapacity);
    return output;
  };
  Object.assign(documents, { [directCallWatch]: watch });
}

interface ConsumedOutput {
  ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[];
}

/** `use` times `by`. */
export const scaledUse = (use: DynamoUse, by: number): DynamoUse => ({
  requests: use.requests * by,
  writeRequests: use.writeRequests * by,
  readUnits: use.readUnits * by,
  writeUnits: use.writeUnits * by,
});

/** The two together. */
export const sumOfUses = (a: DynamoUse, b: DynamoUse): DynamoUse => ({
  requests: a.requests + b.requests,
  writeRequests: a.writeRequests + b.writeRequests,
  readUnits: a.readUnits + b.readUnits,
  writeUnits: a.writeUnits + b.writeUnits,
});
