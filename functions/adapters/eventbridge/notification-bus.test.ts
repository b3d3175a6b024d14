import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
  type PutEventsResultEntry,
} from "@aws-sdk/client-eventbridge";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { Notification } from "../../core/webhooks/model.js";
import { EventBridgeNotificationBus, NOTIFICATION_SOURCE } from "./notification-bus.js";

// moto takes every entry: only a mocked client refuses some, as EventBridge does when it throttles.
const eventBridge = mockClient(EventBridgeClient);
const client = new EventBridgeClient({ region: "us-east-1" });
const bus = new EventBridgeNotificationBus(client, "beacon-test", {
  maxAttempts: 3,
  backoffMs: 1,
  concurrency: 2,
});
/** The entries of every call, in the order the calls were made. */
const calls = () =>
  eventBridge.commandCalls(PutEventsCommand).map((call) => call.args[0].input.Entries ?? []);

const notice = (id: string, data: Record<string, unknown> = {}): Notification => ({
  id,
  type: "agent.offline",
  tenant: "acme",
  at: "2026-11-24T12:00:00.000Z",
  data: { agentId: id, ...data },
});

/** EventBridge's answer to a call: every entry taken but those `refuses` names. */
const answer = (entries: PutEventsRequestEntry[], refuses: (detail: Notification) => boolean) => {
  const outcomes: PutEventsResultEntry[] = entries.map((entry, index) =>
    refuses(JSON.parse(entry.Detail ?? "{}") as Notification)
      ? { ErrorCode: "ThrottlingException", ErrorMessage: "Rate exceeded" }
      : { EventId: `event-${index}` },
  );
  return { FailedEntryCount: outcomes.filter((outcome) => outcome.ErrorCode).length, Entries: outcomes };
};

beforeEach(() => {
  eventBridge.reset();
});

afterAll(() => {
  eventBridge.restore();
  client.destroy();
});

describe("the EventBridge notification bus", () => {
  it("puts each notification as an entry of source beacon, its type, its body with its tenant, and its time", async () => {
    eventBridge.on(PutEventsCommand).callsFake(({ Entries }) => answer(Entries, () => false));
    const notification = notice("offline-1");
    expect(await bus.put([notification])).toEqual([]);
    expect(calls()).toEqual([
      [
        {
          EventBusName: "beacon-test",
          Source: NOTIFICATION_SOURCE,
          DetailType: "agent.offline",
          Detail: JSON.stringify(notification),
          Time: new Date("2026-11-24T12:00:00.000Z"),
        },
      ],
    ]);
    expect(JSON.parse(calls()[0]?.[0]?.Detail ?? "{}")).toMatchObject({ id: "offline-1", tenant: "acme" });
  });

  it("puts at most 10 entries and 256 KB in a call", async () => {
    eventBridge.on(PutEventsCommand).callsFake(({ Entries }) => answer(Entries, () => false));
    const many = Array.from({ length: 23 }, (_, index) => notice(`small-${index}`));
    expect(await bus.put(many)).toEqual([]);
    expect(calls().map((entries) => entries.length)).toEqual([10, 10, 3]);

    eventBridge.reset();
    eventBridge.on(PutEventsCommand).callsFake(({ Entries }) => answer(Entries, () => false));
    const large = Array.from({ length: 5 }, (_, index) =>
      notice(`large-${index}`, { pad: "x".repeat(100_000) }),
    );
    expect(await bus.put(large)).toEqual([]);
    expect(calls().map((entries) => entries.length)).toEqual([2, 2, 1]);
    const ids = calls().flatMap((entries) => entries.map((entry) => JSON.parse(entry.Detail ?? "{}").id));
    expect(ids.sort()).toEqual(large.map((notification) => notification.id).sort());
  });

  it("resends only the entries a call refused, and has none refused when a resend takes them", async () => {
    let refusing = true;
    eventBridge.on(PutEventsCommand).callsFake(({ Entries }) => {
      const outcome = answer(Entries, (detail) => refusing && detail.id === "b");
      refusing = false;
      return outcome;
    });
    expect(await bus.put([notice("a"), notice("b"), notice("c")])).toEqual([]);
    expect(calls().map((entries) => entries.map((entry) => JSON.parse(entry.Detail ?? "{}").id))).toEqual([
      ["a", "b", "c"],
      ["b"],
    ]);
  });

  it("answers the entries still refused after three calls, by their place among those given", async () => {
    eventBridge
      .on(PutEventsCommand)
      .callsFake(({ Entries }) => answer(Entries, (detail) => detail.id === "b" || detail.id === "l"));
    const notifications = [..."abcdefghijkl"].map((id) => notice(id));
    expect(await bus.put(notifications)).toEqual([
      { index: 1, reason: "ThrottlingException: Rate exceeded" },
      { index: 11, reason: "ThrottlingException: Rate exceeded" },
    ]);
    // Two calls of the first put, then the two refused entries resent twice each.
    expect(calls().map((entries) => entries.length)).toEqual([10, 2, 1, 1, 1, 1]);
  });

  it("answers every entry of a call that kept failing whole", async () => {
    eventBridge
      .on(PutEventsCommand)
      .rejects(Object.assign(new Error("Service unavailable"), { name: "InternalException" }));
    expect(await bus.put([notice("a"), notice("b")])).toEqual([
      { index: 0, reason: "InternalException: Service unavailable" },
      { index: 1, reason: "InternalException: Service unavailable" },
    ]);
    expect(calls()).toHaveLength(3);
  });
});
