import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  DynamoDBDocumentClient,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  TransactWriteCommandInput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from "@aws-sdk/lib-dynamodb";
import type { MadeForDirectCalls } from "../aws/call-settings.js";
import {
  callSignal,
  type JsonProtocolCall,
  jsonProtocolCalls,
  type SignalsCalls,
} from "../aws/json-protocol.js";
import { fromAttributeValues, toAttributeValues } from "./attribute-values.js";

type Item = Record<string, unknown>;

/**
 * Every DynamoDB request Beacon's adapters make, sent as DynamoDB's JSON API without the SDK's command middleware
 * (json-protocol.ts), retried by the client's own strategy: a function's requests run none of the SDK's command
 * pipeline (serialisation schemas, endpoint rules, signer, handler), about 10 ms of a cold container's CPU for
 * its first. They take and give documents as the document client's commands do, and fail as they do: with the
 * service's error name (`ConditionalCheckFailedException`, say) and what it said of the failure as the error's
 * fields (a cancelled transaction's `CancellationReasons`). A call is given up when the client's signal for it
 * (request-budget.ts) or the one given aborts.
 */
export interface DirectCalls {
  get(input: GetCommandInput): Promise<Pick<GetCommandOutput, "Item">>;
  put(input: PutCommandInput): Promise<Pick<PutCommandOutput, "Attributes">>;
  query(input: QueryCommandInput): Promise<Pick<QueryCommandOutput, "Items" | "Count" | "LastEvaluatedKey">>;
  update(input: UpdateCommandInput): Promise<Pick<UpdateCommandOutput, "Attributes">>;
  delete(input: DeleteCommandInput): Promise<Pick<DeleteCommandOutput, "Attributes">>;
  transactWrite(input: TransactWriteCommandInput): Promise<void>;
  batchGet(
    input: BatchGetCommandInput,
  ): Promise<Pick<BatchGetCommandOutput, "Responses" | "UnprocessedKeys">>;
  batchWrite(
    input: BatchWriteCommandInput,
    abortSignal?: AbortSignal,
  ): Promise<Pick<BatchWriteCommandOutput, "UnprocessedItems">>;
}

/**
 * Where a measurement watches the calls sent directly, as the SDK's middleware stack lets it watch commands
 * (scripts/bench/dynamodb-meter.ts): it may add to a call's input (ReturnConsumedCapacity) and read its output.
 */
export const directCallWatch = Symbol("directCallWatch");
export type DirectCallWatch = (operation: string, input: Item, send: () => Promise<Item>) => Promise<Item>;

/**
 * What the adapters send their requests through: a client made for direct calls alone (a function's, from
 * runtime/aws-clients/direct.ts), or the SDK's document client, whose settings they borrow (tests and tooling).
 */
export type DocumentClient = MadeForDirectCalls | DynamoDBDocumentClient;

const made = new WeakMap<DocumentClient, DirectCalls>();

/** The client's direct calls, made once per client (its endpoint, signer and strategy read at its first call). */
export function directCalls(client: DocumentClient): DirectCalls {
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
  const send = (operation: string, input: Item, abortSignal = signalNow()): Promise<Item> => {
    const sent = async () => JSON.parse(await call(operation, JSON.stringify(input), abortSignal)) as Item;
    const watch = watchNow();
    return watch ? watch(operation, input, sent) : sent();
  };
  return {
    async get({ Key, ...rest }) {
      const { Item } = await send("GetItem", { ...rest, Key: toAttributeValues(Key ?? {}) });
      return { Item: documentOf(Item) };
    },
    async put(input) {
      const { Attributes } = await send("PutItem", withItem(input));
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
    async update(input) {
      const { Attributes } = await send("UpdateItem", keyed(input));
      return { Attributes: documentOf(Attributes) };
    },
    async delete(input) {
      const { Attributes } = await send("DeleteItem", keyed(input));
      return { Attributes: documentOf(Attributes) };
    },
    async transactWrite({ TransactItems, ...rest }) {
      await send("TransactWriteItems", {
        ...rest,
        TransactItems: TransactItems?.map(({ Put, Update, Delete, ConditionCheck }) => ({
          ...(Put ? { Put: withItem(Put) } : {}),
          ...(Update ? { Update: keyed(Update) } : {}),
          ...(Delete ? { Delete: keyed(Delete) } : {}),
          ...(ConditionCheck ? { ConditionCheck: keyed(ConditionCheck) } : {}),
        })),
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
    async batchWrite({ RequestItems, ...rest }, abortSignal) {
      const { UnprocessedItems } = await send(
        "BatchWriteItem",
        { ...rest, RequestItems: writeRequestsBy(RequestItems ?? {}, toAttributeValues) },
        abortSignal,
      );
      return { UnprocessedItems: writeRequestsBy((UnprocessedItems ?? {}) as Tables, fromAttributeValues) };
    },
  };
}

/** An input's key and expression values as attribute values: an update's, a delete's or a condition check's. */
const keyed = ({
  Key,
  ExpressionAttributeValues,
  ...rest
}: {
  Key?: Item;
  ExpressionAttributeValues?: Item;
}) => ({
  ...rest,
  Key: toAttributeValues(Key ?? {}),
  ...valuesOf(ExpressionAttributeValues),
});

/** A put's item and expression values as attribute values. */
const withItem = ({
  Item,
  ExpressionAttributeValues,
  ...rest
}: {
  Item?: Item;
  ExpressionAttributeValues?: Item;
}) => ({
  ...rest,
  Item: toAttributeValues(Item ?? {}),
  ...valuesOf(ExpressionAttributeValues),
});

type Tables = NonNullable<BatchWriteCommandInput["RequestItems"]>;

/** A batch write's requests, table by table, with their items and keys converted by `convert`. */
function writeRequestsBy(tables: Tables, convert: (values: Item) => Item): Tables {
  return Object.fromEntries(
    Object.entries(tables).map(([table, requests]) => [
      table,
      requests.map(({ PutRequest, DeleteRequest }) =>
        PutRequest
          ? { PutRequest: { Item: convert(PutRequest.Item ?? {}) } }
          : { DeleteRequest: { Key: convert(DeleteRequest?.Key ?? {}) } },
      ),
    ]),
  );
}

const valuesOf = (values: Item | undefined) =>
  values ? { ExpressionAttributeValues: toAttributeValues(values) } : {};

const documentOf = (item: unknown) => (item === undefined ? undefined : fromAttributeValues(item as Item));
