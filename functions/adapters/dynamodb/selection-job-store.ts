import { dropUndefined } from "../../core/json.js";
import type { SelectionJobKey, SelectionJobStore } from "../../core/operations/ports.js";
import type { SelectionJob } from "../../core/operations/selection-jobs.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { isConditionalCheckFailure, Keys, recordOf } from "./keys.js";
import { dueEntries } from "./paging.js";
import { TableSchema } from "./table-schema.js";

const dueIndex = TableSchema.indexes.due;

/**
 * One item per selection job in its tenant's selection partition. A running job is in the due index's
 * selection partition too, by creation time, where the sweeper finds every tenant's in one query; a job
 * written done or failed leaves it. Each step's write is conditional on the cursor it read on after, so two
 * runs of one step write it once.
 */
export class DynamoSelectionJobStore implements SelectionJobStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async create(job: SelectionJob) {
    await directCalls(this.client).put({
      TableName: this.tableName,
      Item: itemOf(job),
      ConditionExpression: "attribute_not_exists(pk)",
    });
  }

  async get(tenant: string, selectionId: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.selectionJob(tenant, selectionId),
      ConsistentRead: true,
    });
    return Item ? toJob(Item) : undefined;
  }

  async advance(job: SelectionJob, cursor: string) {
    try {
      await directCalls(this.client).put({
        TableName: this.tableName,
        Item: itemOf(job),
        ConditionExpression: "#state = :running AND #cursor = :cursor",
        ExpressionAttributeNames: { "#state": "state", "#cursor": "cursor" },
        ExpressionAttributeValues: { ":running": "running", ":cursor": cursor },
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  async *running(): AsyncGenerator<SelectionJobKey> {
    // Two small attributes per running job: read whole, as the sweeper looks at them all.
    const items = await dueEntries(this.client, this.tableName, Keys.dueSelections(), [
      "tenant",
      "selectionId",
    ]);
    for (const item of items)
      yield { tenant: item.tenant as string, selectionId: item.selectionId as string };
  }
}

const itemOf = (job: SelectionJob) => ({
  ...Keys.selectionJob(job.tenant, job.selectionId),
  ...dropUndefined(job),
  ...(job.state === "running"
    ? { [dueIndex.partitionKey]: Keys.dueSelections(), [dueIndex.sortKey]: Keys.dueAt(job.createdAt) }
    : {}),
});

const toJob = (item: Record<string, unknown>) =>
  recordOf<SelectionJob>(item, ["pk", "sk", dueIndex.partitionKey, dueIndex.sortKey]);
