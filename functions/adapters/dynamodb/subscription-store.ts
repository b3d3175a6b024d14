import type { PageRequest } from "../../core/paging.js";
import type { Subscription, SubscriptionState } from "../../core/webhooks/model.js";
import type { SubscriptionStore } from "../../core/webhooks/ports.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { isConditionalCheckFailure, Keys, putIfAbsent } from "./keys.js";
import { queryAll, queryPartition } from "./paging.js";

const SUBSCRIPTION_PREFIX = "W#";

/**
 * A tenant's event subscriptions, one item each in the tenant's webhook partition, secret included: the
 * table is encrypted at rest, and the secret leaves it only to sign deliveries (and once, when made).
 */
export class DynamoSubscriptionStore implements SubscriptionStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async create(subscription: Subscription) {
    const key = Keys.subscription(subscription.tenant, subscription.subscriptionId);
    if (!(await putIfAbsent(this.client, this.tableName, { ...key, ...subscription }))) {
      throw new Error(`Subscription ${subscription.subscriptionId} exists`);
    }
  }

  async get(tenant: string, subscriptionId: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.subscription(tenant, subscriptionId),
      ConsistentRead: true,
    });
    return Item ? toSubscription(Item) : undefined;
  }

  async list(tenant: string, request: PageRequest) {
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk: Keys.subscription(tenant, "").pk, prefix: SUBSCRIPTION_PREFIX },
      request,
      { ConsistentRead: true },
    );
    return { items: page.items.map(toSubscription), last: page.last };
  }

  async delete(tenant: string, subscriptionId: string) {
    try {
      await directCalls(this.client).delete({
        TableName: this.tableName,
        Key: Keys.subscription(tenant, subscriptionId),
        ConditionExpression: "attribute_exists(pk)",
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  async active(tenant: string) {
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      // A subscription made just before an event gets it: an eventually consistent read could miss it.
      ConsistentRead: true,
      FilterExpression: "#state = :active",
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: {
        ":pk": Keys.subscription(tenant, "").pk,
        ":prefix": SUBSCRIPTION_PREFIX,
        ":active": "active",
      },
    });
    return items.map(toSubscription);
  }

  disable(tenant: string, subscriptionId: string, at: number, reason: string) {
    return this.changeState(tenant, subscriptionId, "active", "disabled", {
      also: ", disabledAt = :at, disabledReason = :reason",
      values: { ":at": at, ":reason": reason },
    });
  }

  enable(tenant: string, subscriptionId: string) {
    return this.changeState(tenant, subscriptionId, "disabled", "active", {
      also: " REMOVE disabledAt, disabledReason",
    });
  }

  /** Sets the state `to` (and what `also` says) of a subscription in state `from`; false when it was not. */
  private async changeState(
    tenant: string,
    subscriptionId: string,
    from: SubscriptionState,
    to: SubscriptionState,
    change: { also: string; values?: Record<string, unknown> },
  ) {
    try {
      await directCalls(this.client).update({
        TableName: this.tableName,
        Key: Keys.subscription(tenant, subscriptionId),
        UpdateExpression: `SET #state = :to${change.also}`,
        ConditionExpression: "#state = :from",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":from": from, ":to": to, ...change.values },
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }
}

function toSubscription(item: Record<string, unknown>): Subscription {
  const { pk: _pk, sk: _sk, ...subscription } = item;
  return subscription as unknown as Subscription;
}
