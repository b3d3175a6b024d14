import type { ParameterRecord, StagedChange } from "../../core/parameters/model.js";
import type { ParameterStore } from "../../core/parameters/ports.js";
import { batchWriteAll } from "./batch-write.js";
import { directCalls } from "./direct-calls.js";
import { isConditionalCheckFailure, Keys } from "./keys.js";
import { DynamoParameterStore, recordOf, type ValueItem } from "./parameter-store.js";

/**
 * The changes of one class's values staged for a rollout, by name: apart from its values in force. Spelled
 * here rather than in keys.ts, as only this store (which the agent API does not bundle) reads or writes them.
 */
const stagedKey = (tenant: string, className: string, name: string) => ({
  pk: `T#${tenant}#PARAMS#S#${className}`,
  sk: `P#${name}`,
});

/** A staged change's item is a value's, or one marked `removes` for a change that removes the value. */
function stagedChangeOf(item: Record<string, unknown>): StagedChange {
  if (!(item as ValueItem).removes) return recordOf(item);
  const { name, updatedAt, updatedBy } = item as ValueItem;
  return { name, updatedAt, updatedBy };
}

/**
 * The parameter store with what staging writes, for the console and the sweeper: a class's staged changes in
 * a partition of their own, and the values a rollout of them froze in one per rollout. Kept apart from the
 * store the agent API bundles, which only reads.
 */
export class DynamoStagingParameterStore extends DynamoParameterStore implements ParameterStore {
  async staged(tenant: string, className: string) {
    return (await this.partition(stagedKey(tenant, className, "").pk)).map(stagedChangeOf);
  }

  async stage(tenant: string, className: string, change: StagedChange) {
    const { value, ...rest } = change;
    await directCalls(this.client).put({
      TableName: this.tableName,
      Item: {
        ...stagedKey(tenant, className, change.name),
        ...rest,
        ...(value ?? { removes: true }),
      },
    });
  }

  /** One query and batches of deletes: a class's staged changes are few, as its values are. */
  async discardStaged(tenant: string, className: string) {
    const items = await this.partition(stagedKey(tenant, className, "").pk);
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
        directCalls(this.client)
          .delete({
            TableName: this.tableName,
            Key: stagedKey(tenant, className, change.name),
            ConditionExpression: "updatedAt = :updatedAt",
            ExpressionAttributeValues: { ":updatedAt": change.updatedAt },
          })
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
}
