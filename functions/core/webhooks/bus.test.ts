import { describe, expect, it, vi } from "vitest";
import { MemoryNotificationBus } from "../../adapters/memory/notification-bus.js";
import { PartlyConsumed } from "../events/consumption.js";
import type { AckEvent, AgentOfflineEvent, BeaconEvent, HeartbeatEvent } from "../events/model.js";
import type { StreamRecord } from "../events/ports.js";
import { makeNotificationBusConsumer } from "./bus.js";
import type { BusRefusal } from "./ports.js";

const AT = Date.UTC(2026, 10, 24, 12);

const heartbeat = (agentId: string, firstSight: boolean): HeartbeatEvent => ({
  type: "heartbeat",
  version: 1,
  eventId: `heartbeat-${agentId}-${firstSight}`,
  tenant: "acme",
  agentId,
  at: AT,
  agentClass: "pumps",
  firstSight,
  operationsSent: [],
});

const offline = (agentId: string, tenant = "acme"): AgentOfflineEvent => ({
  type: "agent.offline",
  version: 1,
  eventId: `offline-${tenant}-${agentId}`,
  tenant,
  agentId,
  at: AT,
  agentClass: "pumps",
  lastSeen: AT - 180_000,
  heartbeatPeriodMs: 60_000,
});

const ack: AckEvent = {
  type: "ack",
  version: 1,
  eventId: "ack-1",
  tenant: "acme",
  agentId: "pump-1",
  at: AT,
  operationId: "op-1",
  state: "FULLY_APPLIED",
  matched: true,
};

const batchOf = (...events: BeaconEvent[]): StreamRecord[] =>
  events.map((event, index) => ({ shard: "shard-0", position: String(index + 1), event }));

function harness() {
  const bus = new MemoryNotificationBus();
  const refused: BusRefusal[][] = [];
  const consumer = makeNotificationBusConsumer(bus, (refusals) => refused.push(refusals));
  return { bus, refused, consumer };
}

describe("the notification bus consumer", () => {
  it("puts every notification of a batch on the bus, of every tenant, and nothing for heartbeats or acks", async () => {
    const { bus, consumer, refused } = harness();
    await consumer.consume(
      batchOf(
        heartbeat("pump-1", true),
        heartbeat("pump-1", false),
        ack,
        offline("pump-2"),
        offline("x", "other"),
      ),
    );
    expect(bus.notifications.map((notice) => [notice.type, notice.tenant, notice.id])).toEqual([
      ["agent.registered", "acme", "heartbeat-pump-1-true"],
      ["agent.offline", "acme", "offline-acme-pump-2"],
      ["agent.offline", "other", "offline-other-x"],
    ]);
    expect(bus.notifications[1]).toEqual({
      id: "offline-acme-pump-2",
      type: "agent.offline",
      tenant: "acme",
      at: new Date(AT).toISOString(),
      agentClass: "pumps",
      data: { agentId: "pump-2", lastSeen: new Date(AT - 180_000).toISOString(), heartbeatPeriodMs: 60_000 },
    });
    expect(refused).toEqual([]);
  });

  it("does not call the bus for a batch without notifications", async () => {
    const { bus, consumer } = harness();
    const put = vi.spyOn(bus, "put");
    await consumer.consume(batchOf(heartbeat("pump-1", false), ack));
    expect(put).not.toHaveBeenCalled();
  });

  it("fails the batch from the record of the first notification the bus refused, and puts it again when redelivered", async () => {
    const { bus, consumer, refused } = harness();
    bus.refuses = (notice) => notice.tenant === "other";
    const batch = batchOf(
      offline("pump-1"),
      heartbeat("pump-2", false),
      offline("x", "other"),
      offline("pump-3"),
    );
    const failure = await consumer.consume(batch).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PartlyConsumed);
    expect((failure as PartlyConsumed).taken).toBe(2);
    expect(refused).toEqual([[{ index: 1, reason: "ThrottlingException" }]]);

    bus.refuses = () => false;
    await consumer.consume(batch.slice(2));
    // At least once: what the bus took after the refused one goes on it again, its id the same.
    expect(bus.notifications.map((notice) => notice.id)).toEqual([
      "offline-acme-pump-1",
      "offline-acme-pump-3",
      "offline-other-x",
      "offline-acme-pump-3",
    ]);
  });
});
