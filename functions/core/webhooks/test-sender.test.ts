import { describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemorySubscriptionStore } from "../../adapters/memory/subscription-store.js";
import { RecordingWebhookSender } from "../../adapters/memory/webhook-sender.js";
import type { Subscription } from "./model.js";
import type { WebhookTestRequest } from "./ports.js";
import { checkSignature } from "./signing.js";
import { makeWebhookTestSender, webhookTestPayload, webhookTestRequestOf } from "./test-sender.js";

const subscription: Subscription = {
  tenant: "acme",
  subscriptionId: "wh-0001700000000-one",
  url: "https://hooks.acme.example/beacon",
  eventTypes: ["agent.offline"],
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  state: "disabled",
  createdAt: 1_700_000_000_000,
  createdBy: "acme-admin",
};
const request: WebhookTestRequest = {
  tenant: "acme",
  subscriptionId: subscription.subscriptionId,
  notificationId: "test-1",
  requestedBy: "acme-admin",
};

async function harness() {
  const subscriptions = new MemorySubscriptionStore();
  await subscriptions.create(structuredClone(subscription));
  const sender = new RecordingWebhookSender();
  const clock = new ManualClock(1_700_000_100_000);
  return { sender, clock, tester: makeWebhookTestSender({ subscriptions, sender, clock }) };
}

describe("the webhook test sender", () => {
  it("posts the subscription's signed webhook.test under the requested id, and answers the receiver's reply", async () => {
    const { tester, sender, clock } = await harness();
    sender.response = { status: 202, durationMs: 7 };
    expect(await tester.test(request)).toEqual({ found: true, response: { status: 202, durationMs: 7 } });
    const [sent] = sender.requests;
    if (!sent) throw new Error("nothing sent");
    expect(sent.url).toBe(subscription.url);
    expect(sent.headers["webhook-id"]).toBe("test-1");
    expect(JSON.parse(sent.body)).toEqual({
      id: "test-1",
      type: "webhook.test",
      tenant: "acme",
      at: new Date(clock.now()).toISOString(),
      data: { subscriptionId: subscription.subscriptionId, requestedBy: "acme-admin" },
    });
    expect(checkSignature(subscription.secret, sent.headers, sent.body, clock.now() / 1000)).toEqual({
      valid: true,
    });
  });

  it("finds a subscription only under the tenant the request names, and posts nothing otherwise", async () => {
    const { tester, sender } = await harness();
    expect(await tester.test({ ...request, tenant: "globex" })).toEqual({ found: false });
    expect(await tester.test({ ...request, subscriptionId: "wh-0001700000000-gone" })).toEqual({
      found: false,
    });
    expect(sender.requests).toEqual([]);
  });
});

describe("a test request in an invocation's payload", () => {
  it("travels as JSON and is read back as it was, without the subscription's secret", () => {
    const payload = JSON.parse(JSON.stringify(webhookTestPayload(request)));
    expect(webhookTestRequestOf(payload)).toEqual(request);
    expect(JSON.stringify(payload)).not.toContain("whsec_");
  });

  it("is absent from a schedule's event", () => {
    for (const event of [{ source: "aws.events", "detail-type": "Scheduled Event", detail: {} }, null, "x"]) {
      expect(webhookTestRequestOf(event)).toBeUndefined();
    }
  });

  it.each([
    ["no tenant", { ...request, tenant: undefined }],
    ["a tenant that is no identifier", { ...request, tenant: "../acme" }],
    ["a subscription id of another shape", { ...request, subscriptionId: "../../CERTS" }],
    ["an empty notification id", { ...request, notificationId: "" }],
    ["a requester that is not text", { ...request, requestedBy: 7 }],
    ["an overlong notification id", { ...request, notificationId: "x".repeat(257) }],
    ["a field more", { ...request, secret: "whsec_x" }],
    ["no object", "acme"],
  ])("is refused with %s", (_label, fields) => {
    expect(() => webhookTestRequestOf({ webhookTest: fields })).toThrow(/exactly tenant, subscriptionId/);
  });
});
