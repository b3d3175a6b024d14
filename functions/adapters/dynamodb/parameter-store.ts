import type { ParameterRecord } from "../../core/parameters/model.js";
import type { ParameterScope, ParameterStore } from "../../core/parameters/ports.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { Keys } from "./keys.js";
import { queryAll } from "./paging.js";
import { TableSchema } from "./table-schema.js";

const NAME_PREFIX = "P#";

function keyOf(tenant: string, scope: ParameterScope, name: string) {
  switch (scope.layer) {
    case "class":
      return Keys.classParameter(tenant, scope.className, name);
    case "group":
      return Keys.groupParameter(tenant, scope.group, name);
    case "agent":
      return Keys.agentParameter(tenant, scope.agentId, name);
  }
}

export type ValueItem = {
  name: string;
  value?: string;
  secretRef?: string;
  /** A staged change that removes the class's value. */
  removes?: boolean;
  updatedAt: number;
  updatedBy: string;
};

/** What staging writes and the console and the sweeper alone do (staged-parameter-store.ts), not the agent API. */
export type StagingMethod = "staged" | "stage" | "discardStaged" | "unstage" | "freeze";

/** An item holds its value as `value` or `secretRef`, beside the name and who set it when. */
export function recordOf(item: Record<string, unknown>): ParameterRecord {
  const { name, value, secretRef, updatedAt, updatedBy } = item as ValueItem;
  return {
    name,
    value: secretRef === undefined ? { value: value as string } : { secretRef },
    updatedAt,
    updatedBy,
  };
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
export class DynamoParameterStore implements Omit<ParameterStore, StagingMethod> {
  constructor(
    protected readonly client: DocumentClient,
    protected readonly tableName: string,
  ) {}

  async list(tenant: string, scope: ParameterScope) {
    return (await this.partition(keyOf(tenant, scope, "").pk)).map(recordOf);
  }

  /** A layer's items, or a class's staged changes: one partition, read consistently. */
  protected async partition(pk: string) {
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": pk, ":prefix": NAME_PREFIX },
      ConsistentRead: true,
    });
    return items;
  }

  async get(tenant: string, scope: ParameterScope, name: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: keyOf(tenant, scope, name),
      ConsistentRead: true,
    });
    return Item ? recordOf(Item) : undefined;
  }

  async put(tenant: string, scope: ParameterScope, record: ParameterRecord) {
    const { value, ...rest } = record;
    const { Attributes } = await directCalls(this.client).put({
      TableName: this.tableName,
      Item: {
        ...keyOf(tenant, scope, record.name),
        ...indexKeyOf(tenant, scope, record.name),
        ...rest,
        ...value,
      },
      ReturnValues: "ALL_OLD",
    });
    return Attributes ? ("replaced" as const) : ("created" as const);
  }

  async remove(tenant: string, scope: ParameterScope, name: string) {
    const { Attributes } = await directCalls(this.client).delete({
      TableName: this.tableName,
      Key: keyOf(tenant, scope, name),
      ReturnValues: "ALL_OLD",
    });
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

  async frozen(tenant: string, className: string, rolloutId: string) {
    return (await this.partition(Keys.rolloutParameter(tenant, className, rolloutId, "").pk)).map(recordOf);
  }
}
