import { expect, it } from "vitest";
import type { Subscription } from "../../core/webhooks/model.js";
import type { SubscriptionStore } from "../../core/webhooks/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 24);

const subscriptionOf = (tenant: string, index: number, change: Partial<Subscription> = {}): Subscription => ({
  tenant,
  subscriptionId: `wh-${String(START + index).padStart(13, "0")}-${index}`,
  url: `https://hooks.example.com/${index}`,
  eventTypes: ["agent.offline", "operation.*"],
  secret: `whsec_${Buffer.alloc(32, index).toString("base64")}`,
  state: "active",
  createdAt: START + index,
  createdBy: "alice",
  ...change,
});

/** A tenant's event subscriptions, secret included, each made once. */
export const subscriptionStoreContract = contract<SubscriptionStore>("the subscription store", (the) => {
  it("stores a subscription once, for its tenant only, every field as given", async () => {
    const store = the.subject;
    const subscription = subscriptionOf(the.tenant, 1, { agentClass: "pumps", description: "Pager" });
    expect(await store.get(the.tenant, subscription.subscriptionId)).toBeUndefined();
    await store.create(subscription);
    expect(await store.get(the.tenant, subscription.subscriptionId)).toEqual(subscription);
    expect(await store.get(`${the.tenant}-other`, subscription.subscriptionId)).toBeUndefined();
    await expect(store.create({ ...subscription, url: "https://elsewhere.example.com/" })).rejects.toThrow();
    expect(await store.get(the.tenant, subscription.subscriptionId)).toEqual(subscription);
  });

  it("hands out copies: what a caller does to a subscription stays with the caller", async () => {
    const store = the.subject;
    const subscription = subscriptionOf(the.tenant, 2);
    await store.create(subscription);
    const read = (await store.get(the.tenant, subscription.subscriptionId)) as Subscription;
    read.eventTypes.push("rollout.*");
    read.state = "disabled";
    expect(await store.get(the.tenant, subscription.subscriptionId)).toEqual(subscription);
  });

  it("lists a tenant's subscriptions by id page by page, either way", async () => {
    const store = the.subject;
    for (const index of [3, 1, 4, 2]) await store.create(subscriptionOf(the.tenant, index));
    await store.create(subscriptionOf(`${the.tenant}-other`, 5));
    const first = await store.list(the.tenant, { limit: 3 });
    expect(first).toEqual({
      items: [1, 2, 3].map((index) => subscriptionOf(the.tenant, index)),
      last: subscriptionOf(the.tenant, 3).subscriptionId,
    });
    expect(await store.list(the.tenant, { limit: 3, after: first.last })).toEqual({
      items: [subscriptionOf(the.tenant, 4)],
    });
    const descending = await store.list(the.tenant, { limit: 2, descending: true });
    expect(descending.items.map((subscription) => subscription.url)).toEqual([
      "https://hooks.example.com/4",
      "https://hooks.example.com/3",
    ]);
  });

  it("deletes a subscription of its tenant, and says when there was none", async () => {
    const store = the.subject;
    const subscription = subscriptionOf(the.tenant, 6);
    await store.create(subscription);
    expect(await store.delete(`${the.tenant}-other`, subscription.subscriptionId)).toBe(false);
    expect(await store.delete(the.tenant, subscription.subscriptionId)).toBe(true);
    expect(await store.get(the.tenant, subscription.subscriptionId)).toBeUndefined();
    expect(await store.delete(the.tenant, subscription.subscriptionId)).toBe(false);
  });

  it("disables an active subscription once, and leaves it out of the active ones", async () => {
    const store = the.subject;
    for (const index of [7, 8, 9]) await store.create(subscriptionOf(the.tenant, index));
    await store.create(subscriptionOf(`${the.tenant}-other`, 10));
    const disabled = subscriptionOf(the.tenant, 8);
    expect(
      await store.disable(the.tenant, disabled.subscriptionId, START + 60_000, "failing for 24 hours"),
    ).toBe(true);
    expect(await store.disable(the.tenant, disabled.subscriptionId, START + 120_000, "again")).toBe(false);
    expect(await store.disable(the.tenant, "wh-0000000000000-absent", START, "absent")).toBe(false);
    expect(await store.disable(`${the.tenant}-other`, disabled.subscriptionId, START, "not its own")).toBe(
      false,
    );
    expect(await store.get(the.tenant, disabled.subscriptionId)).toEqual({
      ...disabled,
      state: "disabled",
      disabledAt: START + 60_000,
      disabledReason: "failing for 24 hours",
    });
    const active = await store.active(the.tenant);
    expect(active.map((subscription) => subscription.subscriptionId).sort()).toEqual(
      [7, 9].map((index) => subscriptionOf(the.tenant, index).subscriptionId),
    );
    expect(await store.active(`${the.tenant}-none`)).toEqual([]);
  });

  it("enables a disabled subscription once, forgetting when and why it was disabled", async () => {
    const store = the.subject;
    const subscription = subscriptionOf(the.tenant, 11);
    await store.create(subscription);
    expect(await store.enable(the.tenant, subscription.subscriptionId)).toBe(false);
    await store.disable(
      the.tenant,
      subscription.subscriptionId,
      START + 60_000,
      "The receiver answered 410 Gone",
    );
    expect(await store.enable(`${the.tenant}-other`, subscription.subscriptionId)).toBe(false);
    expect(await store.enable(the.tenant, "wh-0000000000000-absent")).toBe(false);
    // A write that finds nothing makes nothing.
    expect(await store.get(`${the.tenant}-other`, subscription.subscriptionId)).toBeUndefined();
    expect(await store.get(the.tenant, "wh-0000000000000-absent")).toBeUndefined();
    expect(await store.enable(the.tenant, subscription.subscriptionId)).toBe(true);
    expect(await store.enable(the.tenant, subscription.subscriptionId)).toBe(false);
    expect(await store.get(the.tenant, subscription.subscriptionId)).toEqual(subscription);
    const active = await store.active(the.tenant);
    expect(active.map(({ subscriptionId }) => subscriptionId)).toEqual([subscription.subscriptionId]);
  });
});
