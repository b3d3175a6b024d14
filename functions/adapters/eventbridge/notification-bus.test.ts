import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { localService } from "../../../scripts/test-support/local-service.js";
import type { Notification } from "../../core/webhooks/model.js";
import { busForDirectCalls } from "../../runtime/aws-clients/direct-bus.js";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import { type BusClient, EventBridgeNotificationBus, NOTIFICATION_SOURCE } from "./notification-bus.js";

interface SentEntry {
  EventBusName: string;
  Source: string;
  DetailType: string;
  Detail: string;
  Time: number;
}

/** How the EventBridge below answers a PutEvents call: its status and body. */
type Answer = (entries: SentEntry[]) => { status: number; body: unknown };

// moto takes every entry: only a server of the test's own refuses some, as EventBridge does when it throttles.
let answerWith: Answer;
/** The entries of every PutEvents call, in the order the calls were made. */
let sent: SentEntry[][] = [];
const eventBridge = localService((request, body, response) => {
  const target = request.headers["x-amz-target"];
  let answer: ReturnType<Answer> = {
    status: 400,
    body: { __type: "UnknownOperationException", message: String(target) },
  };
  if (target === "AWSEvents.PutEvents") {
    const { Entries } = JSON.parse(body.toString("utf8")) as { Entries: SentEntry[] };
    sent.push(Entries);
    answer = answerWith(Entries);
  }
  response.writeHead(answer.status, { "content-type": "application/x-amz-json-1.1" });
  response.end(JSON.stringify(answer.body));
});
let client: BusClient;
let bus: EventBridgeNotificationBus;

beforeAll(() => {
  client = busForDirectCalls(eventBridge.env(AwsEndpointEnvNames.eventbridge));
  bus = new EventBridgeNotificationBus(client, "beacon-test", {
    maxAttempts: 3,
    backoffMs: 1,
    concurrency: 2,
  });
});

afterAll(async () => {
  client.destroy();
});

const notice = (id: string, data: Record<string, unknown> = {}): Notification => ({
  id,
  type: "agent.offline",
  tenant: "acme",
  at: "2026-11-24T12:00:00.000Z",
  data: { agentId: id, ...data },
});

/** EventBridge's answer to a call: every entry taken but those `refuses` names. */
const taking =
  (refuses: (detail: Notification) => boolean): Answer =>
  (entries) => {
    const outcomes = entries.map((entry, index) =>
      refuses(JSON.parse(entry.Detail) as Notification)
        ? { ErrorCode: "ThrottlingException", ErrorMessage: "Rate exceeded" }
        : { EventId: `event-${index}` },
    );
    const failed = outcomes.filter((outcome) => "ErrorCode" in outcome).length;
    return { status: 200, body: { FailedEntryCount: failed, Entries: outcomes } };
  };
const idsOf = (entries: SentEntry[]) => entries.map((entry) => (JSON.parse(entry.Detail) as Notification).id);

beforeEach(() => {
  sent = [];
  answerWith = taking(() => false);
});

describe("the EventBridge notification bus", () => {
  it("puts each notification as an entry of source beacon, its type, its body with its tenant, and its time", async () => {
    const notification = notice("offline-1");
    expect(await bus.put([notification])).toEqual([]);
    expect(sent).toEqual([
      [
        {
          EventBusName: "beacon-test",
          Source: NOTIFICATION_SOURCE,
          DetailType: "agent.offline",
          Detail: JSON.stringify(notification),
          Time: Date.parse("2026-11-24T12:00:00.000Z") / 1000,
        },
      ],
    ]);
    expect(JSON.parse(sent[0]?.[0]?.Detail ?? "{}")).toMatchObject({ id: "offline-1", tenant: "acme" });
  });

  it("puts at most 10 entries and 256 KB in a call", async () => {
    const many = Array.from({ length: 23 }, (_, index) => notice(`small-${index}`));
    expect(await bus.put(many)).toEqual([]);
    expect(sent.map((entries) => entries.length)).toEqual([10, 10, 3]);

    sent = [];
    const large = Array.from({ length: 5 }, (_, index) =>
      notice(`large-${index}`, { pad: "x".repeat(100_000) }),
    );
    expect(await bus.put(large)).toEqual([]);
    expect(sent.map((entries) => entries.length)).toEqual([2, 2, 1]);
    const ids = sent.flatMap(idsOf);
    expect(ids.sort()).toEqual(large.map((notification) => notification.id).sort());
  });

  it("resends only the entries a call refused, and has none refused when a resend takes them", async () => {
    let refusing = true;
    answerWith = (entries) => {
      const outcome = taking((detail) => refusing && detail.id === "b")(entries);
      refusing = false;
      return outcome;
    };
    expect(await bus.put([notice("a"), notice("b"), notice("c")])).toEqual([]);
    expect(sent.map(idsOf)).toEqual([["a", "b", "c"], ["b"]]);
  });

  it("answers the entries still refused after three calls, by their place among those given", async () => {
    answerWith = taking((detail) => detail.id === "b" || detail.id === "l");
    const notifications = [..."abcdefghijkl"].map((id) => notice(id));
    expect(await bus.put(notifications)).toEqual([
      { index: 1, reason: "ThrottlingException: Rate exceeded" },
      { index: 11, reason: "ThrottlingException: Rate exceeded" },
    ]);
    // Two calls of the first put, then the two refused entries resent twice each.
    expect(sent.map((entries) => entries.length)).toEqual([10, 2, 1, 1, 1, 1]);
  });

  it("answers every entry of a call that kept failing whole", async () => {
    answerWith = () => ({
      status: 500,
      body: { __type: "InternalException", message: "Service unavailable" },
    });
    expect(await bus.put([notice("a"), notice("b")])).toEqual([
      { index: 0, reason: "InternalException: Service unavailable" },
      { index: 1, reason: "InternalException: Service unavailable" },
    ]);
    expect(sent).toHaveLength(3);
  });
});
