import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { AdoptionRecord } from "../../core/adoptions/model.js";
import type { AdoptionStore } from "../../core/adoptions/ports.js";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import { dropUndefined } from "../../core/json.js";
import { classCreation } from "./class-catalog.js";
import { isConditionalCheckFailure, Keys } from "./keys.js";

/**
 * One item per adoption in its class's adoption partition; settling it is conditional on it being requested.
 * Making a version current writes the class item's flow policy, on the condition that it has none and no
 * rollout under way, the condition a rollout's start keeps too.
 */
export class DynamoAdoptionStore implements AdoptionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(record: AdoptionRecord) {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: itemOf(record),
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
  }

  async get(tenant: string, className: string, adoptionId: string) {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: Keys.adoption(tenant, className, adoptionId),
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    const { pk: _pk, sk: _sk, ...record } = Item;
    return record as AdoptionRecord;
  }

  async settle(record: AdoptionRecord) {
    return this.conditionally(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: itemOf(record),
          ConditionExpression: "#state = :requested",
          ExpressionAttributeNames: { "#state": "state" },
          ExpressionAttributeValues: { ":requested": "requested" },
        }),
      ),
    );
  }

  async makeCurrent(tenant: string, className: string, policy: ClassFlowPolicy, now: number) {
    const creation = classCreation(tenant, className, now);
    return this.conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.agentClass(tenant, className),
          UpdateExpression: `SET ${[...creation.assignments, "flowPolicy = :policy"].join(", ")}`,
          ConditionExpression: "attribute_not_exists(flowPolicy) AND attribute_not_exists(activeRolloutId)",
          ExpressionAttributeNames: creation.names,
          ExpressionAttributeValues: { ...creation.values, ":policy": dropUndefined(policy) },
        }),
      ),
    );
  }

  private async conditionally(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }
}

const itemOf = (record: AdoptionRecord) => ({
  ...Keys.adoption(record.tenant, record.className, record.adoptionId),
  ...dropUndefined(record),
});
