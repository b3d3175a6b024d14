import type { PutCommandInput, TransactWriteUpdate } from "@aws-sdk/lib-dynamodb";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import { dropUndefined } from "../../core/json.js";
import {
  isRolloutFinal,
  type MemberState,
  type RolloutMember,
  type RolloutRecord,
} from "../../core/rollouts/model.js";
import type { RolloutQuery, RolloutStore } from "../../core/rollouts/ports.js";
import { classCreation } from "./class-catalog.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { failedTransactionConditions, isConditionalCheckFailure, Keys } from "./keys.js";
import { dueEntries, queryAll, queryPartition } from "./paging.js";
import { TableSchema } from "./table-schema.js";

const ROLLOUT_PREFIX = "R#";
const MEMBER_PREFIX = "M#";
/** Member writes in flight at once: a batch of a few hundred takes a few round trips, not hundreds. */
const MEMBER_WRITE_CONCURRENCY = 25;
const dueIndex = TableSchema.indexes.due;

/** An active rollout's entry in the due index, which the sweeper reads for every tenant at once. */
const activeIndexOf = (record: RolloutRecord) => ({
  [dueIndex.partitionKey]: Keys.dueRollouts(),
  [dueIndex.sortKey]: Keys.dueAt(record.createdAt),
});

type Outcome = "written" | "rollout condition failed" | "class condition failed";

const withoutKeys = <T>(item: Record<string, unknown>, names: string[]): T => {
  const record = { ...item };
  for (const name of names) delete record[name];
  return record as T;
};
const toRollout = (item: Record<string, unknown>) =>
  withoutKeys<RolloutRecord>(item, ["pk", "sk", dueIndex.partitionKey, dueIndex.sortKey]);
const toMember = (item: Record<string, unknown>) => withoutKeys<RolloutMember>(item, ["pk", "sk"]);

/**
 * Rollouts in one partition per tenant, newest first by id; each rollout's members in a partition of
 * its own, by batch then agent id, so a batch is one consistent query. The class item holds the active
 * rollout's id and the flow policy, and changes only in a transaction with the rollout.
 */
export class DynamoRolloutStore implements RolloutStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  start(record: RolloutRecord, policy: ClassFlowPolicy | undefined) {
    return this.claim(record, { policy });
  }

  hold(record: RolloutRecord) {
    return this.claim(record, "kept");
  }

  async get(tenant: string, rolloutId: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.rollout(tenant, rolloutId),
      ConsistentRead: true,
    });
    return Item ? toRollout(Item) : undefined;
  }

  /**
   * Newest first, continuing below the last id returned through the key condition. A tenant's rollouts
   * are few, so the class and state filters narrow pages of the one partition rather than needing keys of
   * their own.
   */
  async list(tenant: string, query: RolloutQuery) {
    const filters = [
      ...(query.className === undefined ? [] : ["className = :className"]),
      ...(query.state === undefined ? [] : ["#state = :state"]),
    ];
    const page = await directCalls(this.client).query({
      TableName: this.tableName,
      KeyConditionExpression:
        query.after === undefined ? "pk = :pk AND begins_with(sk, :prefix)" : "pk = :pk AND sk < :before",
      FilterExpression: filters.length === 0 ? undefined : filters.join(" AND "),
      ExpressionAttributeNames: query.state === undefined ? undefined : { "#state": "state" },
      ExpressionAttributeValues: dropUndefined({
        ":pk": Keys.rollout(tenant, "").pk,
        // The partition holds rollouts only, so below the last key returned is the rest of the list.
        ":prefix": query.after === undefined ? ROLLOUT_PREFIX : undefined,
        ":before": query.after === undefined ? undefined : `${ROLLOUT_PREFIX}${query.after}`,
        ":className": query.className,
        ":state": query.state,
      }),
      ScanIndexForward: false,
      Limit: query.limit,
    });
    const lastKey = page.LastEvaluatedKey?.sk as string | undefined;
    return { items: (page.Items ?? []).map(toRollout), last: lastKey?.slice(ROLLOUT_PREFIX.length) };
  }

  async save(record: RolloutRecord, readVersion: number, policy?: ClassFlowPolicy) {
    const rollout = this.rolloutPut(record, {
      ConditionExpression: "#version = :readVersion",
      ExpressionAttributeNames: { "#version": "version" },
      ExpressionAttributeValues: { ":readVersion": readVersion },
    });
    const final = isRolloutFinal(record.state);
    if (!policy && !final) return this.putConditionally(rollout);
    const classUpdate: TransactWriteUpdate = {
      TableName: this.tableName,
      Key: Keys.agentClass(record.tenant, record.className),
      UpdateExpression: [
        ...(policy ? ["SET flowPolicy = :policy"] : []),
        ...(final ? ["REMOVE activeRolloutId"] : []),
      ].join(" "),
      // Only the class's active rollout changes its policy, and a final one must not clear a successor's id.
      ConditionExpression: "activeRolloutId = :rolloutId",
      ExpressionAttributeValues: dropUndefined({
        ":rolloutId": record.rolloutId,
        ":policy": policy && dropUndefined(policy),
      }),
    };
    const outcome = await this.writeTogether(rollout, classUpdate);
    // The rollout is unchanged but no longer the class's active one (it ended before): the class is not its to change.
    if (outcome === "class condition failed") return this.putConditionally(rollout);
    return outcome === "written";
  }

  async *active(): AsyncGenerator<{ tenant: string; rolloutId: string }> {
    // Two small attributes per active rollout: read whole, as the sweeper looks at them all.
    const items = await dueEntries(this.client, this.tableName, Keys.dueRollouts(), ["tenant", "rolloutId"]);
    for (const item of items) yield { tenant: item.tenant as string, rolloutId: item.rolloutId as string };
  }

  /** Conditional puts, as a batch write cannot be conditional; a few in flight at once. */
  async addMembers(members: RolloutMember[]) {
    const written: RolloutMember[] = [];
    let next = 0;
    const writer = async () => {
      while (next < members.length) {
        const member = members[next++] as RolloutMember;
        if (await this.addMember(member)) written.push(member);
      }
    };
    await Promise.all(Array.from({ length: Math.min(MEMBER_WRITE_CONCURRENCY, members.length) }, writer));
    return written;
  }

  async members(tenant: string, rolloutId: string, batch?: number) {
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: {
        ":pk": Keys.rolloutMember(tenant, rolloutId, 0, "").pk,
        ":prefix": batch === undefined ? MEMBER_PREFIX : Keys.rolloutBatch(batch),
      },
      ConsistentRead: true,
    });
    return items.map(toMember);
  }

  async memberPage(tenant: string, rolloutId: string, request: { limit: number; after?: string }) {
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk: Keys.rolloutMember(tenant, rolloutId, 0, "").pk, prefix: MEMBER_PREFIX },
      request,
    );
    return { items: page.items.map(toMember), last: page.last };
  }

  /** Replaces the member whole, so fields the change cleared go too. */
  async updateMember(member: RolloutMember, from: MemberState) {
    return this.putConditionally({
      TableName: this.tableName,
      Item: { ...this.memberKey(member), ...dropUndefined(member) },
      ConditionExpression: "#state = :from",
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: { ":from": from },
    });
  }

  /** A member that exists already (a retried batch) stays as it is. */
  private addMember(member: RolloutMember): Promise<boolean> {
    return this.putConditionally({
      TableName: this.tableName,
      Item: { ...this.memberKey(member), ...dropUndefined(member) },
      ConditionExpression: "attribute_not_exists(pk)",
    });
  }

  private memberKey(member: RolloutMember) {
    return Keys.rolloutMember(member.tenant, member.rolloutId, member.batch, member.agentId);
  }

  /** Writes the rollout as the class's active one, with the class's flow policy given or kept as it is. */
  private async claim(record: RolloutRecord, change: { policy: ClassFlowPolicy | undefined } | "kept") {
    const policy = change === "kept" ? undefined : change.policy;
    const creation = classCreation(record.tenant, record.className, record.createdAt);
    const classUpdate: TransactWriteUpdate = {
      TableName: this.tableName,
      Key: Keys.agentClass(record.tenant, record.className),
      UpdateExpression: [
        `SET ${[
          ...creation.assignments,
          "activeRolloutId = :rolloutId",
          ...(policy ? ["flowPolicy = :policy"] : []),
        ].join(", ")}`,
        ...(policy || change === "kept" ? [] : ["REMOVE flowPolicy"]),
      ].join(" "),
      ConditionExpression: "attribute_not_exists(activeRolloutId)",
      ExpressionAttributeNames: creation.names,
      ExpressionAttributeValues: dropUndefined({
        ...creation.values,
        ":rolloutId": record.rolloutId,
        ":policy": policy && dropUndefined(policy),
      }),
    };
    const rollout = this.rolloutPut(record, { ConditionExpression: "attribute_not_exists(pk)" });
    // A class with an active rollout fails the class's condition, and nothing is written.
    return (await this.writeTogether(rollout, classUpdate)) === "written";
  }

  /** The whole rollout item: an active one carries its due index entry, a final one leaves the index. */
  private rolloutPut(
    record: RolloutRecord,
    condition: Pick<
      PutCommandInput,
      "ConditionExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues"
    >,
  ): PutCommandInput {
    return {
      TableName: this.tableName,
      Item: {
        ...Keys.rollout(record.tenant, record.rolloutId),
        ...(isRolloutFinal(record.state) ? {} : activeIndexOf(record)),
        ...dropUndefined(record),
      },
      ...condition,
    };
  }

  private async putConditionally(input: PutCommandInput) {
    try {
      await directCalls(this.client).put(input);
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  /** The rollout and its class in one transaction; a cancellation for anything but a condition is thrown. */
  private async writeTogether(rollout: PutCommandInput, classUpdate: TransactWriteUpdate): Promise<Outcome> {
    try {
      await directCalls(this.client).transactWrite({
        TransactItems: [{ Put: rollout }, { Update: classUpdate }],
      });
      return "written";
    } catch (error) {
      const [rolloutFailed, classFailed] = failedTransactionConditions(error) ?? [];
      if (rolloutFailed) return "rollout condition failed";
      if (classFailed) return "class condition failed";
      throw error;
    }
  }
}
