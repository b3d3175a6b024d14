import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { ParameterRecord, StagedChange } from "../../core/parameters/model.js";
import type { ParameterScope, ParameterStore } from "../../core/parameters/ports.js";
import { batchWriteAll } from "./batch-write.js";
import { isConditionalCheckFailure, Keys } from "./keys.js";
import { queryAll } from "./paging.js";
import { TableSchema } from "./table-schema.js";

const NAME_PREFIX = "P#";

const keyOf = (tenant: string, scope: ParameterScope, name: string) =>
  scope.layer === "class"
    ? Keys.classParameter(tenant, scope.className, name)
    : Keys.agentParameter(tenant, scope.agentId, name);

type ValueItem = {
  name: string;
  value?: string;
  secretRef?: string;
  /** A staged change that removes the class's value. */
  removes?: boolean;
  updatedAt: number;
  updatedBy: string;
};

/** An item holds its value as `value` or `secretRef`, beside the name and who set it when. */
function recordOf(item: Record<string, unknown>): ParameterRecord {
  const { name, value, secretRef, updatedAt, updatedBy } = item as ValueItem;
  return {
    name,
    value: secretRef === undefined ? { value: value as string } : { secretRef },
    updatedAt,
    updatedBy,
  };
}

/** A staged change's item is a value's, or one marked `removes` for a change that removes the value. */
function stagedChangeOf(item: Record<string, unknown>): StagedChange {
  if (!(item as ValueItem).removes) return recordOf(item);
  const { name, updatedAt, updatedBy } = item as ValueItem;
  return { name, updatedAt, updatedBy };
}

/**
 * An agent's value is also in the tenant index, in a partition per parameter name by agent id: the agents
 * holding their own value of a name are one query, tenant-wide (an agent's class may change, its values stay).
 */
const indexKeyOf = (tenant: string, scope: ParameterScope, name: string) =>
  scope.layer === "agent"
    ? { gsi2pk: Keys.agentsHoldingParameter(tenant, name), gsi2sk: Keys.agentInClass(scope.agentId) }
    : {};

/**
 * Parameter values, one item each in a partition per class or agent, sorted by name: a layer's values are
 * one query (a layer holds few enough for one page). References are stored as given; no secret is.
 */
export class DynamoParameterStore implements ParameterStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async list(tenant: string, scope: ParameterScope) {
    return (await this.partition(keyOf(tenant, scope, "").pk)).map(recordOf);
  }

  /** A layer's items, or a class's staged changes: one partition, read consistently. */
  private async partition(pk: string) {
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": pk, ":prefix": NAME_PREFIX },
      ConsistentRead: true,
    });
    return items;
  }

  async get(tenant: string, scope: ParameterScope, name: string) {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keyOf(tenant, scope, name), ConsistentRead: true }),
    );
    return Item ? recordOf(Item) : undefined;
  }

  async put(tenant: string, scope: ParameterScope, record: ParameterRecord) {
    const { value, ...rest } = record;
    const { Attributes } = await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keyOf(tenant, scope, record.name),
          ...indexKeyOf(tenant, scope, record.name),
          ...rest,
          ...value,
        },
        ReturnValues: "ALL_OLD",
      }),
    );
    return Attributes ? ("replaced" as const) : ("created" as const);
  }

  async remove(tenant: string, scope: ParameterScope, name: string) {
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keyOf(tenant, scope, name),
        ReturnValues: "ALL_OLD",
      }),
    );
    return Attributes ? recordOf(Attributes) : undefined;
  }

  async agentValuesOf(tenant: string, name: string) {
    const { indexName, partitionKey } = TableSchema.indexes.byTenant;
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: indexName,
      KeyConditionExpression: `${partitionKey} = :pk`,
      ExpressionAttributeValues: { ":pk": Keys.agentsHoldingParameter(tenant, name) },
    });
    const prefix = Keys.agentInClass("");
    return items.map((item) => ({
      agentId: (item.gsi2sk as string).slice(prefix.length),
      record: recordOf(item),
    }));
  }

  async staged(tenant: string, className: string) {
    return (await this.partition(Keys.stagedClassParameter(tenant, className, "").pk)).map(stagedChangeOf);
  }

  async stage(tenant: string, className: string, change: StagedChange) {
    const { value, ...rest } = change;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...Keys.stagedClassParameter(tenant, className, change.name),
          ...rest,
          ...(value ?? { removes: true }),
        },
      }),
    );
  }

  /** One query and batches of deletes: a class's staged changes are few, as its values are. */
  async discardStaged(tenant: string, className: string) {
    const items = await this.partition(Keys.stagedClassParameter(tenant, className, "").pk);
    await batchWriteAll(
      this.client,
      this.tableName,
      items.map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } })),
      "discarded staged values",
    );
    return items.map(stagedChangeOf);
  }

  async unstage(tenant: string, className: string, changes: readonly StagedChange[]) {
    await Promise.all(
      changes.map((change) =>
        this.client
          .send(
            new DeleteCommand({
              TableName: this.tableName,
              Key: Keys.stagedClassParameter(tenant, className, change.name),
              ConditionExpression: "updatedAt = :updatedAt",
              ExpressionAttributeValues: { ":updatedAt": change.updatedAt },
            }),
          )
          .catch((error: unknown) => {
            if (!isConditionalCheckFailure(error)) throw error;
          }),
      ),
    );
  }

  async freeze(tenant: string, className: string, rolloutId: string, values: readonly ParameterRecord[]) {
    await batchWriteAll(
      this.client,
      this.tableName,
      values.map(({ value, ...rest }) => ({
        PutRequest: {
          Item: { ...Keys.rolloutParameter(tenant, className, rolloutId, rest.name), ...rest, ...value },
        },
      })),
      "a rollout's frozen values",
    );
  }

  async frozen(tenant: string, className: string, rolloutId: string) {
    return (await this.partition(Keys.rolloutParameter(tenant, className, rolloutId, "").pk)).map(recordOf);
  }
}
