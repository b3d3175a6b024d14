import { describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryDeliveryQueue } from "../../adapters/memory/delivery-queue.js";
import { MemoryEventSink } from "../../adapters/memory/event-sink.js";
import { SequentialIds } from "../../adapters/memory/id-generator.js";
import { MemorySubscriptionStore } from "../../adapters/memory/subscription-store.js";
import type { AgentOfflineEvent, BeaconEvent, OperationEvent } from "../events/model.js";
import type { StreamRecord } from "../events/ports.js";
import { type DeliveryReport, makeWebhookConsumer, makeWebhookDispatcher } from "./delivery.js";
import type { Subscription } from "./model.js";
import { RETRY_WINDOW_MS } from "./policy.js";
import type { WebhookRequest, WebhookResponse, WebhookSender } from "./ports.js";
import { checkSignature } from "./signing.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/** A receiver: answers what it is told to, and keeps every request it got. */
class Receiver implements WebhookSender {
  readonly requests: WebhookRequest[] = [];
  answer: WebhookResponse = { status: 204, durationMs: 5 };
  async send(request: WebhookRequest) {
    this.requests.push(request);
    return this.answer;
  }
}

function harness(dispatch = { maxPerRun: 100, concurrency: 4 }) {
  const clock = new ManualClock();
  const subscriptions = new MemorySubscriptionStore();
  const activeReads = vi.spyOn(subscriptions, "active");
  const queue = new MemoryDeliveryQueue();
  const receiver = new Receiver();
  const events = new MemoryEventSink();
  const reports: DeliveryReport[] = [];
  const deps = {
    subscriptions,
    queue,
    sender: receiver,
    events,
    clock,
    ids: new SequentialIds(),
    random: () => 0.5,
  };
  /** The registry's classes, by tenant/agent id; each lookup counted. */
  const agentClasses = new Map<string, string>([["acme/pump-1", "pumps"]]);
  const classLookups: string[] = [];
  const consumer = makeWebhookConsumer(
    deps,
    async (tenant, agentId) => {
      classLookups.push(`${tenant}/${agentId}`);
      return agentClasses.get(`${tenant}/${agentId}`);
    },
    { budgetMs: 10_000, concurrency: 4, holdMs: 20_000, clockSkewMs: 1_000, maxCachedTenants: 2 },
    (report) => reports.push(report),
  );
  const dispatcher = makeWebhookDispatcher(deps, dispatch);
  const subscribe = (change: Partial<Subscription> = {}) =>
    subscriptions.create({
      tenant: "acme",
      subscriptionId: "sub-1",
      url: "https://hooks.example.com/beacon",
      eventTypes: ["agent.offline"],
      secret: SECRET,
      state: "active",
      createdAt: clock.now(),
      createdBy: "ops@acme",
      ...change,
    });
  let position = 0;
  const offline = (agentId: string, tenant = "acme"): AgentOfflineEvent => ({
    type: "agent.offline",
    version: 1,
    eventId: `offline-${tenant}-${agentId}-${position}`,
    tenant,
    agentId,
    at: clock.now(),
    agentClass: "pumps",
    lastSeen: clock.now() - 180_000,
    heartbeatPeriodMs: 60_000,
  });
  const batchOf = (...batch: BeaconEvent[]): StreamRecord[] =>
    batch.map((event) => ({ shard: "shard-0", position: String(++position), event }));
  return {
    clock,
    subscriptions,
    activeReads,
    classLookups,
    queue,
    receiver,
    events,
    reports,
    consumer,
    dispatcher,
    subscribe,
    offline,
    batchOf,
  };
}

const NO_DEADLINE = Number.POSITIVE_INFINITY;

describe("the webhook consumer", () => {
  it("sends a batch's notifications to the subscriptions that want them at once, signed", async () => {
    const { consumer, receiver, queue, subscribe, offline, batchOf, clock, reports } = harness();
    await subscribe();
    await subscribe({ subscriptionId: "sub-2", eventTypes: ["operation.*"] });
    const event = offline("pump-1");
    await consumer.consume(batchOf(event, offline("pump-2", "other")));

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request?.url).toBe("https://hooks.example.com/beacon");
    expect(request?.headers["webhook-id"]).toBe(event.eventId);
    expect(checkSignature(SECRET, request?.headers ?? {}, request?.body ?? "", clock.now() / 1000)).toEqual({
      valid: true,
    });
    expect(JSON.parse(request?.body ?? "")).toMatchObject({ id: event.eventId, type: "agent.offline" });
    expect([...queue.deliveries.values()]).toEqual([
      expect.objectContaining({ deliveryId: event.eventId, state: "delivered", attempts: 1 }),
    ]);
    expect(reports).toEqual([expect.objectContaining({ delivered: 1, leftOver: 0 })]);
  });

  it("sends nothing twice when a batch is read again, whole or split", async () => {
    const { consumer, receiver, subscribe, offline, batchOf } = harness();
    await subscribe();
    const batch = batchOf(offline("pump-1"), offline("pump-2"));
    await consumer.consume(batch);
    await consumer.consume(batch);
    await consumer.consume(batch.slice(1));
    expect(receiver.requests.map((request) => request.headers["webhook-id"])).toEqual(
      batch.map((record) => record.event.eventId),
    );
  });

  it("reuses a read of a tenant's subscriptions for events older than it, and reads them again for newer ones", async () => {
    const { consumer, activeReads, subscribe, offline, batchOf, clock } = harness();
    await subscribe();
    const earlier = [offline("pump-1"), offline("pump-2")];
    clock.advance(2_000);
    await consumer.consume(batchOf(earlier[0] as BeaconEvent));
    await consumer.consume(batchOf(earlier[1] as BeaconEvent));
    expect(activeReads).toHaveBeenCalledTimes(1);
    await consumer.consume(batchOf(offline("pump-3")));
    expect(activeReads).toHaveBeenCalledTimes(2);
  });

  it("gives a subscription made a moment before an event its notification, though the consumer had just read them", async () => {
    const { consumer, receiver, subscribe, offline, batchOf, clock } = harness();
    await subscribe();
    await consumer.consume(batchOf(offline("pump-1")));
    clock.advance(10);
    await subscribe({ subscriptionId: "sub-2", url: "https://hooks.example.com/second" });
    clock.advance(10);
    const event = offline("pump-2");
    await consumer.consume(batchOf(event));
    expect(
      receiver.requests
        .filter((request) => request.headers["webhook-id"] === event.eventId)
        .map((request) => request.url),
    ).toEqual(["https://hooks.example.com/beacon", "https://hooks.example.com/second"]);
  });

  it("leaves a failed first attempt to the dispatcher, due after the first wait", async () => {
    const { consumer, receiver, queue, subscribe, offline, batchOf, clock, reports } = harness();
    await subscribe();
    receiver.answer = { error: "connection refused", durationMs: 1 };
    await consumer.consume(batchOf(offline("pump-1")));
    expect([...queue.deliveries.values()]).toEqual([
      expect.objectContaining({ state: "pending", attempts: 1, nextAttemptAt: clock.now() + 30_000 }),
    ]);
    expect(reports).toEqual([expect.objectContaining({ retrying: 1 })]);
  });

  it("starts no first attempt once its budget is spent, leaving them queued for the dispatcher", async () => {
    const { consumer, receiver, queue, subscribe, offline, batchOf, clock, reports } = harness();
    await subscribe();
    receiver.send = async (request) => {
      receiver.requests.push(request);
      // The answer comes ten seconds later.
      await Promise.resolve();
      clock.advance(10_000);
      return { status: 200, durationMs: 10_000 };
    };
    const start = clock.now();
    await consumer.consume(batchOf(...Array.from({ length: 10 }, (_, index) => offline(`pump-${index}`))));
    expect(receiver.requests).toHaveLength(4);
    expect(reports).toEqual([expect.objectContaining({ delivered: 4, leftOver: 6 })]);
    const waiting = [...queue.deliveries.values()].filter((delivery) => delivery.state === "pending");
    expect(waiting.map((delivery) => delivery.nextAttemptAt)).toEqual(Array(6).fill(start + 20_000));
  });
});

describe("a subscription filtered by class", () => {
  const operationEvent = (agentId: string, eventId: string): OperationEvent => ({
    type: "operation",
    version: 1,
    eventId,
    tenant: "acme",
    agentId,
    at: Date.UTC(2026, 10, 24),
    operationId: `op-${eventId}`,
    operation: "RESTART",
    from: "delivered",
    state: "failed",
  });

  it("gets the operations of its class's agents, each agent looked up once a batch, the body as for everyone", async () => {
    const { consumer, receiver, classLookups, subscribe, batchOf } = harness();
    await subscribe({ subscriptionId: "sub-pumps", eventTypes: ["operation.*"], agentClass: "pumps" });
    await subscribe({ subscriptionId: "sub-valves", eventTypes: ["operation.*"], agentClass: "valves" });
    await consumer.consume(
      batchOf(
        operationEvent("pump-1", "e-1"),
        operationEvent("pump-1", "e-2"),
        operationEvent("valve-9", "e-3"),
      ),
    );
    expect(receiver.requests.map((request) => request.headers["webhook-id"])).toEqual(["e-1", "e-2"]);
    expect(JSON.parse(receiver.requests[0]?.body ?? "")).not.toHaveProperty("agentClass");
    expect(classLookups).toEqual(["acme/pump-1", "acme/valve-9"]);
  });

  it("looks nothing up when no subscription filtered by class wants the notification", async () => {
    const { consumer, receiver, classLookups, subscribe, batchOf } = harness();
    await subscribe({ eventTypes: ["operation.*"] });
    await subscribe({ subscriptionId: "sub-pumps", eventTypes: ["rollout.*"], agentClass: "pumps" });
    await consumer.consume(batchOf(operationEvent("pump-1", "e-1")));
    expect(receiver.requests).toHaveLength(1);
    expect(classLookups).toEqual([]);
  });
});

describe("the webhook dispatcher", () => {
  it("retries with growing waits until the receiver takes the delivery", async () => {
    const { consumer, dispatcher, receiver, queue, subscribe, offline, batchOf, clock } = harness();
    await subscribe();
    receiver.answer = { status: 503, durationMs: 3 };
    const start = clock.now();
    await consumer.consume(batchOf(offline("pump-1")));
    const attemptTimes = [start];
    for (const wait of [30_000, 60_000, 120_000]) {
      clock.time = attemptTimes.at(-1) as number;
      clock.advance(wait - 1);
      expect(await dispatcher.dispatch(NO_DEADLINE)).toMatchObject({ retrying: 0, delivered: 0 });
      clock.advance(1);
      expect(await dispatcher.dispatch(NO_DEADLINE)).toMatchObject({ retrying: 1 });
      attemptTimes.push(clock.now());
    }
    receiver.answer = { status: 200, durationMs: 3 };
    clock.advance(300_000);
    expect(await dispatcher.dispatch(NO_DEADLINE)).toMatchObject({ delivered: 1, more: false });
    expect(receiver.requests).toHaveLength(5);
    // Every attempt is signed anew, at its own time.
    expect(new Set(receiver.requests.map((request) => request.headers["webhook-timestamp"])).size).toBe(5);
    expect([...queue.deliveries.values()]).toEqual([
      expect.objectContaining({ state: "delivered", attempts: 5 }),
    ]);
  });

  it("gives up after 24 hours and disables a subscription that took nothing since, with an event", async () => {
    const { consumer, dispatcher, receiver, subscriptions, events, subscribe, offline, batchOf, clock } =
      harness();
    await subscribe();
    receiver.answer = { status: 500, durationMs: 3 };
    const start = clock.now();
    await consumer.consume(batchOf(offline("pump-1")));
    let report: DeliveryReport = await dispatcher.dispatch(NO_DEADLINE);
    while (report.failed === 0) {
      clock.advance(60_000);
      report = await dispatcher.dispatch(NO_DEADLINE);
    }
    expect(clock.now()).toBeGreaterThanOrEqual(start + RETRY_WINDOW_MS);
    expect(report).toMatchObject({ failed: 1, disabled: 1 });
    expect(receiver.requests).toHaveLength(15);
    const reason = "No delivery succeeded for 24 hours; the last attempt got HTTP 500";
    expect(await subscriptions.get("acme", "sub-1")).toMatchObject({
      state: "disabled",
      disabledReason: reason,
    });
    expect(events.events).toEqual([
      {
        type: "webhook.disabled",
        version: 1,
        eventId: "id-1",
        tenant: "acme",
        at: clock.now(),
        subscriptionId: "sub-1",
        reason,
        deliveryId: receiver.requests[0]?.headers["webhook-id"],
      },
    ]);
  });

  it("keeps a subscription whose receiver took other deliveries while one failed", async () => {
    const { consumer, dispatcher, receiver, subscriptions, events, subscribe, offline, batchOf, clock } =
      harness();
    await subscribe();
    receiver.answer = { status: 400, durationMs: 3 };
    await consumer.consume(batchOf(offline("pump-1")));
    clock.advance(3_600_000);
    receiver.answer = { status: 200, durationMs: 3 };
    const refused = offline("pump-2");
    receiver.send = async (request) => {
      receiver.requests.push(request);
      return request.headers["webhook-id"] === refused.eventId
        ? receiver.answer
        : { status: 400, durationMs: 3 };
    };
    await consumer.consume(batchOf(refused));
    clock.advance(RETRY_WINDOW_MS);
    for (let run = 0; run < 20; run++) await dispatcher.dispatch(NO_DEADLINE);
    expect((await subscriptions.get("acme", "sub-1"))?.state).toBe("active");
    expect(events.events).toEqual([]);
  });

  it("disables at once on 410 Gone", async () => {
    const { consumer, receiver, subscriptions, events, subscribe, offline, batchOf } = harness();
    await subscribe();
    receiver.answer = { status: 410, durationMs: 3 };
    await consumer.consume(batchOf(offline("pump-1"), offline("pump-2")));
    expect((await subscriptions.get("acme", "sub-1"))?.disabledReason).toBe("The receiver answered 410 Gone");
    expect(events.events.map((event) => event.type)).toEqual(["webhook.disabled"]);
  });

  it("gives up unsent what a disabled or deleted subscription still had pending", async () => {
    const { consumer, dispatcher, receiver, subscriptions, queue, subscribe, offline, batchOf, clock } =
      harness();
    await subscribe();
    await subscribe({ subscriptionId: "sub-2" });
    receiver.answer = { status: 503, durationMs: 3 };
    await consumer.consume(batchOf(offline("pump-1")));
    await subscriptions.disable("acme", "sub-1", clock.now(), "by hand");
    await subscriptions.delete("acme", "sub-2");
    clock.advance(30_000);
    expect(await dispatcher.dispatch(NO_DEADLINE)).toMatchObject({ failed: 2, disabled: 0 });
    expect(receiver.requests).toHaveLength(2);
    expect([...queue.deliveries.values()].map((delivery) => delivery.lastAttempt?.error).sort()).toEqual([
      "The subscription was deleted",
      "The subscription was disabled",
    ]);
  });

  it("takes at most its bound a run, and starts none after its deadline", async () => {
    const { queue, dispatcher, subscribe, clock } = harness({ maxPerRun: 3, concurrency: 2 });
    await subscribe();
    await queue.enqueue(
      Array.from({ length: 5 }, (_, index) => ({
        tenant: "acme",
        subscriptionId: "sub-1",
        deliveryId: `d-${index}`,
        notificationType: "agent.offline",
        body: "{}",
        createdAt: clock.now(),
        state: "pending" as const,
        attempts: 0,
        nextAttemptAt: clock.now(),
      })),
    );
    expect(await dispatcher.dispatch(clock.now())).toMatchObject({ delivered: 0, leftOver: 3, more: true });
    expect(await dispatcher.dispatch(NO_DEADLINE)).toMatchObject({ delivered: 3, more: true });
    expect(await dispatcher.dispatch(NO_DEADLINE)).toMatchObject({ delivered: 2, more: false });
  });
});
