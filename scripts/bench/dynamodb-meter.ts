/**
 * A DynamoDB client for measurements: it counts its requests, those that write, and the capacity they consumed,
 * as DynamoDB (Local) returns it to each request that asks (ReturnConsumedCapacity).
 */
import type { ConsumedCapacity } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { makeDynamoDbClient } from "../../functions/runtime/aws-clients.js";

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
  client.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = "TOTAL";
      const writes = WRITES.test(context.commandName ?? "");
      meter.requests++;
      if (writes) meter.writeRequests++;
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] })
        .ConsumedCapacity;
      for (const capacity of [consumed ?? []].flat()) {
        if (writes) meter.writeUnits += capacity.CapacityUnits ?? 0;
        else meter.readUnits += capacity.CapacityUnits ?? 0;
      }
      return result;
    },
    { step: "initialize", name: "meterRequests" },
  );
  const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return { documents, meter };
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
