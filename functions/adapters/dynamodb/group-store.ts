import type { CountingState, Group, GroupStore } from "../../core/groups/ports.js";
import { dropUndefined } from "../../core/json.js";
import type { PageRequest } from "../../core/paging.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { isConditionalCheckFailure, Keys, putIfAbsent } from "./keys.js";
import { queryPartition } from "./paging.js";

/** What a replaced group without them no longer has. */
const REPLACED_OPTIONAL_FIELDS = [
  "description",
  "requireApproval",
  "maintenanceWindows",
  "parameterPriority",
] as const;
/** A replaced group's count, of the group as it was: the next pass counts it anew. */
const COUNT_FIELDS = ["memberCount", "countedAt"] as const;

/**
 * The tenant's groups: a small item each, in the tenant's groups partition, in no index, with the tenant's
 * counting state beside them (an item of its own, out of the groups' listing).
 */
export class DynamoGroupStore implements GroupStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  create(group: Group) {
    return putIfAbsent(this.client, this.tableName, { ...Keys.group(group.tenant, group.name), ...group });
  }

  async replace(group: Group) {
    const {
      tenant: _tenant,
      name: _name,
      createdAt: _createdAt,
      memberCount: _memberCount,
      countedAt: _countedAt,
      parameterNames: _parameterNames,
      ...fields
    } = group;
    const set = Object.keys(dropUndefined(fields));
    const removed = [
      ...REPLACED_OPTIONAL_FIELDS.filter((field) => fields[field] === undefined),
      ...COUNT_FIELDS,
    ];
    try {
      await directCalls(this.client).update({
        TableName: this.tableName,
        Key: Keys.group(group.tenant, group.name),
        UpdateExpression: [
          `SET ${set.map((field) => `#${field} = :${field}`).join(", ")}`,
          `REMOVE ${removed.map((field) => `#${field}`).join(", ")}`,
        ].join(" "),
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeNames: Object.fromEntries(
          [...set, ...removed].map((field) => [`#${field}`, field]),
        ),
        ExpressionAttributeValues: Object.fromEntries(
          set.map((field) => [`:${field}`, fields[field as keyof typeof fields]]),
        ),
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  /** The names are a string set, which ADD and DELETE change one name at a time. */
  async markParameter(tenant: string, name: string, parameter: string, holds: boolean) {
    try {
      await directCalls(this.client).update({
        TableName: this.tableName,
        Key: Keys.group(tenant, name),
        UpdateExpression: `${holds ? "ADD" : "DELETE"} parameterNames :names`,
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":names": new Set([parameter]) },
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  async putCount(
    tenant: string,
    name: string,
    count: { updatedAt: number; memberCount: number; countedAt: number },
  ) {
    try {
      await directCalls(this.client).update({
        TableName: this.tableName,
        Key: Keys.group(tenant, name),
        UpdateExpression: "SET memberCount = :memberCount, countedAt = :countedAt",
        ConditionExpression: "updatedAt = :updatedAt",
        ExpressionAttributeValues: {
          ":updatedAt": count.updatedAt,
          ":memberCount": count.memberCount,
          ":countedAt": count.countedAt,
        },
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  async countingState(tenant: string): Promise<CountingState> {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.groupCounting(tenant),
    });
    if (!Item) return {};
    const { pk: _pk, sk: _sk, ...state } = Item;
    return state as CountingState;
  }

  async putCountingState(tenant: string, state: CountingState) {
    await directCalls(this.client).put({
      TableName: this.tableName,
      Item: { ...Keys.groupCounting(tenant), ...state },
    });
  }

  async get(tenant: string, name: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.group(tenant, name),
    });
    return Item && toGroup(Item);
  }

  async list(tenant: string, page: PageRequest) {
    const { pk, sk: prefix } = Keys.group(tenant, "");
    const { items, last } = await queryPartition(this.client, this.tableName, { pk, prefix }, page);
    return { items: items.map(toGroup), last };
  }

  async delete(tenant: string, name: string) {
    const { Attributes } = await directCalls(this.client).delete({
      TableName: this.tableName,
      Key: Keys.group(tenant, name),
      ReturnValues: "ALL_OLD",
    });
    return Attributes !== undefined;
  }
}

function toGroup(item: Record<string, unknown>): Group {
  const { pk: _pk, sk: _sk, parameterNames, ...group } = item;
  const names = parameterNames instanceof Set ? [...(parameterNames as Set<string>)].sort() : [];
  return { ...(group as unknown as Group), ...(names.length > 0 ? { parameterNames: names } : {}) };
}
