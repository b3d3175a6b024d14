import { describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/memory/clock.js";
import { SequentialIds } from "../../adapters/memory/id-generator.js";
import { CountingRandom } from "../../adapters/memory/random-source.js";
import { MemorySubscriptionStore } from "../../adapters/memory/subscription-store.js";
import { RecordingWebhookSender } from "../../adapters/memory/webhook-sender.js";
import type { Principal, Role } from "../identity/principal.js";
import { encodeCursor } from "../paging.js";
import type { ConsoleResult } from "../result.js";
import { makeSubscriptionsApi } from "./console-webhooks.js";
import { NotificationFamilies, NotificationTypes } from "./notification-types.js";
import { checkSignature, MIN_SECRET_BYTES } from "./signing.js";
import { MAX_SUBSCRIPTIONS_PER_TENANT, type SubscriptionRequest } from "./subscriptions.js";
import { makeWebhookTestSender } from "./test-sender.js";

const TENANT = "acme";
const as = (role: Role, tenant = TENANT): Principal => ({ tenant, role, subject: `${tenant}-${role}` });
const admin = as("admin");
const request: SubscriptionRequest = {
  url: "https://hooks.acme.example/beacon",
  eventTypes: ["agent.offline", "operation.*"],
};

function harness(allowedHosts: string[] = []) {
  const subscriptions = new MemorySubscriptionStore();
  const webhookSender = new RecordingWebhookSender();
  const clock = new ManualClock();
  const ports = {
    subscriptions,
    webhookTester: makeWebhookTestSender({ subscriptions, sender: webhookSender, clock }),
    webhookUrlPolicy: { allowedHosts },
    clock,
    ids: new SequentialIds(),
    random: new CountingRandom(),
  };
  return { ...ports, webhookSender, api: makeSubscriptionsApi(ports) };
}

const bodyOf = async (result: Promise<ConsoleResult>) => (await result).body as Record<string, unknown>;
const refusal = (code: string, message?: RegExp) =>
  expect.objectContaining({ code, ...(message ? { message: expect.stringMatching(message) } : {}) });

describe("notification types", () => {
  it("name every operation and rollout state, and families for each kind", () => {
    expect(NotificationTypes).toContain("operation.timed_out");
    expect(NotificationTypes).toContain("rollout.rolled_back");
    expect(NotificationTypes).toContain("certificate.expiring");
    expect(NotificationFamilies).toEqual([
      "agent.*",
      "operation.*",
      "rollout.*",
      "certificate.*",
      "webhook.*",
    ]);
  });
});

describe("event subscriptions", () => {
  it("show the secret once, in the answer to their creation, and keep it to sign with", async () => {
    const { api, subscriptions, clock } = harness();
    const created = await api.create(admin, { ...request, agentClass: "pumps", description: "Pager" });
    expect(created.status).toBe(201);
    const body = created.body as Record<string, unknown>;
    expect(body).toEqual({
      subscriptionId: expect.stringMatching(/^wh-\d{13}-/),
      url: request.url,
      eventTypes: request.eventTypes,
      agentClass: "pumps",
      description: "Pager",
      state: "active",
      createdAt: new Date(clock.now()).toISOString(),
      createdBy: "acme-admin",
      secret: expect.stringMatching(/^whsec_/),
    });
    const secret = body.secret as string;
    expect(Buffer.from(secret.slice("whsec_".length), "base64").length).toBeGreaterThanOrEqual(
      MIN_SECRET_BYTES,
    );
    const id = body.subscriptionId as string;
    expect((await subscriptions.get(TENANT, id))?.secret).toBe(secret);
    const { secret: _shownOnce, ...shown } = body;
    expect(await bodyOf(api.get(admin, id))).toEqual(shown);
    expect(await bodyOf(api.list(admin, {}))).toEqual({ items: [shown] });
    expect(JSON.stringify(await bodyOf(api.delete(admin, id)))).not.toContain(secret);
  });

  it("give each subscription a secret of its own", async () => {
    const { api } = harness();
    const first = await bodyOf(api.create(admin, request));
    const second = await bodyOf(api.create(admin, request));
    expect(first.secret).not.toBe(second.secret);
    expect(first.subscriptionId).not.toBe(second.subscriptionId);
  });

  it.each([
    ["http://hooks.acme.example/", /https/],
    ["https://10.1.2.3/hook", /private/],
    ["https://169.254.169.254/latest/meta-data", /private/],
    ["https://[::1]:8443/", /private/],
    ["https://localhost:8443/", /public host/],
    ["https://user:pass@hooks.acme.example/", /credentials/],
    ["not a url", /not a URL/],
    [`https://hooks.acme.example/${"a".repeat(2048)}`, /at most 2048/],
  ])("refuse the url %s", async (url, message) => {
    const { api, subscriptions } = harness();
    await expect(api.create(admin, { ...request, url })).rejects.toThrow(refusal("invalid_request", message));
    expect(subscriptions.subscriptions.size).toBe(0);
  });

  it("take a local receiver's url only when its host is allow-listed", async () => {
    const url = "https://localhost:8443/hook";
    await expect(harness().api.create(admin, { ...request, url })).rejects.toThrow(
      refusal("invalid_request"),
    );
    expect((await harness(["localhost"]).api.create(admin, { ...request, url })).status).toBe(201);
  });

  it.each([
    [{ eventTypes: [] }, /at least one/],
    [{ eventTypes: ["agent.deleted"] }, /agent\.deleted/],
    [{ eventTypes: ["agent.offline", "*"] }, /Unknown event types \*:/],
    [{ eventTypes: ["operation"] }, /operation/],
    [{ agentClass: "../pumps" }, /agentClass/],
    [{ description: "x".repeat(257) }, /description/],
  ])("refuse %j", async (change, message) => {
    const { api } = harness();
    await expect(api.create(admin, { ...request, ...change })).rejects.toThrow(
      refusal("invalid_request", message),
    );
  });

  it("keep each event type once, in the order given", async () => {
    const { api } = harness();
    const body = await bodyOf(
      api.create(admin, { ...request, eventTypes: ["rollout.*", "agent.online", "rollout.*"] }),
    );
    expect(body.eventTypes).toEqual(["rollout.*", "agent.online"]);
  });

  it(`are at most ${MAX_SUBSCRIPTIONS_PER_TENANT} per tenant`, async () => {
    const { api } = harness();
    const ids: string[] = [];
    for (let count = 0; count < MAX_SUBSCRIPTIONS_PER_TENANT; count++) {
      ids.push((await bodyOf(api.create(admin, request))).subscriptionId as string);
    }
    await expect(api.create(admin, request)).rejects.toThrow(refusal("subscription_limit"));
    expect((await api.create(as("admin", "globex"), request)).status).toBe(201);
    await api.delete(admin, ids[0] as string);
    expect((await api.create(admin, request)).status).toBe(201);
  });

  it("list by creation, page by page", async () => {
    const { api, clock } = harness();
    const ids: string[] = [];
    for (let count = 0; count < 3; count++) {
      clock.advance(1000);
      ids.push((await bodyOf(api.create(admin, request))).subscriptionId as string);
    }
    const first = await bodyOf(api.list(admin, { limit: 2 }));
    expect((first.items as { subscriptionId: string }[]).map((item) => item.subscriptionId)).toEqual(
      ids.slice(0, 2),
    );
    const second = await bodyOf(api.list(admin, { limit: 2, cursor: first.nextCursor as string }));
    expect((second.items as { subscriptionId: string }[]).map((item) => item.subscriptionId)).toEqual(
      ids.slice(2),
    );
    await expect(api.list(admin, { cursor: encodeCursor("../x") })).rejects.toThrow(
      refusal("invalid_request"),
    );
  });

  it("belong to their tenant alone", async () => {
    const { api, subscriptions, webhookSender } = harness();
    const id = (await bodyOf(api.create(admin, request))).subscriptionId as string;
    const other = as("admin", "globex");
    for (const call of [
      api.get(other, id),
      api.delete(other, id),
      api.test(other, id),
      api.enable(other, id),
    ]) {
      await expect(call).rejects.toThrow(refusal("not_found"));
    }
    expect(await bodyOf(api.list(other, {}))).toEqual({ items: [] });
    expect(await subscriptions.get(TENANT, id)).toBeDefined();
    expect(webhookSender.requests).toEqual([]);
  });

  it("need the admin role for every use", async () => {
    const { api, subscriptions } = harness();
    const id = (await bodyOf(api.create(admin, request))).subscriptionId as string;
    for (const role of ["viewer", "operator"] as const) {
      const caller = as(role);
      for (const call of [
        api.create(caller, request),
        api.list(caller, {}),
        api.get(caller, id),
        api.delete(caller, id),
        api.test(caller, id),
        api.enable(caller, id),
      ]) {
        await expect(call).rejects.toThrow(refusal("forbidden"));
      }
    }
    expect(subscriptions.subscriptions.size).toBe(1);
  });

  it("say there is none for an id that is not there or cannot be one", async () => {
    const { api } = harness();
    for (const id of ["wh-0000000000000-gone", "../../CERTS"]) {
      await expect(api.get(admin, id)).rejects.toThrow(refusal("not_found"));
      await expect(api.delete(admin, id)).rejects.toThrow(refusal("not_found"));
      await expect(api.enable(admin, id)).rejects.toThrow(refusal("not_found"));
    }
  });

  it("test by posting a signed webhook.test notification at once, and answer how it went", async () => {
    const { api, webhookSender, clock } = harness();
    const created = await bodyOf(api.create(admin, request));
    const id = created.subscriptionId as string;
    const answer = await bodyOf(api.test(admin, id));
    expect(answer).toEqual({ notificationId: "id-2", delivered: true, status: 204, durationMs: 3 });
    const [sent] = webhookSender.requests;
    expect(sent?.url).toBe(request.url);
    expect(sent?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(sent?.body as string)).toEqual({
      id: "id-2",
      type: "webhook.test",
      tenant: TENANT,
      at: new Date(clock.now()).toISOString(),
      data: { subscriptionId: id, requestedBy: "acme-admin" },
    });
    const nowSeconds = Math.floor(clock.now() / 1000);
    expect(
      checkSignature(created.secret as string, sent?.headers ?? {}, sent?.body as string, nowSeconds),
    ).toEqual({ valid: true });
    expect(sent?.headers["webhook-id"]).toBe("id-2");
  });

  it("report a failing receiver's status, or why none answered", async () => {
    const { api, webhookSender } = harness();
    const id = (await bodyOf(api.create(admin, request))).subscriptionId as string;
    webhookSender.response = { status: 503, durationMs: 12 };
    expect(await bodyOf(api.test(admin, id))).toMatchObject({
      delivered: false,
      status: 503,
      durationMs: 12,
    });
    webhookSender.response = { error: "connect ECONNREFUSED", durationMs: 1 };
    const refused = await bodyOf(api.test(admin, id));
    expect(refused).toMatchObject({ delivered: false, error: "connect ECONNREFUSED" });
    expect(refused).not.toHaveProperty("status");
  });

  it("say there is none when the subscription is deleted while its test is on its way", async () => {
    const { api, subscriptions, webhookTester, webhookSender, ...ports } = harness();
    const id = (await bodyOf(api.create(admin, request))).subscriptionId as string;
    const racing = makeSubscriptionsApi({
      ...ports,
      subscriptions,
      webhookTester: {
        test: async (test) => {
          await subscriptions.delete(test.tenant, test.subscriptionId);
          return webhookTester.test(test);
        },
      },
    });
    await expect(racing.test(admin, id)).rejects.toThrow(refusal("not_found"));
    expect(webhookSender.requests).toEqual([]);
  });

  it("test a disabled subscription too, so that a mended receiver can be tried", async () => {
    const { api, subscriptions, clock } = harness();
    const id = (await bodyOf(api.create(admin, request))).subscriptionId as string;
    expect(await subscriptions.disable(TENANT, id, clock.now(), "failing for 24 hours")).toBe(true);
    expect(await bodyOf(api.get(admin, id))).toMatchObject({
      state: "disabled",
      disabledAt: new Date(clock.now()).toISOString(),
      disabledReason: "failing for 24 hours",
    });
    expect(await bodyOf(api.test(admin, id))).toMatchObject({ delivered: true });
  });

  it("enable a disabled subscription, forgetting when and why it was disabled, and leave an active one be", async () => {
    const { api, subscriptions, clock } = harness();
    const created = await bodyOf(api.create(admin, request));
    const { secret, ...shown } = created;
    const id = created.subscriptionId as string;
    expect(await bodyOf(api.enable(admin, id))).toEqual(shown);
    await subscriptions.disable(TENANT, id, clock.now(), "The receiver answered 410 Gone");
    expect(await bodyOf(api.enable(admin, id))).toEqual(shown);
    expect(await bodyOf(api.get(admin, id))).toEqual(shown);
    expect((await subscriptions.active(TENANT)).map(({ subscriptionId }) => subscriptionId)).toEqual([id]);
    expect(await bodyOf(api.enable(admin, id))).toEqual(shown);
    expect((await subscriptions.get(TENANT, id))?.secret).toBe(secret);
  });

  it("answer a subscription enabled or deleted by another request while enabling it as it is now", async () => {
    const { api, subscriptions, clock, ...ports } = harness();
    const id = (await bodyOf(api.create(admin, request))).subscriptionId as string;
    const racing = (meanwhile: () => Promise<unknown>) =>
      makeSubscriptionsApi({
        ...ports,
        clock,
        subscriptions: Object.assign(Object.create(subscriptions), {
          enable: async (tenant: string, subscriptionId: string) => {
            await meanwhile();
            return subscriptions.enable(tenant, subscriptionId);
          },
        }),
      });
    await subscriptions.disable(TENANT, id, clock.now(), "The receiver answered 410 Gone");
    const enabled = await bodyOf(racing(() => subscriptions.enable(TENANT, id)).enable(admin, id));
    expect(enabled).toMatchObject({ subscriptionId: id, state: "active" });
    expect(enabled).not.toHaveProperty("disabledReason");
    await subscriptions.disable(TENANT, id, clock.now(), "The receiver answered 410 Gone");
    await expect(racing(() => subscriptions.delete(TENANT, id)).enable(admin, id)).rejects.toThrow(
      refusal("not_found"),
    );
  });
});
