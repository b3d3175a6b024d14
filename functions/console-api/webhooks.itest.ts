import { randomUUID } from "node:crypto";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { signatureOf, type WebhookReceiver } from "../../scripts/local/webhook-receiver.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { DynamoSubscriptionStore } from "../adapters/dynamodb/subscription-store.js";
import { MAX_SUBSCRIPTIONS_PER_TENANT } from "../core/webhooks/subscriptions.js";
import { makeDynamoDbClient } from "../runtime/aws-clients/dynamodb.js";
import { EnvNames } from "../shared/env-names.js";
import { FunctionTimeouts } from "../shared/function-timeouts.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let receiver: WebhookReceiver;
const run = randomUUID().slice(0, 6);
const tenants = { a: `wa-${run}`, b: `wb-${run}` };
const tokens = { a: "", b: "" };
/** The console's own table, where the webhook dispatcher disables a subscription whose receiver is gone. */
const env = inject("beaconEnv");
const subscriptionStore = new DynamoSubscriptionStore(
  DynamoDBDocumentClient.from(makeDynamoDbClient(env)),
  env[EnvNames.tableName] as string,
);

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  receiver = await consoleApi.startReceiver();
  tokens.a = await consoleApi.token({ tenant: tenants.a, role: "admin" });
  tokens.b = await consoleApi.token({ tenant: tenants.b, role: "admin" });
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

const send = (method: string, path: string, token: string, body?: unknown) =>
  consoleApi.request(method, path, { token, body });

async function subscribe(token: string, change: Record<string, unknown> = {}) {
  const response = await send("POST", "/api/v1/webhooks", token, {
    url: receiver.url,
    eventTypes: ["agent.offline", "operation.*"],
    ...change,
  });
  expect(response.status, response.body).toBe(201);
  return response.json() as { subscriptionId: string; secret: string } & Record<string, unknown>;
}

describe("event subscriptions through the console API", () => {
  it("show the secret once, when made: reads and lists never carry it", async () => {
    const created = await subscribe(tokens.a, { agentClass: "pumps", description: "Pager" });
    expect(created).toMatchObject({
      url: receiver.url,
      eventTypes: ["agent.offline", "operation.*"],
      agentClass: "pumps",
      description: "Pager",
      state: "active",
      secret: expect.stringMatching(/^whsec_/),
    });
    const { secret, ...shown } = created;
    const read = await send("GET", `/api/v1/webhooks/${created.subscriptionId}`, tokens.a);
    expect(read.status).toBe(200);
    expect(read.json()).toEqual(shown);
    const listed = await send("GET", "/api/v1/webhooks?limit=100", tokens.a);
    expect(listed.json().items).toContainEqual(shown);
    for (const body of [read.body, listed.body]) {
      expect(body).not.toContain(secret);
      expect(body).not.toContain("whsec_");
    }
  });

  it.each([
    ["plain http", "http://hooks.example.com/beacon"],
    ["a private address", "https://10.0.0.7/hooks"],
    ["the instance metadata service", "https://169.254.169.254/latest/meta-data/"],
    ["IPv6 loopback", "https://[::1]/hooks"],
    ["a name under localhost that is not allow-listed", "https://hooks.localhost/beacon"],
    ["a single-label host", "https://intranet/hooks"],
  ])("refuse %s", async (_label, url) => {
    const response = await send("POST", "/api/v1/webhooks", tokens.a, { url, eventTypes: ["agent.*"] });
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: "invalid_request" } });
  });

  it("refuse event types Beacon does not send", async () => {
    const response = await send("POST", "/api/v1/webhooks", tokens.a, {
      url: receiver.url,
      eventTypes: ["agent.deleted"],
    });
    expect(response.status).toBe(400);
  });

  it("test by posting a signed webhook.test notification to the receiver, and say how it answered", async () => {
    const created = await subscribe(tokens.a);
    const before = receiver.received.length;
    receiver.answerWith({ status: 204 });
    const tested = await send("POST", `/api/v1/webhooks/${created.subscriptionId}/test`, tokens.a);
    expect(tested.status, tested.body).toBe(200);
    expect(tested.json()).toEqual({
      notificationId: expect.any(String),
      delivered: true,
      status: 204,
      durationMs: expect.any(Number),
    });
    const delivery = (await receiver.waitForDeliveries(before + 1, 30_000))[before];
    if (!delivery) throw new Error("no delivery");
    expect(signatureOf(delivery, created.secret)).toEqual({ valid: true });
    const other = await subscribe(tokens.a);
    expect(signatureOf(delivery, other.secret)).toMatchObject({ valid: false });
    expect(delivery.headers["webhook-id"]).toBe(tested.json().notificationId);
    expect(JSON.parse(delivery.body)).toMatchObject({
      id: tested.json().notificationId,
      type: "webhook.test",
      tenant: tenants.a,
      data: { subscriptionId: created.subscriptionId },
    });

    receiver.answerWith({ status: 503 });
    const failing = await send("POST", `/api/v1/webhooks/${created.subscriptionId}/test`, tokens.a);
    expect(failing.json()).toMatchObject({ delivered: false, status: 503 });

    receiver.answerWith("reset");
    const reset = await send("POST", `/api/v1/webhooks/${created.subscriptionId}/test`, tokens.a);
    expect(reset.json()).toMatchObject({ delivered: false, error: expect.any(String) });
    expect(reset.json()).not.toHaveProperty("status");
    receiver.answerWith({ status: 204 });
  });

  it("answer, within the function's time, that a receiver which never answers timed out", async () => {
    const created = await subscribe(tokens.a);
    receiver.answerWith("hang");
    try {
      const tested = await send("POST", `/api/v1/webhooks/${created.subscriptionId}/test`, tokens.a);
      expect(tested.status, tested.body).toBe(200);
      expect(tested.json()).toMatchObject({ delivered: false, error: "timed out" });
      // Given up on before the function's own time runs out, whatever else it spent that time on.
      expect(tested.json().durationMs).toBeLessThan(FunctionTimeouts.consoleApi * 1000);
      expect(tested.json()).not.toHaveProperty("status");
    } finally {
      receiver.answerWith({ status: 204 });
    }
  });

  it("answer 502 with a clear error when the dispatcher that posts tests cannot be invoked", async () => {
    const created = await subscribe(tokens.a);
    const before = receiver.received.length;
    const tested = await consoleApi.whileLambdaIsDown(() =>
      send("POST", `/api/v1/webhooks/${created.subscriptionId}/test`, tokens.a),
    );
    expect(tested.status, tested.body).toBe(502);
    expect(tested.json()).toEqual({
      error: {
        code: "webhook_tester_unavailable",
        message: expect.stringMatching(
          /^The webhook dispatcher could not post the test: the invocation failed/,
        ),
      },
    });
    expect(receiver.received.length).toBe(before);
    // Back up, the same console tests through it again.
    const again = await send("POST", `/api/v1/webhooks/${created.subscriptionId}/test`, tokens.a);
    expect(again.json()).toMatchObject({ delivered: true });
  });

  it("belong to their tenant: another cannot read, test, enable or delete them, nor see them listed", async () => {
    const created = await subscribe(tokens.a);
    const before = receiver.received.length;
    for (const [method, path] of [
      ["GET", `/api/v1/webhooks/${created.subscriptionId}`],
      ["POST", `/api/v1/webhooks/${created.subscriptionId}/test`],
      ["POST", `/api/v1/webhooks/${created.subscriptionId}/enable`],
      ["DELETE", `/api/v1/webhooks/${created.subscriptionId}`],
    ] as const) {
      const response = await send(method, path, tokens.b);
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect((await send("GET", "/api/v1/webhooks", tokens.b)).body).not.toContain(created.subscriptionId);
    expect(receiver.received.length).toBe(before);
    expect((await send("GET", `/api/v1/webhooks/${created.subscriptionId}`, tokens.a)).status).toBe(200);
  });

  it("are enabled again once disabled, by an admin, each time audited, keeping their id and secret", async () => {
    const tenant = `we-${run}`;
    const [admin, operator] = await Promise.all([
      consoleApi.token({ tenant, role: "admin", subject: "alice" }),
      consoleApi.token({ tenant, role: "operator", subject: "bob" }),
    ]);
    const created = await subscribe(admin);
    const { secret, ...shown } = created;
    const path = `/api/v1/webhooks/${created.subscriptionId}`;
    const disabledAt = Date.now();
    expect(
      await subscriptionStore.disable(
        tenant,
        created.subscriptionId,
        disabledAt,
        "The receiver answered 410 Gone",
      ),
    ).toBe(true);
    expect((await send("GET", path, admin)).json()).toMatchObject({
      state: "disabled",
      disabledAt: new Date(disabledAt).toISOString(),
      disabledReason: "The receiver answered 410 Gone",
    });

    const refused = await send("POST", `${path}/enable`, operator);
    expect(refused.status, refused.body).toBe(403);
    expect((await send("GET", path, admin)).json()).toMatchObject({ state: "disabled" });
    const enabled = await send("POST", `${path}/enable`, admin);
    expect(enabled.status, enabled.body).toBe(200);
    expect(enabled.json()).toEqual(shown);
    expect((await send("GET", path, admin)).json()).toEqual(shown);
    expect((await subscriptionStore.get(tenant, created.subscriptionId))?.secret).toBe(secret);
    const again = await send("POST", `${path}/enable`, admin);
    expect(again.status, again.body).toBe(200);
    expect(again.json()).toEqual(shown);
    // Enabled, it is tested like any other.
    expect((await send("POST", `${path}/test`, admin)).json()).toMatchObject({ delivered: true });

    const unknown = await send("POST", "/api/v1/webhooks/wh-0000000000000-absent/enable", admin);
    expect(unknown.status, unknown.body).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: "not_found" } });
    expect((await send("POST", `${path}/enable`, tokens.b)).status).toBe(404);

    const trail = await send("GET", "/api/v1/audit?operation=enableSubscription", admin);
    expect(trail.status, trail.body).toBe(200);
    const records = trail.json().items as Record<string, unknown>[];
    expect(records[0]).toMatchObject({ method: "POST", route: "/api/v1/webhooks/{subscriptionId}/enable" });
    const alice = { subject: "alice", role: "admin" };
    const target = { subscriptionId: created.subscriptionId };
    expect(records.map(({ actor, target, status }) => ({ actor, target, status }))).toEqual([
      { actor: alice, target: { subscriptionId: "wh-0000000000000-absent" }, status: 404 },
      { actor: alice, target, status: 200 },
      { actor: alice, target, status: 200 },
      { actor: { subject: "bob", role: "operator" }, target, status: 403 },
    ]);
  });

  it("are deleted for good", async () => {
    const created = await subscribe(tokens.a);
    const path = `/api/v1/webhooks/${created.subscriptionId}`;
    const deleted = await send("DELETE", path, tokens.a);
    expect(deleted.status).toBe(200);
    expect(deleted.json()).toMatchObject({ subscriptionId: created.subscriptionId });
    expect(deleted.body).not.toContain(created.secret);
    expect((await send("GET", path, tokens.a)).status).toBe(404);
    expect((await send("DELETE", path, tokens.a)).status).toBe(404);
    expect((await send("POST", `${path}/test`, tokens.a)).status).toBe(404);
  });

  it(`are at most ${MAX_SUBSCRIPTIONS_PER_TENANT} a tenant`, async () => {
    const token = await consoleApi.token({ tenant: `wc-${run}`, role: "admin" });
    for (let count = 0; count < MAX_SUBSCRIPTIONS_PER_TENANT; count++) await subscribe(token);
    const refused = await send("POST", "/api/v1/webhooks", token, {
      url: receiver.url,
      eventTypes: ["agent.online"],
    });
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({ error: { code: "subscription_limit" } });
    const listed = await send("GET", "/api/v1/webhooks?limit=10", token);
    const next = await send("GET", `/api/v1/webhooks?limit=100&cursor=${listed.json().nextCursor}`, token);
    expect([...(listed.json().items as unknown[]), ...(next.json().items as unknown[])]).toHaveLength(
      MAX_SUBSCRIPTIONS_PER_TENANT,
    );
  });
});
