/**
 * The stream consumer's notifications on an EventBridge bus: moto's, which the integration tests' global setup
 * starts. Events go on a kinesalite stream of this file's own; the local poller feeds the real handler module,
 * configured with a bus of this file's own, as Lambda's event source mapping would; rules on the bus send what
 * they match to SQS queues (moto serves SQS too), which the tests read.
 */
import { randomUUID } from "node:crypto";
import { PutRuleCommand, PutTargetsCommand } from "@aws-sdk/client-eventbridge";
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import type { KinesisStreamEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openTemporaryFunctionLog } from "../../scripts/local/function-logs.js";
import { metricTotals } from "../../scripts/local/function-metrics.js";
import { invoker } from "../../scripts/local/lambda-runtime.js";
import { provisionBucket, provisionEventBus, provisionStream } from "../../scripts/local/provision.js";
import { startStreamPoller } from "../../scripts/local/stream-poller.js";
import { wholeShardBatch } from "../../scripts/test-support/stream-reader.js";
import { until } from "../../scripts/test-support/until.js";
import { NOTIFICATION_SOURCE } from "../adapters/eventbridge/notification-bus.js";
import { KinesisEventSink } from "../adapters/kinesis/event-sink.js";
import type {
  AgentOfflineEvent,
  AgentOnlineEvent,
  BeaconEvent,
  HeartbeatEvent,
} from "../core/events/model.js";
import type { Notification } from "../core/webhooks/model.js";
import { notificationOf } from "../core/webhooks/notifications.js";
import { makeEventBridgeClient } from "../runtime/aws-clients/eventbridge.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { makeS3Client } from "../runtime/aws-clients/s3.js";
import { webhookDeliveryConfig } from "../shared/config.js";
import { AwsEndpointEnvNames, EnvNames } from "../shared/env-names.js";
import { FunctionTimeouts } from "../shared/function-timeouts.js";
import { functionLogger, MetricNames } from "../shared/observability.js";
import { makeStreamHandler } from "./batch.js";
import { composeStreamConsumers } from "./composition.js";

const suffix = randomUUID().slice(0, 8);
const busName = `notifications-${suffix}`;
const streamName = `bus-events-${suffix}`;
const faultStreamName = `bus-faults-${suffix}`;
const archiveBucket = `bus-archive-${suffix}`;
const tenant = `bus-${suffix}`;
const other = `bus-other-${suffix}`;
/** Whole seconds, as EventBridge keeps an entry's time. */
const at = Math.floor(Date.now() / 1000) * 1000;

const backends = inject("beaconEnv");
const env = {
  ...backends,
  [EnvNames.streamName]: streamName,
  [EnvNames.archiveBucket]: archiveBucket,
  [EnvNames.notificationBusName]: busName,
};
const eventBridge = makeEventBridgeClient(backends);
const sqs = new SQSClient({
  endpoint: backends[AwsEndpointEnvNames.eventbridge],
  region: backends.AWS_REGION,
  credentials: {
    accessKeyId: backends.AWS_ACCESS_KEY_ID as string,
    secretAccessKey: backends.AWS_SECRET_ACCESS_KEY as string,
  },
});
const kinesis = makeKinesisClient(backends);
const s3 = makeS3Client(backends);
const functionLog = openTemporaryFunctionLog();
let stopPoller: () => Promise<void>;

/** What every event of an agent here has: a fresh id, the whole second `at`, the class pumps. */
const agentEvent = (of: string, agentId: string) =>
  ({ version: 1, eventId: randomUUID(), tenant: of, agentId, at, agentClass: "pumps" }) as const;

const heartbeat = (agentId: string, firstSight: boolean): HeartbeatEvent => ({
  ...agentEvent(tenant, agentId),
  type: "heartbeat",
  firstSight,
  operationsSent: [],
});

const offline = (of: string, agentId: string): AgentOfflineEvent => ({
  ...agentEvent(of, agentId),
  type: "agent.offline",
  lastSeen: at - 180_000,
  heartbeatPeriodMs: 60_000,
});

const online = (agentId: string): AgentOnlineEvent => ({
  ...agentEvent(tenant, agentId),
  type: "agent.online",
  lastSeen: at - 180_000,
});

/** An SQS queue that the rule `name` on the bus sends every entry matching `pattern` to; its URL. */
async function queueOf(name: string, pattern: Record<string, unknown>): Promise<string> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-${suffix}` }));
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["QueueArn"] }),
  );
  await eventBridge.send(
    new PutRuleCommand({ Name: name, EventBusName: busName, EventPattern: JSON.stringify(pattern) }),
  );
  await eventBridge.send(
    new PutTargetsCommand({
      Rule: name,
      EventBusName: busName,
      Targets: [{ Id: "queue", Arn: Attributes?.QueueArn }],
    }),
  );
  return QueueUrl as string;
}

/** An EventBridge event as a target gets it. */
interface BusEvent {
  source: string;
  "detail-type": string;
  time: string;
  detail: { id: string; tenant: string } & Record<string, unknown>;
}

/** Reads the queue until a receive finds it empty: what it held, each message once. */
async function drained(queueUrl: string): Promise<BusEvent[]> {
  const messages: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        VisibilityTimeout: 600,
      }),
    );
    if (Messages.length === 0) return messages.map((message) => JSON.parse(message.Body ?? "{}") as BusEvent);
    messages.push(...Messages);
  }
}

/** The bus event a notification of `event` is, as a target gets it. */
const busEventOf = (event: BeaconEvent): BusEvent => {
  const notice = notificationOf(event) as Notification;
  return {
    source: NOTIFICATION_SOURCE,
    "detail-type": notice.type,
    time: expect.any(String) as string,
    detail: { ...notice },
  };
};

beforeAll(async () => {
  // The functions' compositions make their clients from the environment, as on Lambda.
  Object.assign(process.env, backends);
  await Promise.all([
    provisionStream(kinesis, streamName),
    provisionStream(kinesis, faultStreamName),
    provisionBucket(s3, archiveBucket),
    provisionEventBus(eventBridge, busName),
  ]);
  stopPoller = await startStreamPoller(env, () => {}, functionLog.log, { idleMs: 200, retryMs: 200 });
});

afterAll(async () => {
  await stopPoller?.();
  eventBridge.destroy();
  sqs.destroy();
  kinesis.destroy();
  s3.destroy();
  functionLog.close();
});

describe("the notification bus", () => {
  it("gets every notification of every tenant, whatever the subscriptions, and a rule by tenant and type finds its own", async () => {
    const offlineOfTenant = await queueOf("offline-of-tenant", {
      source: [NOTIFICATION_SOURCE],
      "detail-type": ["agent.offline"],
      detail: { tenant: [tenant] },
    });
    const everything = await queueOf("everything", { source: [NOTIFICATION_SOURCE] });
    const registered = heartbeat("pump-1", true);
    const wentOffline = offline(tenant, "pump-1");
    const otherWentOffline = offline(other, "pump-1");
    const cameBack = online("pump-1");
    const notified = [registered, wentOffline, otherWentOffline, cameBack];
    // Steady heartbeats are no notifications: they never reach the bus.
    await new KinesisEventSink(kinesis, streamName).publish([
      registered,
      heartbeat("pump-1", false),
      wentOffline,
      otherWentOffline,
      heartbeat("pump-2", false),
      cameBack,
    ]);

    // At least once: a batch the poller delivers again (a backend slow on a busy machine) puts its
    // notifications again, under the same ids, which is how consumers de-duplicate.
    const all = new Map<string, BusEvent>();
    await until("every notification on the bus", async () => {
      for (const event of await drained(everything)) all.set(event.detail.id, event);
      return all.size >= notified.length ? true : undefined;
    });
    const byId = (events: BusEvent[]) => [...events].sort((a, b) => a.detail.id.localeCompare(b.detail.id));
    // The envelope's own fields (id, account, region, resources, version) besides.
    expect(byId([...all.values()])).toMatchObject(byId(notified.map(busEventOf)));
    for (const event of all.values()) expect(Date.parse(event.time)).toBe(at);

    const matched = [
      ...new Map((await drained(offlineOfTenant)).map((event) => [event.detail.id, event])).values(),
    ];
    expect(matched).toMatchObject([busEventOf(wentOffline)]);
    expect(matched[0]?.detail).toMatchObject({ id: wentOffline.eventId, tenant, type: "agent.offline" });
  });

  it("fails a batch from the first record whose notification the bus refused, and counts the refusals", async () => {
    // A bus that is not there refuses every entry, however often they are resent.
    const consumers = composeStreamConsumers(
      { archiveBucket, notificationBusName: `missing-${suffix}` },
      { tableName: backends[EnvNames.tableName] as string, retentionDays: 14 },
      webhookDeliveryConfig(env),
    );
    try {
      const handle = invoker(
        { name: "stream-consumer", timeoutSeconds: FunctionTimeouts.streamConsumer },
        functionLog.log,
        makeStreamHandler(consumers.consumers, consumers.kept, functionLogger()),
      );
      await new KinesisEventSink(kinesis, faultStreamName).publish([
        heartbeat("pump-3", false),
        offline(tenant, "pump-3"),
        heartbeat("pump-4", false),
      ]);
      const batch: KinesisStreamEvent = await wholeShardBatch(kinesis, faultStreamName);
      const from = Date.now();
      const response = await handle(batch);
      expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(
        batch.Records.slice(1).map((record) => record.kinesis.sequenceNumber),
      );
      expect(
        await metricTotals(functionLog.log.file, [MetricNames.notificationsRefusedByBus], {
          from,
          to: Date.now(),
        }),
      ).toEqual({ [MetricNames.notificationsRefusedByBus]: 1 });
    } finally {
      await consumers.close();
    }
  });
});
