import { createHash } from "node:crypto";
import type { PageRequest } from "../../core/paging.js";
import type { Delivery } from "../../core/webhooks/model.js";
import { deliveryLogKey } from "../../core/webhooks/notifications.js";
import { DEFAULT_DELIVERY_RETENTION_DAYS } from "../../core/webhooks/policy.js";
import type { DeliveryQueue } from "../../core/webhooks/ports.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { expiresAtSeconds, isConditionalCheckFailure, Keys, putIfAbsent, recordOf } from "./keys.js";
import { earliestDue, queryPartition } from "./paging.js";
import { TableSchema } from "./table-schema.js";

/**
 * Shards of the due index for deliveries. A busy tenant's receiver going down keeps thousands pending at once,
 * every retry rewriting its entry; 8 partitions spread those writes, for 8 small queries a dispatcher run.
 */
const DUE_SHARDS = 8;
const dueIndex = TableSchema.indexes.due;
/** Enqueue's conditional writes in flight at once. */
const WRITES_IN_FLIGHT = 25;
const DELIVERY_PREFIX = "D#";

/** A subscription's deliveries share a shard. */
const dueShardOf = ({ tenant, subscriptionId }: Delivery): number =>
  createHash("sha256").update(`${tenant}/${subscriptionId}`).digest().readUInt16BE(0) % DUE_SHARDS;

const KEY_ATTRIBUTES = ["pk", "sk", dueIndex.partitionKey, dueIndex.sortKey, TableSchema.timeToLiveAttribute];

const toDelivery = (item: Record<string, unknown>) => recordOf<Delivery>(item, KEY_ATTRIBUTES);

/**
 * Deliveries in the one table, a subscription's in one partition by event time (its delivery log); a pending
 * one also sits in the sparse due index under its subscription's shard and its next attempt, and leaves it once
 * delivered or given up. Each is removed by the table's time to live `retentionDays` after its event: pending
 * ones are given up after a day, so none expires while still pending.
 */
export class DynamoDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
    private readonly retentionDays = DEFAULT_DELIVERY_RETENTION_DAYS,
  ) {}

  private itemOf(delivery: Delivery): Record<string, unknown> {
    const pending = delivery.state === "pending" && delivery.nextAttemptAt !== undefined;
    return {
      ...Keys.delivery(delivery.tenant, delivery.subscriptionId, deliveryLogKey(delivery)),
      ...delivery,
      ...(pending
        ? {
            [dueIndex.partitionKey]: Keys.dueDeliveries(dueShardOf(delivery)),
            [dueIndex.sortKey]: Keys.dueAt(delivery.nextAttemptAt as number),
          }
        : {}),
      [TableSchema.timeToLiveAttribute]: expiresAtSeconds(delivery.createdAt, {
        retentionDays: this.retentionDays,
      }),
    };
  }

  /** One conditional write each: a few in flight at once, all of them settled before any failure is thrown. */
  async enqueue(deliveries: Delivery[]): Promise<Delivery[]> {
    const added: Delivery[] = [];
    for (let start = 0; start < deliveries.length; start += WRITES_IN_FLIGHT) {
      const chunk = deliveries.slice(start, start + WRITES_IN_FLIGHT);
      const outcomes = await Promise.allSettled(
        chunk.map((delivery) => putIfAbsent(this.client, this.tableName, this.itemOf(delivery))),
      );
      const failed = outcomes.find((outcome) => outcome.status === "rejected");
      if (failed) throw failed.reason;
      chunk.forEach((delivery, index) => {
        if ((outcomes[index] as PromiseFulfilledResult<boolean>).value) added.push(delivery);
      });
    }
    return added;
  }

  /** Each shard's earliest `limit`, merged: at most `limit` entries read per shard. */
  async due(now: number, limit: number): Promise<Delivery[]> {
    const shards = Array.from({ length: DUE_SHARDS }, (_, shard) => Keys.dueDeliveries(shard));
    const items = await earliestDue(this.client, this.tableName, shards, limit, { through: Keys.dueAt(now) });
    return items.map(toDelivery);
  }

  async recordAttempt(current: Delivery, next: Delivery): Promise<boolean> {
    try {
      await directCalls(this.client).put({
        TableName: this.tableName,
        Item: this.itemOf(next),
        ConditionExpression: "#state = :pending AND attempts = :attempts",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":pending": "pending", ":attempts": current.attempts },
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  async list(tenant: string, subscriptionId: string, request: PageRequest) {
    const { pk } = Keys.delivery(tenant, subscriptionId, "");
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk, prefix: DELIVERY_PREFIX },
      { ...request, descending: true },
    );
    return { items: page.items.map(toDelivery), last: page.last };
  }
}
