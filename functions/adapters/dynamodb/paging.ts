import type { DynamoDBDocumentClient, QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import type { Page, PageRequest } from "../../core/paging.js";
import { directCalls } from "./direct-calls.js";
import { TableSchema } from "./table-schema.js";

/**
 * One page of one partition, in sort key order: the console's lists are key queries only. Items' sort
 * keys are `<prefix><key>`; the page's `last` is the key of the last item DynamoDB evaluated. With `between`,
 * only the keys from its first to its last, both included.
 */
export async function queryPartition(
  client: DynamoDBDocumentClient,
  tableName: string,
  partition: { pk: string; prefix: string; between?: [string, string] },
  request: PageRequest,
  extra: Partial<QueryCommandInput> = {},
): Promise<Page<Record<string, unknown>>> {
  const { pk, prefix, between } = partition;
  const keyCondition = between
    ? {
        KeyConditionExpression: "pk = :pk AND sk BETWEEN :first AND :last",
        ExpressionAttributeValues: {
          ":pk": pk,
          ":first": `${prefix}${between[0]}`,
          ":last": `${prefix}${between[1]}`,
        },
      }
    : {
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: { ":pk": pk, ":prefix": prefix },
      };
  // Sent directly: a new agent's registration reads its tenant's groups so.
  const page = await directCalls(client).query({
    TableName: tableName,
    KeyConditionExpression: keyCondition.KeyConditionExpression,
    ExpressionAttributeValues: {
      ...keyCondition.ExpressionAttributeValues,
      ...extra.ExpressionAttributeValues,
    },
    ...(request.after === undefined ? {} : { ExclusiveStartKey: { pk, sk: `${prefix}${request.after}` } }),
    ScanIndexForward: !request.descending,
    Limit: request.limit,
    ...withoutValues(extra),
  });
  const lastKey = page.LastEvaluatedKey?.sk as string | undefined;
  return { items: page.Items ?? [], last: lastKey?.slice(prefix.length) };
}

function withoutValues(extra: Partial<QueryCommandInput>): Partial<QueryCommandInput> {
  const { ExpressionAttributeValues: _values, ...rest } = extra;
  return rest;
}

/**
 * Every item of a query, page after page; for bounded partitions (one tenant's certificates of one agent). Sent
 * directly: the sweeper's run reads its shards' fans so, and the stream consumer a tenant's subscriptions.
 */
export async function queryAll(
  client: DynamoDBDocumentClient,
  input: QueryCommandInput,
): Promise<{ items: Record<string, unknown>[]; count: number }> {
  const calls = directCalls(client);
  const items: Record<string, unknown>[] = [];
  let count = 0;
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await calls.query({ ...input, ExclusiveStartKey: exclusiveStartKey });
    items.push(...(page.Items ?? []));
    count += page.Count ?? 0;
    exclusiveStartKey = page.LastEvaluatedKey;
  } while (exclusiveStartKey);
  return { items, count };
}

/** Every entry of one of the due index's partitions, with `attributes` of each: what the sweeper reads whole. */
export async function dueEntries(
  client: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  attributes: string[],
): Promise<Record<string, unknown>[]> {
  const { due } = TableSchema.indexes;
  const { items } = await queryAll(client, {
    TableName: tableName,
    IndexName: due.indexName,
    KeyConditionExpression: "#pk = :pk",
    ExpressionAttributeNames: { "#pk": due.partitionKey },
    ExpressionAttributeValues: { ":pk": partition },
    ProjectionExpression: attributes.join(", "),
  });
  return items;
}
