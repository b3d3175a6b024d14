import type { QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import type { Page, PageRequest } from "../../core/paging.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { TableSchema } from "./table-schema.js";

/**
 * One page of one partition, in sort key order: the console's lists are key queries only. Items' sort
 * keys are `<prefix><key>`; the page's `last` is the key of the last item DynamoDB evaluated. With `between`,
 * only the keys from its first to its last, both included.
 */
export async function queryPartition(
  client: DocumentClient,
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
  client: DocumentClient,
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
  client: DocumentClient,
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

/** Where in a due partition the entries read end: before a sort key, or at one, included. */
export type DueBound = { before: string } | { through: string };

/**
 * The earliest `limit` entries of the due index across `partitions` (a queue's shards), within `bound` when
 * given, in sort key order: each partition's earliest `limit`, a small query each side by side, merged. Sent
 * directly: the sweeper's and the dispatcher's every run reads their shards' fans so, a first run paying no
 * middleware.
 */
export async function earliestDue(
  client: DocumentClient,
  tableName: string,
  partitions: string[],
  limit: number,
  bound?: DueBound,
): Promise<Record<string, unknown>[]> {
  const { due } = TableSchema.indexes;
  const calls = directCalls(client);
  const condition =
    bound === undefined
      ? undefined
      : "before" in bound
        ? { operator: "<", value: bound.before }
        : { operator: "<=", value: bound.through };
  const pages = await Promise.all(
    partitions.map((partition) =>
      calls.query({
        TableName: tableName,
        IndexName: due.indexName,
        KeyConditionExpression: `#pk = :pk${condition ? ` AND #sk ${condition.operator} :bound` : ""}`,
        ExpressionAttributeNames: { "#pk": due.partitionKey, ...(condition ? { "#sk": due.sortKey } : {}) },
        ExpressionAttributeValues: { ":pk": partition, ...(condition ? { ":bound": condition.value } : {}) },
        Limit: limit,
      }),
    ),
  );
  const sortKey = (item: Record<string, unknown>) => String(item[due.sortKey]);
  return pages
    .flatMap(({ Items }) => Items ?? [])
    .sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0))
    .slice(0, limit);
}
