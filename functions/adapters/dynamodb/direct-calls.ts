import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  DynamoDBDocumentClient,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  UpdateCommandInput,
} from "@aws-sdk/lib-dynamodb";
import {
  callSignal,
  type JsonProtocolCall,
  jsonProtocolCalls,
  type SignalsCalls,
} from "../aws/json-protocol.js";
import { fromAttributeValues, toAttributeValues } from "./attribute-values.js";

type Item = Record<string, unknown>;

/**
 * Every adapter's gets, puts, queries and batch gets, and the agent API's checkpoint updates, sent as DynamoDB's
 * JSON API without the SDK's command middleware (json-protocol.ts), retried by the client's own strategy: a
 * function's first request then runs none of the SDK's command pipeline (serialisation schemas, endpoint rules,
 * signer, handler), about 10 ms of a cold container's CPU, unless it sends a command still left to the SDK (a
 * delete, most updates, a transaction, a batch write). They take and give documents as the
 * document client's commands do, and fail as they do: with the service's error name
 * (`ConditionalCheckFailedException`, say).
 */
export interface DirectCalls {
  get(input: GetCommandInput): Promise<Pick<GetCommandOutput, "Item">>;
  put(input: PutCommandInput): Promise<Pick<PutCommandOutput, "Attributes">>;
  query(input: QueryCommandInput): Promise<Pick<QueryCommandOutput, "Items" | "Count" | "LastEvaluatedKey">>;
  update(input: UpdateCommandInput): Promise<void>;
  batchGet(
    input: BatchGetCommandInput,
  ): Promise<Pick<BatchGetCommandOutput, "Responses" | "UnprocessedKeys">>;
}

/**
 * Where a measurement watches the calls sent directly, as the SDK's middleware stack lets it watch commands
 * (scripts/bench/dynamodb-meter.ts): it may add to a call's input (ReturnConsumedCapacity) and read its output.
 */
export const directCallWatch = Symbol("directCallWatch");
export type DirectCallWatch = (operation: string, input: Item, send: () => Promise<Item>) => Promise<Item>;

const made = new WeakMap<DynamoDBDocumentClient, DirectCalls>();

/** The client's direct calls, made once per client (its endpoint, signer and strategy read at its first call). */
export function directCalls(client: DynamoDBDocumentClient): DirectCalls {
  let calls = made.get(client);
  if (!calls) {
    calls = callsOver(
      jsonProtocolCalls(client, {
        targetPrefix: "DynamoDB_20120810",
        signingName: "dynamodb",
        contentType: "application/x-amz-json-1.0",
        retried: true,
      }),
      () => (client as SignalsCalls)[callSignal]?.(),
      () => (client as { [directCallWatch]?: DirectCallWatch })[directCallWatch],
    );
    made.set(client, calls);
  }
  return calls;
}

function callsOver(
  call: JsonProtocolCall,
  signalNow: () => AbortSignal | undefined,
  watchNow: () => DirectCallWatch | undefined,
): DirectCalls {
  const send = (operation: string, input: Item): Promise<Item> => {
    const sent = async () => JSON.parse(await call(operation, JSON.stringify(input), signalNow())) as Item;
    const watch = watchNow();
    return watch ? watch(operation, input, sent) : sent();
  };
  return {
    async get({ Key, ...rest }) {
      const { Item } = await send("GetItem", { ...rest, Key: toAttributeValues(Key ?? {}) });
      return { Item: documentOf(Item) };
    },
    async put({ Item, ExpressionAttributeValues, ...rest }) {
      const { Attributes } = await send("PutItem", {
        ...rest,
        Item: toAttributeValues(Item ?? {}),
        ...valuesOf(ExpressionAttributeValues),
      });
      return { Attributes: documentOf(Attributes) };
    },
    async query({ ExpressionAttributeValues, ExclusiveStartKey, ...rest }) {
      const page = await send("Query", {
        ...rest,
        ...valuesOf(ExpressionAttributeValues),
        ...(ExclusiveStartKey ? { ExclusiveStartKey: toAttributeValues(ExclusiveStartKey) } : {}),
      });
      return {
        Items: (page.Items as Item[] | undefined)?.map(fromAttributeValues),
        Count: page.Count as number | undefined,
        LastEvaluatedKey: documentOf(page.LastEvaluatedKey),
      };
    },
    async update({ Key, ExpressionAttributeValues, ...rest }) {
      await send("UpdateItem", {
        ...rest,
        Key: toAttributeValues(Key ?? {}),
        ...valuesOf(ExpressionAttributeValues),
      });
    },
    async batchGet({ RequestItems, ...rest }) {
      const tables = Object.entries(RequestItems ?? {});
      const { Responses, UnprocessedKeys } = await send("BatchGetItem", {
        ...rest,
        RequestItems: Object.fromEntries(
          tables.map(([table, { Keys, ...read }]) => [
            table,
            { ...read, Keys: Keys?.map((key) => toAttributeValues(key)) },
          ]),
        ),
      });
      const unprocessed = Object.entries((UnprocessedKeys ?? {}) as Record<string, { Keys?: Item[] }>);
      return {
        Responses: Object.fromEntries(
          Object.entries((Responses ?? {}) as Record<string, Item[]>).map(([table, items]) => [
            table,
            items.map((item) => fromAttributeValues(item)),
          ]),
        ),
        UnprocessedKeys: Object.fromEntries(
          unprocessed.map(([table, { Keys, ...read }]) => [
            table,
            { ...read, Keys: Keys?.map((key) => fromAttributeValues(key)) },
          ]),
        ),
      };
    },
  };
}

const valuesOf = (values: Item | undefined) =>
  values ? { ExpressionAttributeValues: toAttributeValues(values) } : {};

const documentOf = (item: unknown) => (item === undefined ? undefined : fromAttributeValues(item as Item));
