import type { AdoptionRecord } from "../../core/adoptions/model.js";
import type { AdoptionKey, AdoptionStore, MadeCurrent } from "../../core/adoptions/ports.js";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import { dropUndefined } from "../../core/json.js";
import type { PageRequest } from "../../core/paging.js";
import { classCreation } from "./class-catalog.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { isConditionalCheckFailure, Keys } from "./keys.js";
import { dueEntries, queryPartition } from "./paging.js";
import { TableSchema } from "./table-schema.js";

const ADOPTION_PREFIX = "AD#";
const dueIndex = TableSchema.indexes.due;

/**
 * One item per adoption in its class's adoption partition; settling it is conditional on it being requested.
 * A requested adoption is in the due index's adoption partition too, by creation time, where the sweeper finds
 * every tenant's in one query; the settled record, written whole, leaves it. Making a version current writes
 * the class item's flow policy, on the condition that it has none and no rollout under way, the condition a
 * rollout's start keeps too.
 */
export class DynamoAdoptionStore implements AdoptionStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async create(record: AdoptionRecord) {
    await directCalls(this.client).put({
      TableName: this.tableName,
      Item: itemOf(record),
      ConditionExpression: "attribute_not_exists(pk)",
    });
  }

  async get(tenant: string, className: string, adoptionId: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.adoption(tenant, className, adoptionId),
      ConsistentRead: true,
    });
    return Item ? toAdoption(Item) : undefined;
  }

  async list(tenant: string, className: string, request: PageRequest) {
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk: Keys.adoption(tenant, className, "").pk, prefix: ADOPTION_PREFIX },
      { ...request, descending: true },
    );
    return { items: page.items.map(toAdoption), last: page.last };
  }

  async settle(record: AdoptionRecord) {
    return this.conditionally(() =>
      directCalls(this.client).put({
        TableName: this.tableName,
        Item: itemOf(record),
        ConditionExpression: "#state = :requested",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":requested": "requested" },
      }),
    );
  }

  async *requested(): AsyncGenerator<AdoptionKey> {
    // Three small attributes per adoption awaiting its bundle: read whole, as the sweeper looks at them all.
    const items = await dueEntries(this.client, this.tableName, Keys.dueAdoptions(), [
      "tenant",
      "className",
      "adoptionId",
    ]);
    for (const item of items)
      yield {
        tenant: item.tenant as string,
        className: item.className as string,
        adoptionId: item.adoptionId as string,
      };
  }

  async makeCurrent(
    tenant: string,
    className: string,
    policy: ClassFlowPolicy,
    now: number,
  ): Promise<MadeCurrent> {
    if (await this.writePolicy(tenant, className, policy, now)) return "made";
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.agentClass(tenant, className),
      ProjectionExpression: "flowPolicy.target",
      ConsistentRead: true,
    });
    return (Item?.flowPolicy as ClassFlowPolicy | undefined)?.target === policy.target
      ? "already"
      : "refused";
  }

  private writePolicy(tenant: string, className: string, policy: ClassFlowPolicy, now: number) {
    const creation = classCreation(tenant, className, now);
    return this.conditionally(() =>
      directCalls(this.client).update({
        TableName: this.tableName,
        Key: Keys.agentClass(tenant, className),
        UpdateExpression: `SET ${[...creation.assignments, "flowPolicy = :policy"].join(", ")}`,
        ConditionExpression: "attribute_not_exists(flowPolicy) AND attribute_not_exists(activeRolloutId)",
        ExpressionAttributeNames: creation.names,
        ExpressionAttributeValues: { ...creation.values, ":policy": dropUndefined(policy) },
      }),
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
  ...(record.state === "requested"
    ? { [dueIndex.partitionKey]: Keys.dueAdoptions(), [dueIndex.sortKey]: Keys.dueAt(record.createdAt) }
    : {}),
});

function toAdoption(item: Record<string, unknown>): AdoptionRecord {
  const {
    pk: _pk,
    sk: _sk,
    [dueIndex.partitionKey]: _duePartition,
    [dueIndex.sortKey]: _dueAt,
    ...record
  } = item;
  return record as unknown as AdoptionRecord;
}
