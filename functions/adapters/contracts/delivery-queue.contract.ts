import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import type { Delivery } from "../../core/webhooks/model.js";
import type { DeliveryQueue } from "../../core/webhooks/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 24);

/** A pending delivery to `subscriptionId` of an event `minutes` after START, due then. */
function deliveryOf(tenant: string, subscriptionId: string, minutes: number): Delivery {
  const createdAt = START + minutes * 60_000;
  const deliveryId = randomUUID();
  return {
    tenant,
    subscriptionId,
    deliveryId,
    notificationType: "agent.offline",
    body: JSON.stringify({ id: deliveryId, type: "agent.offline", tenant }),
    createdAt,
    state: "pending",
    attempts: 0,
    nextAttemptAt: createdAt,
  };
}

/**
 * Each delivery queued once, due across tenants by its next attempt, each attempt recorded once against the
 * attempt count read, and a subscription's log newest first, page by page.
 */
export const deliveryQueueContract = contract<DeliveryQueue>("the delivery queue", (the) => {
  /** What is due at `now` of this case's tenant: the queue is shared with other cases' tenants. */
  const dueOfTenant = async (now: number, limit = 100) =>
    (await the.subject.due(now, limit)).filter((delivery) => delivery.tenant === the.tenant);

  it("queues each delivery once, however often it is offered, and says which it added", async () => {
    const first = deliveryOf(the.tenant, "sub-1", 0);
    const second = deliveryOf(the.tenant, "sub-1", 1);
    expect(await the.subject.enqueue([first])).toEqual([first]);
    expect(await the.subject.enqueue([first, second])).toEqual([second]);
    expect(await the.subject.enqueue([{ ...first, body: "{}" }, second])).toEqual([]);
    const { items } = await the.subject.list(the.tenant, "sub-1", { limit: 10 });
    expect(items).toEqual([second, first]);
  });

  it("hands out what is due, earliest first, up to the limit, and nothing due later", async () => {
    const deliveries = [5, 1, 3, 9].map((minutes) => deliveryOf(the.tenant, `sub-${minutes}`, minutes));
    await the.subject.enqueue(deliveries);
    const due = await dueOfTenant(START + 5 * 60_000);
    expect(due.map((delivery) => delivery.subscriptionId)).toEqual(["sub-1", "sub-3", "sub-5"]);
    expect(due[0]).toEqual(deliveries[1]);
    const bounded = await the.subject.due(START + 5 * 60_000, 2);
    expect(bounded).toHaveLength(2);
  });

  it("records an attempt once per attempt count read, and forgets delivered ones from what is due", async () => {
    const delivery = deliveryOf(the.tenant, "sub-1", 0);
    await the.subject.enqueue([delivery]);
    const [read] = await dueOfTenant(START);
    const retrying: Delivery = {
      ...delivery,
      attempts: 1,
      nextAttemptAt: START + 30_000,
      lastAttempt: { at: START, status: 503, durationMs: 12 },
    };
    expect(await the.subject.recordAttempt(read as Delivery, retrying)).toBe(true);
    expect(await the.subject.recordAttempt(read as Delivery, { ...retrying, state: "delivered" })).toBe(
      false,
    );
    expect(await dueOfTenant(START + 29_999)).toEqual([]);
    expect(await dueOfTenant(START + 30_000)).toEqual([retrying]);

    const { nextAttemptAt: _due, ...rest } = retrying;
    const delivered: Delivery = {
      ...rest,
      state: "delivered",
      attempts: 2,
      lastAttempt: { at: START + 30_000, status: 204, durationMs: 8 },
    };
    expect(await the.subject.recordAttempt(retrying, delivered)).toBe(true);
    expect(await dueOfTenant(START + 3_600_000)).toEqual([]);
    // Done is done: an attempt read before it finished records nothing more.
    expect(await the.subject.recordAttempt(delivered, { ...delivered, state: "failed" })).toBe(false);
    expect((await the.subject.list(the.tenant, "sub-1", { limit: 10 })).items).toEqual([delivered]);
  });

  it("lists one subscription's deliveries newest first, page by page", async () => {
    const ours = [0, 1, 2, 3, 4].map((minutes) => deliveryOf(the.tenant, "sub-1", minutes));
    await the.subject.enqueue([...ours, deliveryOf(the.tenant, "sub-2", 2), deliveryOf("other", "sub-1", 2)]);
    const first = await the.subject.list(the.tenant, "sub-1", { limit: 3 });
    expect(first.items).toEqual([ours[4], ours[3], ours[2]]);
    const second = await the.subject.list(the.tenant, "sub-1", { limit: 3, after: first.last });
    expect(second.items).toEqual([ours[1], ours[0]]);
    expect(second.last).toBeUndefined();
  });
});
