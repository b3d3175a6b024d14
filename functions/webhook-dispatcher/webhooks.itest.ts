/**
 * Event subscriptions on the local stack: events put on a kinesalite stream of this file's own are read back as
 * the batches Lambda delivers and given to the real stream consumer's handler, which queues deliveries in
 * DynamoDB Local and posts their first attempts over HTTPS to local receivers (the dev CA's certificate); the
 * webhook dispatcher retries them. Both run on a clock the tests move, so a day of retries takes no waiting.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { KinesisStreamEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureDevCertificates } from "../../scripts/local/certs.js";
import { openTemporaryFunctionLog } from "../../scripts/local/function-logs.js";
import { invoker } from "../../scripts/local/lambda-runtime.js";
import { provisionBucket, provisionStream, provisionTable } from "../../scripts/local/provision.js";
import {
  type ReceivedDelivery,
  signatureOf,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../scripts/local/webhook-receiver.js";
import { readShardRecords, wholeShardBatch } from "../../scripts/test-support/stream-reader.js";
import { DynamoDeliveryQueue } from "../adapters/dynamodb/delivery-queue.js";
import { DynamoSubscriptionStore } from "../adapters/dynamodb/subscription-store.js";
import { KinesisEventSink } from "../adapters/kinesis/event-sink.js";
import { ManualClock } from "../adapters/memory/clock.js";
import type { AgentOfflineEvent, BeaconEvent, HeartbeatEvent } from "../core/events/model.js";
import type { Delivery, Subscription } from "../core/webhooks/model.js";
import { RETRY_WINDOW_MS } from "../core/webhooks/policy.js";
import { checkSignature, WebhookHeaders, webhookSecretOf } from "../core/webhooks/signing.js";
import { makeDynamoDbClient } from "../runtime/aws-clients/dynamodb.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { makeS3Client } from "../runtime/aws-clients/s3.js";
import type { WebhookDeliveryConfig } from "../shared/config.js";
import { FunctionTimeouts } from "../shared/function-timeouts.js";
import { functionLogger } from "../shared/observability.js";
import { makeStreamHandler } from "../stream-consumer/batch.js";
import { composeStreamConsumers } from "../stream-consumer/composition.js";
import { composeWebhookDispatcher } from "./composition.js";

const suffix = randomUUID().slice(0, 8);
const tableName = `beacon-webhooks-${suffix}`;
const streamName = `webhook-events-${suffix}`;
const archiveBucket = `webhook-archive-${suffix}`;
const backends = inject("beaconEnv");
const kinesis = makeKinesisClient(backends);
const documents = DynamoDBDocumentClient.from(makeDynamoDbClient(backends), {
  marshallOptions: { removeUndefinedValues: true },
});
const subscriptions = new DynamoSubscriptionStore(documents, tableName);
const queue = new DynamoDeliveryQueue(documents, tableName, 7);
const events = new KinesisEventSink(kinesis, streamName);
const clock = new ManualClock(Date.now());
const functionLog = openTemporaryFunctionLog();
const receivers: WebhookReceiver[] = [];

let certsDir: string;
let receiverCertificate: { cert: string; key: string };
let consumers: ReturnType<typeof composeStreamConsumers>;
let dispatching: ReturnType<typeof composeWebhookDispatcher>;
let handle: (batch: KinesisStreamEvent) => Promise<{ batchItemFailures: unknown[] }>;

beforeAll(async () => {
  // The functions' compositions make their clients from the environment, as on Lambda.
  Object.assign(process.env, backends);
  await Promise.all([
    provisionTable(makeDynamoDbClient(backends), tableName),
    provisionStream(kinesis, streamName),
    provisionBucket(makeS3Client(backends), archiveBucket),
  ]);
  certsDir = await mkdtemp(join(tmpdir(), "beacon-webhooks-"));
  const certificates = await ensureDevCertificates(certsDir);
  const [cert, key] = await Promise.all([
    readFile(certificates.server.certPath, "utf8"),
    readFile(certificates.server.keyPath, "utf8"),
  ]);
  receiverCertificate = { cert, key };
  const webhooks: WebhookDeliveryConfig = {
    policy: { allowedHosts: ["127.0.0.1"] },
    caFile: certificates.caPath,
    timeoutMs: 5_000,
    tableName,
    streamName,
    retentionDays: 7,
  };
  consumers = composeStreamConsumers({ archiveBucket }, { tableName, retentionDays: 14 }, webhooks, clock);
  handle = invoker(
    { name: "stream-consumer", timeoutSeconds: FunctionTimeouts.streamConsumer },
    functionLog.log,
    makeStreamHandler(consumers.consumers, consumers.kept, functionLogger()),
  );
  dispatching = composeWebhookDispatcher(webhooks, clock);
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await consumers?.close();
  await dispatching?.close();
  documents.destroy();
  kinesis.destroy();
  functionLog.close();
  await rm(certsDir, { recursive: true, force: true });
});

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(receiverCertificate);
  receivers.push(started);
  return started;
}

async function subscribe(tenant: string, to: WebhookReceiver, eventTypes: string[]): Promise<Subscription> {
  const subscription: Subscription = {
    tenant,
    subscriptionId: `sub-${randomUUID()}`,
    url: to.url,
    eventTypes,
    secret: webhookSecretOf(randomBytes(32)),
    state: "active",
    createdAt: clock.now(),
    createdBy: "ops@example.com",
  };
  await subscriptions.create(subscription);
  return subscription;
}

const offline = (tenant: string, agentId: string): AgentOfflineEvent => ({
  type: "agent.offline",
  version: 1,
  eventId: randomUUID(),
  tenant,
  agentId,
  at: clock.now(),
  agentClass: "pumps",
  lastSeen: clock.now() - 180_000,
  heartbeatPeriodMs: 60_000,
});

const steadyHeartbeat = (tenant: string, agentId: string): HeartbeatEvent => ({
  type: "heartbeat",
  version: 1,
  eventId: randomUUID(),
  tenant,
  agentId,
  at: clock.now(),
  agentClass: "pumps",
  firstSight: false,
  operationsSent: [],
});

/** Puts `put` on the stream and reads them back off its shard as the batch Lambda would deliver. */
async function batchOf(...put: BeaconEvent[]): Promise<KinesisStreamEvent> {
  await events.publish(put);
  const ids = new Set(put.map((event) => event.eventId));
  const batch = await wholeShardBatch(kinesis, streamName);
  const ours = batch.Records.filter((record) =>
    ids.has((JSON.parse(Buffer.from(record.kinesis.data, "base64").toString()) as BeaconEvent).eventId),
  );
  expect(ours).toHaveLength(put.length);
  return { Records: ours };
}

async function deliveriesOf(subscription: Subscription): Promise<Delivery[]> {
  return (await queue.list(subscription.tenant, subscription.subscriptionId, { limit: 100 })).items;
}

async function onlyDeliveryOf(subscription: Subscription): Promise<Delivery> {
  const [delivery, ...more] = await deliveriesOf(subscription);
  expect(more).toEqual([]);
  if (!delivery) throw new Error("no delivery");
  return delivery;
}

/** Signed by the subscription's secret at the time the attempt says, as its receiver checks it then. */
const signedAtItsTime = (delivery: ReceivedDelivery, secret: string) =>
  checkSignature(secret, delivery.headers, delivery.body, Number(delivery.headers[WebhookHeaders.timestamp]))
    .valid;

describe("event subscriptions' deliveries", () => {
  it("post an agent going offline to its subscribers at once, signed, and nothing twice when a batch is read again", async () => {
    clock.time = Date.now();
    const tenant = `hooks-${randomUUID().slice(0, 8)}`;
    const hooks = await receiver();
    const others = await receiver();
    const subscription = await subscribe(tenant, hooks, ["agent.*"]);
    await subscribe(tenant, others, ["operation.*"]);
    const gone = [offline(tenant, "pump-1"), offline(tenant, "pump-2")];
    const batch = await batchOf(
      gone[0] as BeaconEvent,
      steadyHeartbeat(tenant, "pump-3"),
      gone[1] as BeaconEvent,
    );

    expect(await handle(batch)).toEqual({ batchItemFailures: [] });
    const received = await hooks.waitForDeliveries(2, 10_000);
    expect(received.map((delivery) => delivery.headers[WebhookHeaders.id]).sort()).toEqual(
      gone.map((event) => event.eventId).sort(),
    );
    for (const delivery of received) {
      expect(signatureOf(delivery, subscription.secret)).toEqual({ valid: true });
      expect(JSON.parse(delivery.body)).toMatchObject({
        type: "agent.offline",
        tenant,
        data: { lastSeen: expect.any(String) },
      });
    }

    await handle(batch);
    await handle({ Records: batch.Records.slice(1) });
    expect(hooks.received).toHaveLength(2);
    expect(others.received).toHaveLength(0);
    expect((await deliveriesOf(subscription)).map(({ state, attempts }) => ({ state, attempts }))).toEqual([
      { state: "delivered", attempts: 1 },
      { state: "delivered", attempts: 1 },
    ]);
  });

  it("retry a failing receiver with growing waits, and deliver once it recovers", async () => {
    clock.time = Date.now();
    const tenant = `hooks-${randomUUID().slice(0, 8)}`;
    const hooks = await receiver();
    hooks.answerWith({ status: 503 });
    const subscription = await subscribe(tenant, hooks, ["agent.offline"]);
    await handle(await batchOf(offline(tenant, "pump-1")));
    expect(hooks.received).toHaveLength(1);

    const waits: number[] = [];
    for (let retry = 1; retry <= 3; retry++) {
      const pending = await onlyDeliveryOf(subscription);
      expect(pending).toMatchObject({ state: "pending", attempts: retry });
      const due = pending.nextAttemptAt as number;
      waits.push(due - (pending.lastAttempt?.at as number));
      clock.time = due - 1;
      await dispatching.dispatcher.dispatch(Number.POSITIVE_INFINITY);
      expect(hooks.received).toHaveLength(retry);
      clock.time = due;
      expect(await dispatching.dispatcher.dispatch(Number.POSITIVE_INFINITY)).toMatchObject({ retrying: 1 });
      expect(hooks.received).toHaveLength(retry + 1);
    }
    expect(waits[0]).toBeGreaterThanOrEqual(27_000);
    expect(waits[1]).toBeGreaterThan(waits[0] as number);
    expect(waits[2]).toBeGreaterThan(waits[1] as number);

    hooks.answerWith({ status: 204 });
    clock.time = (await onlyDeliveryOf(subscription)).nextAttemptAt as number;
    expect(await dispatching.dispatcher.dispatch(Number.POSITIVE_INFINITY)).toMatchObject({ delivered: 1 });
    expect(await onlyDeliveryOf(subscription)).toMatchObject({
      state: "delivered",
      attempts: 5,
      lastAttempt: { status: 204 },
    });
    expect(hooks.received).toHaveLength(5);
    expect(new Set(hooks.received.map((delivery) => delivery.headers[WebhookHeaders.id])).size).toBe(1);
    for (const delivery of hooks.received) expect(signedAtItsTime(delivery, subscription.secret)).toBe(true);
    expect(await dispatching.dispatcher.dispatch(Number.POSITIVE_INFINITY)).toMatchObject({ delivered: 0 });
  });

  it("give up after 24 hours, disable a subscription whose receiver took nothing, and announce it on the stream", async () => {
    clock.time = Date.now();
    const start = clock.now();
    const tenant = `hooks-${randomUUID().slice(0, 8)}`;
    const hooks = await receiver();
    hooks.answerWith({ status: 500 });
    const subscription = await subscribe(tenant, hooks, ["agent.offline"]);
    await handle(await batchOf(offline(tenant, "pump-1")));

    for (let run = 0; run < 30; run++) {
      const delivery = await onlyDeliveryOf(subscription);
      if (delivery.state !== "pending") break;
      clock.time = delivery.nextAttemptAt as number;
      await dispatching.dispatcher.dispatch(Number.POSITIVE_INFINITY);
    }
    const failed = await onlyDeliveryOf(subscription);
    expect(failed).toMatchObject({ state: "failed", lastAttempt: { status: 500 } });
    expect(failed.lastAttempt?.at).toBe(start + RETRY_WINDOW_MS);
    expect(hooks.received).toHaveLength(failed.attempts);
    expect(failed.attempts).toBeGreaterThanOrEqual(13);

    const reason = "No delivery succeeded for 24 hours; the last attempt got HTTP 500";
    expect(await subscriptions.get(tenant, subscription.subscriptionId)).toMatchObject({
      state: "disabled",
      disabledReason: reason,
    });
    const announced = (await readShardRecords(kinesis, streamName))
      .map((record) => record.data as BeaconEvent)
      .filter((event) => event.type === "webhook.disabled" && event.tenant === tenant);
    expect(announced).toEqual([
      expect.objectContaining({
        subscriptionId: subscription.subscriptionId,
        reason,
        deliveryId: failed.deliveryId,
      }),
    ]);

    // Disabled, it is sent nothing more.
    await handle(await batchOf(offline(tenant, "pump-2")));
    expect(hooks.received).toHaveLength(failed.attempts);
  });
});
