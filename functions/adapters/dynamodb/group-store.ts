import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Group, GroupStore } from "../../core/groups/ports.js";
import { dropUndefined } from "../../core/json.js";
import type { PageRequest } from "../../core/paging.js";
import { isConditionalCheckFailure, Keys, putIfAbsent } from "./keys.js";
import { queryPartition } from "./paging.js";

/** What a replaced group without them no longer has. */
const REPLACED_OPTIONAL_FIELDS = ["description", "requireApproval", "maintenanceWindows"] as const;

/** The tenant's groups: a small item each, in the tenant's groups partition, in no index. */
export class DynamoGroupStore implements GroupStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  create(group: Group) {
    return putIfAbsent(this.client, this.tableName, { ...Keys.group(group.tenant, group.name), ...group });
  }

  async replace(group: Group) {
    const { tenant: _tenant, name: _name, createdAt: _createdAt, ...fields } = group;
    const set = Object.keys(dropUndefined(fields));
    const removed = REPLACED_OPTIONAL_FIELDS.filter((field) => fields[field] === undefined);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.group(group.tenant, group.name),
          UpdateExpression: [
            `SET ${set.map((field) => `#${field} = :${field}`).join(", ")}`,
            ...(removed.length > 0 ? [`REMOVE ${removed.map((field) => `#${field}`).join(", ")}`] : []),
          ].join(" "),
          ConditionExpression: "attribute_exists(pk)",
          ExpressionAttributeNames: Object.fromEntries(
            [...set, ...removed].map((field) => [`#${field}`, field]),
          ),
          ExpressionAttributeValues: Object.fromEntries(
            set.map((field) => [`:${field}`, fields[field as keyof typeof fields]]),
          ),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  async get(tenant: string, name: string) {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: Keys.group(tenant, name) }),
    );
    return Item && toGroup(Item);
  }

  async list(tenant: string, page: PageRequest) {
    const { pk, sk: prefix } = Keys.group(tenant, "");
    const { items, last } = await queryPartition(this.client, this.tableName, { pk, prefix }, page);
    return { items: items.map(toGroup), last };
  }

  async delete(tenant: string, name: string) {
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: Keys.group(tenant, name),
        ReturnValues: "ALL_OLD",
      }),
    );
    return Attributes !== undefined;
  }
}

function toGroup(item: Record<string, unknown>): Group {
  const { pk: _pk, sk: _sk, ...group } = item;
  return group as unknown as Group;
}
