import { describe, expect, it } from "vitest";
import { MemoryDeliveryQueue } from "../../adapters/memory/delivery-queue.js";
import { MemorySubscriptionStore } from "../../adapters/memory/subscription-store.js";
import type { Principal } from "../identity/principal.js";
import { makeDeliveryLogApi } from "./console-deliveries.js";
import type { Delivery } from "./model.js";

const AT = Date.UTC(2026, 10, 24, 12);
const admin: Principal = { tenant: "acme", role: "admin", subject: "ops@acme" };

async function harness() {
  const subscriptions = new MemorySubscriptionStore();
  const deliveries = new MemoryDeliveryQueue();
  await subscriptions.create({
    tenant: "acme",
    subscriptionId: "wh-1",
    url: "https://hooks.example.com/beacon",
    eventTypes: ["agent.*"],
    secret: "whsec_x",
    state: "active",
    createdAt: AT,
    createdBy: "ops@acme",
  });
  const delivery = (minutes: number, change: Partial<Delivery> = {}): Delivery => ({
    tenant: "acme",
    subscriptionId: "wh-1",
    deliveryId: `event-${minutes}`,
    notificationType: "agent.offline",
    body: JSON.stringify({ id: `event-${minutes}`, type: "agent.offline" }),
    createdAt: AT + minutes * 60_000,
    state: "pending",
    attempts: 0,
    nextAttemptAt: AT + minutes * 60_000,
    ...change,
  });
  return { api: makeDeliveryLogApi({ subscriptions, deliveries }), deliveries, delivery };
}

describe("a subscription's delivery log", () => {
  it("lists its deliveries newest first, page by page, with what was sent and how trying went", async () => {
    const { api, deliveries, delivery } = await harness();
    await deliveries.enqueue([
      delivery(0, {
        state: "delivered",
        attempts: 2,
        nextAttemptAt: undefined,
        lastAttempt: { at: AT + 30_000, status: 204, durationMs: 41 },
      }),
      delivery(1, { attempts: 1, lastAttempt: { at: AT + 60_000, error: "timed out", durationMs: 5_000 } }),
      delivery(2),
    ]);
    const first = await api.list(admin, "wh-1", { limit: 2 });
    expect(first.body).toEqual({
      items: [
        {
          deliveryId: "event-2",
          notificationType: "agent.offline",
          state: "pending",
          createdAt: "2026-11-24T12:02:00.000Z",
          attempts: 0,
          nextAttemptAt: "2026-11-24T12:02:00.000Z",
          notification: { id: "event-2", type: "agent.offline" },
        },
        expect.objectContaining({
          deliveryId: "event-1",
          lastAttempt: { at: "2026-11-24T12:01:00.000Z", error: "timed out", durationMs: 5_000 },
        }),
      ],
      nextCursor: expect.any(String),
    });
    const { nextCursor } = first.body as { nextCursor: string };
    expect((await api.list(admin, "wh-1", { limit: 2, cursor: nextCursor })).body).toEqual({
      items: [
        expect.objectContaining({
          deliveryId: "event-0",
          state: "delivered",
          lastAttempt: { at: "2026-11-24T12:00:30.000Z", status: 204, durationMs: 41 },
        }),
      ],
    });
  });

  it("is the tenant's admins' only, and of its own subscriptions only", async () => {
    const { api } = await harness();
    await expect(api.list({ ...admin, role: "operator" }, "wh-1", {})).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(api.list({ ...admin, tenant: "other" }, "wh-1", {})).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(api.list(admin, "wh-1", { cursor: "not-a-cursor" })).rejects.toMatchObject({
      code: "invalid_request",
    });
  });
});
