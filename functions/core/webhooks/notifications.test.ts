import { describe, expect, it } from "vitest";
import type { BeaconEvent, HeartbeatEvent, OperationEvent } from "../events/model.js";
import { emptyCounts } from "../rollouts/model.js";
import type { Subscription } from "./model.js";
import { agentToClassify, deliveryOf, matchesPattern, notificationOf, wants } from "./notifications.js";

const AT = Date.UTC(2026, 10, 24, 12);
const base = { version: 1, tenant: "acme", at: AT } as const;

const heartbeat = (firstSight: boolean): HeartbeatEvent => ({
  ...base,
  type: "heartbeat",
  eventId: "hb-1",
  agentId: "pump-1",
  agentClass: "pumps",
  manifestId: "minifi-cpp/0.15.0",
  flowId: "flow-1",
  configurationChecksums: { flow: { "config.yml": "abc" } },
  device: { deviceId: "dev-1", hostname: "pump-1.plant" },
  firstSight,
  operationsSent: [],
});

/** What names the operation, in its event and in its notification alike. */
const operationNamed = {
  agentId: "pump-1",
  operationId: "op-1",
  operation: "DESCRIBE",
  operand: "configuration",
};

const operation: OperationEvent = {
  ...base,
  type: "operation",
  eventId: "op-event-1",
  ...operationNamed,
  from: "delivered",
  state: "failed",
  ackState: "NOT_APPLIED",
  details: "nifi.c2.agent.identifier.token=secret-token",
  failureCause: "token=secret-token",
};

const subscription = (change: Partial<Subscription> = {}): Subscription => ({
  tenant: "acme",
  subscriptionId: "sub-1",
  url: "https://hooks.example.com/beacon",
  eventTypes: ["agent.offline"],
  secret: "whsec_x",
  state: "active",
  createdAt: AT - 1,
  createdBy: "ops@acme",
  ...change,
});

describe("the notification an event makes", () => {
  it("is agent.registered for an agent's first heartbeat, and nothing for the others or for acks", () => {
    expect(notificationOf(heartbeat(true))).toEqual({
      id: "hb-1",
      type: "agent.registered",
      tenant: "acme",
      at: "2026-11-24T12:00:00.000Z",
      agentClass: "pumps",
      data: { agentId: "pump-1", manifestId: "minifi-cpp/0.15.0", flowId: "flow-1" },
    });
    expect(notificationOf(heartbeat(false))).toBeUndefined();
    const ack: BeaconEvent = {
      ...base,
      type: "ack",
      eventId: "ack-1",
      operationId: "op-1",
      state: "FULLY_APPLIED",
      matched: true,
    };
    expect(notificationOf(ack)).toBeUndefined();
  });

  it("is agent.offline and agent.online with the last heartbeat's time", () => {
    const offline: BeaconEvent = {
      ...base,
      type: "agent.offline",
      eventId: "off-1",
      agentId: "pump-1",
      agentClass: "pumps",
      lastSeen: AT - 180_000,
      heartbeatPeriodMs: 60_000,
    };
    expect(notificationOf(offline)).toEqual({
      id: "off-1",
      type: "agent.offline",
      tenant: "acme",
      at: "2026-11-24T12:00:00.000Z",
      agentClass: "pumps",
      data: { agentId: "pump-1", lastSeen: "2026-11-24T11:57:00.000Z", heartbeatPeriodMs: 60_000 },
    });
    const online: BeaconEvent = {
      ...base,
      type: "agent.online",
      eventId: "on-1",
      agentId: "pump-1",
      lastSeen: AT,
    };
    expect(notificationOf(online)).toMatchObject({ type: "agent.online", data: { agentId: "pump-1" } });
  });

  it("is operation.<state> without the agent's own words", () => {
    const notice = notificationOf(operation);
    expect(notice).toEqual({
      id: "op-event-1",
      type: "operation.failed",
      tenant: "acme",
      at: "2026-11-24T12:00:00.000Z",
      data: { ...operationNamed, from: "delivered", state: "failed", ackState: "NOT_APPLIED" },
    });
    expect(JSON.stringify(notice)).not.toContain("secret-token");
    // One whose event names its agent's class is that class's, with no look-up.
    const named = notificationOf({ ...operation, agentClass: "pumps" });
    expect(named).toMatchObject({ type: "operation.failed", agentClass: "pumps" });
    if (!named) throw new Error("no notification");
    expect(
      agentToClassify(subscription({ eventTypes: ["operation.*"], agentClass: "pumps" }), named),
    ).toBeUndefined();
  });

  it("is rollout.<state> of the rollout's class, and certificate.expiring", () => {
    const rollout: BeaconEvent = {
      ...base,
      type: "rollout",
      eventId: "ro-event-1",
      rolloutId: "ro-1",
      className: "pumps",
      toFlow: "flow-2",
      state: "completed",
      from: "rolling",
      counts: emptyCounts(),
    };
    expect(notificationOf(rollout)).toMatchObject({
      type: "rollout.completed",
      agentClass: "pumps",
      data: { rolloutId: "ro-1", toFlow: "flow-2", from: "rolling", state: "completed" },
    });
    const expiring: BeaconEvent = {
      ...base,
      type: "certificate.expiring",
      eventId: "cert-event-1",
      serial: "0A1B",
      kind: "agent",
      agentId: "pump-1",
      subjectDN: "CN=pump-1",
      notAfter: AT + 86_400_000,
      warningDays: 30,
    };
    expect(notificationOf(expiring)).toMatchObject({
      type: "certificate.expiring",
      data: { serial: "0A1B", notAfter: "2026-11-25T12:00:00.000Z", warningDays: 30 },
    });
  });

  it("is webhook.disabled, for the tenant's other subscriptions", () => {
    const disabled: BeaconEvent = {
      ...base,
      type: "webhook.disabled",
      eventId: "wd-1",
      subscriptionId: "sub-1",
      reason: "The receiver answered 410 Gone",
    };
    expect(notificationOf(disabled)).toEqual({
      id: "wd-1",
      type: "webhook.disabled",
      tenant: "acme",
      at: "2026-11-24T12:00:00.000Z",
      data: { subscriptionId: "sub-1", reason: "The receiver answered 410 Gone" },
    });
  });
});

describe("which subscriptions want a notification", () => {
  it("matches a type exactly or by its family, nothing else", () => {
    expect(matchesPattern("operation.failed", "operation.*")).toBe(true);
    expect(matchesPattern("operation.failed", "operation.failed")).toBe(true);
    expect(matchesPattern("operation.failed", "operation.done")).toBe(false);
    expect(matchesPattern("operations.failed", "operation.*")).toBe(false);
    expect(matchesPattern("agent.offline", "agent.offline.*")).toBe(false);
  });

  it("takes a class filter to mean that class's notifications only, and a disabled subscription none", () => {
    const notice = notificationOf(heartbeat(true));
    if (!notice) throw new Error("no notification");
    expect(wants(subscription({ eventTypes: ["agent.*"] }), notice)).toBe(true);
    expect(wants(subscription({ eventTypes: ["agent.*"], agentClass: "pumps" }), notice)).toBe(true);
    expect(wants(subscription({ eventTypes: ["agent.*"], agentClass: "valves" }), notice)).toBe(false);
    expect(wants(subscription({ eventTypes: ["agent.offline"] }), notice)).toBe(false);
    expect(wants(subscription({ eventTypes: ["agent.*"], state: "disabled" }), notice)).toBe(false);
    const classless = notificationOf(operation);
    if (!classless) throw new Error("no notification");
    const pumpsOperations = subscription({ eventTypes: ["operation.*"], agentClass: "pumps" });
    expect(wants(pumpsOperations, classless)).toBe(false);
    // Its agent's class, looked up, decides.
    expect(agentToClassify(pumpsOperations, classless)).toBe("pump-1");
    expect(wants(pumpsOperations, classless, "pumps")).toBe(true);
    expect(wants(pumpsOperations, classless, "valves")).toBe(false);
    expect(agentToClassify(subscription({ eventTypes: ["operation.*"] }), classless)).toBeUndefined();
    expect(
      agentToClassify(subscription({ eventTypes: ["rollout.*"], agentClass: "pumps" }), classless),
    ).toBeUndefined();
    expect(agentToClassify(pumpsOperations, notice)).toBeUndefined();
  });
});

describe("a delivery", () => {
  it("is the same however often its event is read: the event's id and time, the notification as its body", () => {
    const notice = notificationOf(operation);
    if (!notice) throw new Error("no notification");
    const once = deliveryOf(subscription(), notice, AT + 10_000);
    expect(once).toEqual({
      tenant: "acme",
      subscriptionId: "sub-1",
      deliveryId: "op-event-1",
      notificationType: "operation.failed",
      body: JSON.stringify(notice),
      createdAt: AT,
      state: "pending",
      attempts: 0,
      nextAttemptAt: AT + 10_000,
    });
    expect(JSON.parse(once.body)).toEqual(notice);
  });
});
