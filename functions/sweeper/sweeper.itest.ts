/**
 * The sweeper on the local stack: an operation delivered in a real heartbeat reply and never acknowledged
 * times out when the sweeper looks at it as it will be six minutes later (a clock ahead, no waiting); a
 * late acknowledgement then changes nothing, and a C++ acknowledgement that claims an effect no heartbeat
 * shows is never taken for it. A rollout's canary, once it has soaked, lets the sweeper start the next
 * batch. Groups are counted by a pass over the tenant's agents; what a tenant stores is snapshot once a day. This file has a table of its own: a sweeper six minutes ahead would otherwise time out what
 * other files' tests are still waiting on, and look at their rollouts.
 */
import { createHash, randomUUID } from "node:crypto";
import { HeadObjectCommand } from "@aws-sdk/client-s3";
import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import {
  cppAckOf,
  cppAgentOf,
  cppHeartbeatOf,
  javaAgentOf,
  type VariedAgent,
} from "../../scripts/common/c2-examples.js";
import { provisionTable } from "../../scripts/local/provision.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { readWholeStream } from "../../scripts/test-support/stream-reader.js";
import { DynamoAgentRegistry } from "../adapters/dynamodb/agent-registry.js";
import { DynamoAssetCatalog } from "../adapters/dynamodb/asset-catalog.js";
import { DynamoClassCatalog } from "../adapters/dynamodb/class-catalog.js";
import { DynamoDebugBundles } from "../adapters/dynamodb/debug-bundles.js";
import { DynamoFleetRegistry } from "../adapters/dynamodb/fleet-registry.js";
import { DynamoFlowCatalog } from "../adapters/dynamodb/flow-catalog.js";
import { DynamoGroupStore } from "../adapters/dynamodb/group-store.js";
import { Keys } from "../adapters/dynamodb/keys.js";
import { DynamoManifestCatalog } from "../adapters/dynamodb/manifest-catalog.js";
import { DynamoOperationStore } from "../adapters/dynamodb/operation-store.js";
import { DynamoRolloutStore } from "../adapters/dynamodb/rollout-store.js";
import { DynamoTenantSettings } from "../adapters/dynamodb/tenant-settings.js";
import { DynamoUsage } from "../adapters/dynamodb/usage.js";
import { CacheKeys } from "../adapters/redis/cache-keys.js";
import { RedisFleetHotState } from "../adapters/redis/fleet-hot-state.js";
import { S3EventArchive } from "../adapters/s3/event-archive.js";
import { s3ObjectCalls } from "../adapters/s3/object-calls.js";
import type { Group } from "../core/groups/ports.js";
import { dayOf } from "../core/history/stored.js";
import type { JsonObject } from "../core/json.js";
import { newOperationId } from "../core/operations/ids.js";
import { makeOperationLifecycle } from "../core/operations/lifecycle.js";
import type { OperationRecord } from "../core/operations/model.js";
import { allPagesOf } from "../core/paging.js";
import type { Clock } from "../core/ports.js";
import { DEFAULT_ROLLOUT_PLAN, type RolloutPlan } from "../core/rollouts/model.js";
import { WEEKDAYS, type Weekday } from "../core/schedules/windows.js";
import { makeDynamoDbClient } from "../runtime/aws-clients/dynamodb.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { makeS3Client } from "../runtime/aws-clients/s3.js";
import { makeRedisClient } from "../runtime/redis-client.js";
import { sweeperConfig } from "../shared/config.js";
import { EnvNames } from "../shared/env-names.js";
import { eventValidator } from "../shared/event-validators.js";
import { composeSweeper } from "./composition.js";

const MINUTE = 60_000;
const HEARTBEAT = "/c2/api/heartbeat";
const ACKNOWLEDGE = "/c2/api/acknowledge";

let agentApi: AgentApiUnderTest;
let fleet: string;
let tenant: string;
let documents: DynamoDBDocumentClient;
let store: DynamoOperationStore;
let redis: ReturnType<typeof makeRedisClient>;

/**
 * A C++ agent's example heartbeat, full or light, in sweeper-cpp or `agentClass`, on its own flow or
 * `flowId`; or the heartbeat of `agent`, full or light.
 */
async function beat(
  agentId: string,
  options: { full?: boolean; agentClass?: string; flowId?: string; agent?: VariedAgent } = {},
) {
  const { agent, full } = options;
  const body = agent
    ? full
      ? agent.full()
      : agent.light()
    : cppHeartbeatOf(agentId, options.agentClass ?? "sweeper-cpp", full);
  if (options.flowId) (body.flowInfo as JsonObject).flowId = options.flowId;
  const response = await agentApi.post(HEARTBEAT, body, { certificate: fleet });
  expect(response.status).toBe(200);
  return (response.json().requestedOperations as { identifier: string }[]).map((item) => item.identifier);
}

/** The C++ agent's acknowledgement of the operation, FULLY_APPLIED; the agent API's status. */
async function acknowledge(agentId: string, operationId: string): Promise<number> {
  const response = await agentApi.post(ACKNOWLEDGE, cppAckOf(agentId, operationId, "FULLY_APPLIED"), {
    certificate: fleet,
  });
  return response.status;
}

/**
 * Queues an operation (a RESTART unless told) as the console does, the operation through the lifecycle,
 * then the agent's pending marker; its creation event is the console's to publish, and does not matter here.
 */
async function queue(
  agentId: string,
  kind: Pick<OperationRecord, "operation" | "operand" | "ackTimeoutMs"> = { operation: "RESTART" },
): Promise<string> {
  const lifecycle = makeOperationLifecycle({
    operations: store,
    clock: { now: () => Date.now() },
    ids: { newId: () => randomUUID() },
    settings: { ackTimeoutMs: 5 * MINUTE },
  });
  const now = Date.now();
  const record: OperationRecord = {
    tenant,
    agentId,
    operationId: newOperationId(now, { newId: () => randomUUID() }, agentId),
    ...kind,
    state: "queued",
    createdAt: now,
    createdBy: "sweeper-test",
  };
  await lifecycle.create([record]);
  await new RedisFleetHotState(redis).markOperationsPending(tenant, [agentId]);
  return record.operationId;
}

/** The sweeper as the schedule runs it, but on the clock given. */
async function withSweeperOn<T>(
  clock: Clock,
  use: (sweeper: ReturnType<typeof composeSweeper>) => Promise<T>,
): Promise<T> {
  const sweeper = composeSweeper(sweeperConfig(agentApi.env), clock);
  try {
    return await use(sweeper);
  } finally {
    await sweeper.close();
  }
}

/** The sweeper as the schedule runs it, but looking at operations and rollouts `aheadMs` from now. */
const withSweeperAhead = <T>(
  aheadMs: number,
  use: (sweeper: ReturnType<typeof composeSweeper>) => Promise<T>,
) => withSweeperOn({ now: () => Date.now() + aheadMs }, use);

const sweepAhead = (aheadMs: number) => withSweeperAhead(aheadMs, (sweeper) => sweeper.sweepTimeouts());

const operationEvents = async (operationId: string) =>
  (
    await readWholeStream(makeKinesisClient(agentApi.env), agentApi.env[EnvNames.streamName] as string)
  ).filter((event) => (event as { operationId?: string; type?: string }).operationId === operationId) as {
    type: string;
    from?: string;
    state: string;
    [field: string]: unknown;
  }[];

beforeAll(async () => {
  const backends = inject("beaconEnv");
  const tableName = `beacon-sweeper-${randomUUID().slice(0, 8)}`;
  await provisionTable(makeDynamoDbClient(backends), tableName);
  agentApi = await startAgentApi({ [EnvNames.tableName]: tableName });
  tenant = `sweep-${randomUUID().slice(0, 8)}`;
  fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  documents = DynamoDBDocumentClient.from(makeDynamoDbClient(agentApi.env));
  store = new DynamoOperationStore(documents, tableName);
  redis = makeRedisClient({ url: agentApi.env[EnvNames.redisUrl] as string, commandTimeoutMs: 1_000 });
  for (const agentId of ["cpp-1", "cpp-2"]) await beat(agentId, { full: true });
});

afterAll(async () => {
  redis?.disconnect();
  documents?.destroy();
  await agentApi?.close();
});

describe("the sweeper", () => {
  it("costs nothing on the heartbeat: delivery writes the due time in its one conditional update", async () => {
    const operationId = await queue("cpp-1");
    agentApi.dynamoDb.reset();
    expect(await beat("cpp-1")).toEqual([operationId]);
    // The update and its staged event in one transaction; the event cleared from the outbox once on the stream.
    expect(agentApi.dynamoDb.counts()).toEqual({
      "DynamoDB_20120810.Query": 1,
      "DynamoDB_20120810.TransactWriteItems": 1,
      "DynamoDB_20120810.BatchWriteItem": 1,
    });
    // Nothing is due yet: one query per shard of the due index, and nothing else.
    agentApi.dynamoDb.reset();
    expect(await sweepAhead(0)).toMatchObject({ timedOut: { queued: 0, delivered: 0 }, skipped: 0 });
    expect(agentApi.dynamoDb.counts()).toEqual({ "DynamoDB_20120810.Query": 16 });
  });

  it("puts on the stream, once, the operation events their writers staged and did not put", async () => {
    // Queued here through the lifecycle and never published: as if the console had died, or the stream was down.
    const operationId = await queue("cpp-1");
    expect(await operationEvents(operationId)).toEqual([]);
    // The relay leaves events younger than its grace to writers that may still be putting them.
    expect((await withSweeperAhead(0, (sweeper) => sweeper.relayStaged())).relayed).toBe(0);
    const outcome = await withSweeperAhead(3 * MINUTE, (sweeper) => sweeper.relayStaged());
    expect(outcome.relayed).toBeGreaterThanOrEqual(1);
    await withSweeperAhead(3 * MINUTE, (sweeper) => sweeper.relayStaged());
    expect(await operationEvents(operationId)).toEqual([
      expect.objectContaining({ type: "operation", operationId, state: "queued" }),
    ]);
    const cancelled = await store.get(tenant, "cpp-1", operationId);
    await makeOperationLifecycle({
      operations: store,
      clock: { now: () => Date.now() },
      ids: { newId: () => randomUUID() },
      settings: { ackTimeoutMs: 5 * MINUTE },
    }).cancel(cancelled as OperationRecord, "not needed");
  });

  it("times out a delivered operation nobody acknowledged, once, and a late acknowledgement changes nothing", async () => {
    const operationId = await queue("cpp-2");
    expect(await beat("cpp-2")).toEqual([operationId]);

    const outcome = await sweepAhead(6 * MINUTE);
    expect(outcome.timedOut.delivered).toBeGreaterThanOrEqual(1);
    const timedOut = await store.get(tenant, "cpp-2", operationId);
    expect(timedOut).toMatchObject({
      state: "timed_out",
      reason: "Not acknowledged within 300 s of delivery",
    });
    expect(timedOut?.dueAt).toBeUndefined();
    // Two sweepers overlapping: the second finds nothing left to do.
    expect(await sweepAhead(6 * MINUTE)).toMatchObject({ timedOut: { queued: 0, delivered: 0 } });

    expect(await acknowledge("cpp-2", operationId)).toBe(200);
    expect(await store.get(tenant, "cpp-2", operationId)).toEqual(timedOut);

    const events = await operationEvents(operationId);
    for (const event of events) {
      const validate = eventValidator(event);
      expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    }
    expect(
      events
        .filter((event) => event.type === "operation")
        .map((event) => `${event.from ?? "-"}→${event.state}`),
    ).toEqual(["queued→delivered", "delivered→timed_out"]);
    expect(events.filter((event) => event.type === "ack")).toMatchObject([{ matched: false }]);
  });

  it("never confirms a C++ STOP acknowledged FULLY_APPLIED while heartbeats show the component running: it times out", async () => {
    // Two agents of the C++ fixture's build, varied as real ones are: one binary, each a hash of its own.
    const agent = cppAgentOf("cpp-varied-1", "sweeper-cpp");
    const other = cppAgentOf("cpp-varied-2", "sweeper-cpp");
    const registry = new DynamoAgentRegistry(documents, agentApi.env[EnvNames.tableName] as string);
    const manifestOf = async (varied: VariedAgent) => {
      const response = await agentApi.post(HEARTBEAT, varied.full(), { certificate: fleet });
      expect(response.status).toBe(200);
      return (await registry.get(tenant, varied.agentId))?.manifest;
    };
    const [mine, theirs] = [await manifestOf(agent), await manifestOf(other)];
    expect(mine?.hash).not.toBe(theirs?.hash);
    expect(mine?.manifestId).toEqual(expect.stringMatching(/^[0-9a-f]{64}$/));
    expect(theirs?.manifestId).toBe(mine?.manifestId);

    // A STOP of the agent's own processor, which its manifest lists as an operand of STOP.
    const { agentId, light } = agent;
    const [processor] = (light().flowInfo as JsonObject).processorStatuses as JsonObject[];
    const operationId = await queue(agentId, { operation: "STOP", operand: processor?.id as string });
    const showing = async () => {
      const response = await agentApi.post(HEARTBEAT, light(), { certificate: fleet });
      expect(response.status).toBe(200);
      return (response.json().requestedOperations as { identifier: string }[]).map((item) => item.identifier);
    };
    expect(await showing()).toEqual([operationId]);
    expect(await acknowledge(agentId, operationId)).toBe(200);
    expect(await store.get(tenant, agentId, operationId)).toMatchObject({
      state: "awaiting_effect",
      ackState: "FULLY_APPLIED",
    });
    // The agent said it stopped the processor; its heartbeats say it still runs.
    expect(await showing()).toEqual([]);
    expect((await store.get(tenant, agentId, operationId))?.state).toBe("awaiting_effect");

    const outcome = await sweepAhead(6 * MINUTE);
    expect(outcome.timedOut.awaiting_effect).toBeGreaterThanOrEqual(1);
    const timedOut = await store.get(tenant, agentId, operationId);
    expect(timedOut).toMatchObject({
      state: "timed_out",
      reason: "Acknowledged FULLY_APPLIED, but no heartbeat showed the effect in time",
    });
    expect(timedOut?.confirmedBy).toBeUndefined();
    expect(
      (await operationEvents(operationId))
        .filter((event) => event.type === "operation")
        .map((event) => `${event.from ?? "-"}→${event.state}`),
    ).toEqual(["queued→delivered", "delivered→awaiting_effect", "awaiting_effect→timed_out"]);
  });

  it("times out a queued operation after 10 heartbeat intervals of its class, looked at first after one", async () => {
    const operationId = await queue("never-heartbeats");
    expect(await sweepAhead(MINUTE + 1_000)).toMatchObject({ postponed: 1 });
    expect((await store.get(tenant, "never-heartbeats", operationId))?.state).toBe("queued");
    expect(await sweepAhead(10 * MINUTE + 1_000)).toMatchObject({ timedOut: { queued: 1 } });
    expect(await store.get(tenant, "never-heartbeats", operationId)).toMatchObject({
      state: "timed_out",
      reason: "Not delivered within 10 heartbeat intervals of its agent's class (60 s each)",
    });
  });

  it("releases an operation held for its class's maintenance window at its opening, and the next heartbeat takes it", async () => {
    const agentId = "cpp-held";
    await beat(agentId, { full: true });
    // Created a minute before its window opened, which it did just now: nothing told the agent of it yet.
    const opening = Date.now() - 1;
    const now = opening - MINUTE;
    const operationId = newOperationId(now, { newId: () => randomUUID() }, agentId);
    await makeOperationLifecycle({
      operations: store,
      clock: { now: () => now },
      ids: { newId: () => randomUUID() },
      settings: { ackTimeoutMs: 5 * MINUTE },
    }).create([
      {
        tenant,
        agentId,
        operationId,
        operation: "RESTART",
        state: "queued",
        createdAt: now,
        createdBy: "sweeper-test",
        notBefore: opening,
      },
    ]);
    expect(await beat(agentId)).toEqual([]);
    expect(
      await withSweeperOn({ now: () => opening - 1 }, (sweeper) => sweeper.sweepTimeouts()),
    ).toMatchObject({
      released: 0,
    });
    expect(await withSweeperOn({ now: () => opening }, (sweeper) => sweeper.sweepTimeouts())).toMatchObject({
      released: 1,
    });
    expect(await store.get(tenant, agentId, operationId)).toMatchObject({
      state: "queued",
      dueAt: opening + 10 * MINUTE,
    });
    expect(await beat(agentId)).toEqual([operationId]);
  });

  it("holds a rollout while its class's maintenance windows are closed, and its next look once one is open sends the canary", async () => {
    const agentClass = "windowed-cpp";
    const tableName = agentApi.env[EnvNames.tableName] as string;
    for (const agentId of ["wc-1", "wc-2"]) await beat(agentId, { full: true, agentClass });
    const classes = new DynamoClassCatalog(documents, tableName);
    // Only on the weekday three days from now: closed now.
    const closedDay = WEEKDAYS[new Date(Date.now() + 3 * 24 * 60 * MINUTE).getUTCDay()] as Weekday;
    await classes.put(
      tenant,
      agentClass,
      { maintenanceWindows: [{ days: [closedDay], start: "00:00", durationMinutes: 60 }] },
      Date.now(),
    );
    const plan = { ...DEFAULT_ROLLOUT_PLAN, canary: { count: 1 } };
    const rollouts = new DynamoRolloutStore(documents, tableName);
    const { rollout } = await withSweeperAhead(0, (sweeper) =>
      sweeper.rollouts.start({
        tenant,
        className: agentClass,
        toFlow: "e6".repeat(32),
        plan,
        createdBy: "sweeper-test",
      }),
    );
    expect(rollout).toMatchObject({ state: "canary", batches: 0, waitingForWindow: expect.any(Number) });
    await withSweeperAhead(0, (sweeper) => sweeper.rollouts.advanceAll());
    expect(await rollouts.get(tenant, rollout.rolloutId)).toMatchObject({ batches: 0 });
    expect(await beat("wc-1", { agentClass })).toEqual([]);

    // The operator opens a window now: every day, all day.
    await classes.put(
      tenant,
      agentClass,
      { maintenanceWindows: [{ days: [...WEEKDAYS], start: "00:00", durationMinutes: 24 * 60 }] },
      Date.now(),
    );
    await withSweeperAhead(0, (sweeper) => sweeper.rollouts.advanceAll());
    const started = await rollouts.get(tenant, rollout.rolloutId);
    expect(started).toMatchObject({ state: "canary", batches: 1, counts: { selected: 1, updating: 1 } });
    expect(started).not.toHaveProperty("waitingForWindow");
    const [canary] = await rollouts.members(tenant, rollout.rolloutId, 0);
    expect(await beat(canary?.agentId as string, { agentClass })).toEqual([canary?.operationId]);
    // Ended here, so that the sweeper's runs in the tests after this one look at their own rollouts only.
    const { rollout: ended } = await withSweeperAhead(0, (sweeper) =>
      sweeper.rollouts.abort(tenant, rollout.rolloutId, "sweeper-test"),
    );
    expect(ended.state).toBe("aborted");
  });

  it("drives a rollout: once its canary has soaked, the next batch starts", async () => {
    const agentClass = "rollout-cpp";
    for (const agentId of ["ro-1", "ro-2", "ro-3"]) await beat(agentId, { full: true, agentClass });
    const toFlow = "d5".repeat(32);
    const plan: RolloutPlan = {
      canary: { count: 1 },
      batchSize: 2,
      batchIntervalSeconds: 10,
      soakSeconds: 60,
      failureThreshold: { count: 1 },
      onFailure: "pause",
    };
    const rollouts = new DynamoRolloutStore(documents, agentApi.env[EnvNames.tableName] as string);
    const { rollout } = await withSweeperAhead(0, (sweeper) =>
      sweeper.rollouts.start({ tenant, className: agentClass, toFlow, plan, createdBy: "sweeper-test" }),
    );
    expect(rollout).toMatchObject({ state: "canary", classSize: 3, batches: 1 });
    const [canary] = await rollouts.members(tenant, rollout.rolloutId, 0);
    expect(canary).toMatchObject({ agentId: "ro-1", state: "updating" });

    // The canary takes the update, applies it and reports the new flow.
    const operationId = canary?.operationId as string;
    expect(await beat("ro-1", { agentClass })).toEqual([operationId]);
    expect(await acknowledge("ro-1", operationId)).toBe(200);
    expect(await beat("ro-1", { agentClass, flowId: toFlow })).toEqual([]);

    // One run sees it soaking; a run past the soak window sees it healthy and starts the rolling batch.
    await withSweeperAhead(0, (sweeper) => sweeper.rollouts.advanceAll());
    const outcome = await withSweeperAhead((plan.soakSeconds + 1) * 1_000, (sweeper) =>
      sweeper.rollouts.advanceAll(),
    );
    expect(outcome).toMatchObject({ looked: 1, batchesStarted: 1, heldBack: 0, errors: [] });
    expect(await rollouts.get(tenant, rollout.rolloutId)).toMatchObject({
      state: "rolling",
      batches: 2,
      counts: { selected: 3, healthy: 1, updating: 2 },
    });
    const batch = await rollouts.members(tenant, rollout.rolloutId, 1);
    expect(batch.map((member) => member.agentId)).toEqual(["ro-2", "ro-3"]);
    // Queued with the agents' pending markers, and pointing at the agent API's flow download.
    const [next] = batch;
    expect(await beat("ro-2", { agentClass })).toEqual([next?.operationId]);
    expect((await store.get(tenant, "ro-2", next?.operationId as string))?.args).toEqual({
      location: `${agentApi.url}/c2/api/flows/${toFlow}/content`,
      flowId: toFlow,
      persist: "true",
    });
  });
});

/** The events of `type` about the tenant's agent on the stream. */
const agentEvents = async (agentId: string, type: string) =>
  (
    await readWholeStream(makeKinesisClient(agentApi.env), agentApi.env[EnvNames.streamName] as string)
  ).filter((event) => {
    const { type: eventType, tenant: eventTenant, agentId: eventAgent } = event as Record<string, unknown>;
    return eventType === type && eventTenant === tenant && eventAgent === agentId;
  }) as Record<string, unknown>[];

const lastSeenOf = async (agentId: string) =>
  Number(await redis.hget(CacheKeys.agent(tenant, agentId), "lastSeen"));
/** The offline sweep of the tenant as it runs at `at` (epoch ms). */
const sweepOfflineAt = (at: number) =>
  withSweeperOn({ now: () => at }, (sweeper) => sweeper.offline.sweepTenant(tenant));

/** A class of the tenant whose agents heartbeat every second: three seconds of silence make one offline. */
const classOfOneSecond = (agentClass: string) =>
  new DynamoClassCatalog(documents, agentApi.env[EnvNames.tableName] as string).put(
    tenant,
    agentClass,
    { heartbeatIntervalSeconds: 1 },
    Date.now(),
  );

describe("agents going offline and coming back", () => {
  const agentId = "cpp-silent";
  const agentClass = "sweeper-offline";
  const eventsOf = (type: string) => agentEvents(agentId, type);

  it("announces a silent agent offline once, and its next heartbeat's one stream put says it is online", async () => {
    await classOfOneSecond(agentClass);
    const agent = cppAgentOf(agentId, agentClass, "1 sec");
    await beat(agentId, { full: true, agent });
    await beat(agentId, { agent });
    const lastSeen = Date.now();

    const sweeper = composeSweeper(sweeperConfig(agentApi.env));
    let offline: Record<string, unknown> | undefined;
    try {
      await vi.waitFor(
        async () => {
          await sweeper.offline.sweepTenant(tenant);
          expect(await eventsOf("agent.offline")).toHaveLength(1);
        },
        { timeout: 60_000, interval: 500 },
      );
      [offline] = await eventsOf("agent.offline");
      expect(eventValidator(offline as { type: string })(offline)).toBe(true);
      expect(offline).toMatchObject({ agentClass, heartbeatPeriodMs: 1_000 });
      expect(offline?.lastSeen).toBeLessThanOrEqual(lastSeen);
      expect(Number(offline?.at) - Number(offline?.lastSeen)).toBeGreaterThan(3_000);

      await sweeper.offline.sweepTenant(tenant);
      expect(await eventsOf("agent.offline")).toHaveLength(1);
    } finally {
      await sweeper.close();
    }

    agentApi.kinesis.reset();
    await beat(agentId, { agent });
    expect(agentApi.kinesis.counts()).toEqual({ "Kinesis_20131202.PutRecords": 1 });
    const online = await eventsOf("agent.online");
    expect(online).toEqual([expect.objectContaining({ agentClass, lastSeen: offline?.lastSeen })]);
    expect(eventValidator(online[0] as { type: string })(online[0])).toBe(true);
    await beat(agentId, { agent });
    expect(await eventsOf("agent.online")).toHaveLength(1);
  });

  it("holds each agent to three of its own heartbeat periods, shorter or longer than its class's interval", async () => {
    const periodsClass = "sweeper-periods";
    await classOfOneSecond(periodsClass);
    const java = javaAgentOf("java-period", periodsClass, "1000");
    const cpp = cppAgentOf("cpp-period", periodsClass, "5 sec");
    for (const agent of [java, cpp]) {
      await beat(agent.agentId, { full: true, agent });
      await beat(agent.agentId, { agent });
    }
    const javaSeen = await lastSeenOf(java.agentId);
    const cppSeen = await lastSeenOf(cpp.agentId);
    const offlineOf = async () => ({
      java: await agentEvents(java.agentId, "agent.offline"),
      cpp: await agentEvents(cpp.agentId, "agent.offline"),
    });

    // Three seconds of silence make the Java agent offline; the C++ agent heartbeats every 5 s: not yet.
    await sweepOfflineAt(Math.max(javaSeen + 3_001, cppSeen + 3_001));
    const [javaOffline] = (await offlineOf()).java;
    expect(await offlineOf()).toEqual({
      java: [
        expect.objectContaining({ agentClass: periodsClass, lastSeen: javaSeen, heartbeatPeriodMs: 1_000 }),
      ],
      cpp: [],
    });
    expect(eventValidator(javaOffline as { type: string })(javaOffline)).toBe(true);
    await sweepOfflineAt(cppSeen + 15_000);
    expect((await offlineOf()).cpp).toEqual([]);
    await sweepOfflineAt(cppSeen + 15_001);
    await sweepOfflineAt(cppSeen + 60_000);
    expect(await offlineOf()).toEqual({
      java: [expect.objectContaining({ lastSeen: javaSeen })],
      cpp: [
        expect.objectContaining({ agentClass: periodsClass, lastSeen: cppSeen, heartbeatPeriodMs: 5_000 }),
      ],
    });

    for (const agent of [java, cpp]) {
      await beat(agent.agentId, { agent });
      await beat(agent.agentId, { agent });
    }
    expect(await agentEvents(java.agentId, "agent.online")).toEqual([
      expect.objectContaining({ lastSeen: javaSeen }),
    ]);
    expect(await agentEvents(cpp.agentId, "agent.online")).toEqual([
      expect.objectContaining({ lastSeen: cppSeen }),
    ]);
  });
});

describe("agents restarting for an operation Beacon sent them", () => {
  const ACK_TIMEOUT_MS = 2_000;
  /**
   * A RESTART delivered to a new agent of its own class, heartbeating every second: when the agent was last
   * seen, and its deadline.
   */
  async function restartDelivered(agentId: string) {
    const agentClass = `sweeper-${agentId}`;
    await classOfOneSecond(agentClass);
    const agent = cppAgentOf(agentId, agentClass, "1 sec");
    await beat(agentId, { full: true, agent });
    const operationId = await queue(agentId, { operation: "RESTART", ackTimeoutMs: ACK_TIMEOUT_MS });
    expect(await beat(agentId, { agent })).toEqual([operationId]);
    const deadline = (await store.get(tenant, agentId, operationId))?.timeoutAt as number;
    expect(await redis.hget(CacheKeys.restarts(tenant), agentId)).toBe(String(deadline));
    return { agent, lastSeen: await lastSeenOf(agentId), deadline };
  }

  it("announces a restart that never comes back once, three periods after its deadline, not before", async () => {
    const agentId = "cpp-restart-gone";
    const { lastSeen, deadline } = await restartDelivered(agentId);
    // Three periods of silence, with the restart still under way: the sweep goes past it, and says nothing.
    await sweepOfflineAt(lastSeen + 3_500);
    expect(await agentEvents(agentId, "agent.offline")).toEqual([]);
    await sweepOfflineAt(deadline + 3_000);
    expect(await agentEvents(agentId, "agent.offline")).toEqual([]);

    await sweepOfflineAt(deadline + 3_001);
    const offline = await agentEvents(agentId, "agent.offline");
    expect(offline).toEqual([expect.objectContaining({ lastSeen, heartbeatPeriodMs: 1_000 })]);
    expect(eventValidator(offline[0] as { type: string })(offline[0])).toBe(true);
    await sweepOfflineAt(deadline + 10_000);
    expect(await agentEvents(agentId, "agent.offline")).toHaveLength(1);
  });

  it("never announces an agent that comes back from its restart", async () => {
    const agentId = "cpp-restart-back";
    const { agent, lastSeen, deadline } = await restartDelivered(agentId);
    await sweepOfflineAt(lastSeen + 3_500);
    // Back from a restart that took its whole acknowledgement timeout.
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(deadline), { timeout: 10_000, interval: 50 });
    await beat(agentId, { agent });
    expect(await redis.hexists(CacheKeys.restarts(tenant), agentId)).toBe(0);
    const back = await lastSeenOf(agentId);
    expect(back).toBeGreaterThan(deadline);

    // The sweep as it runs three periods later, when the agent was due its look after the restart.
    await sweepOfflineAt(back + 3_000);
    expect(await agentEvents(agentId, "agent.offline")).toEqual([]);
  });
});

describe("agents silent longer than their class's clean-up age", () => {
  const DAY = 24 * 60 * MINUTE;
  const agentId = "cpp-forgotten";
  const agentClass = "sweeper-clean-up";
  const cleanUpAt = (at: number) =>
    withSweeperOn({ now: () => at }, (sweeper) => sweeper.cleanUp.sweep(Number.POSITIVE_INFINITY));

  it("are decommissioned once, announced, kept in the registry as such, and register again at their next heartbeat", async () => {
    const tableName = agentApi.env[EnvNames.tableName] as string;
    const registry = new DynamoAgentRegistry(documents, tableName);
    await new DynamoClassCatalog(documents, tableName).put(
      tenant,
      agentClass,
      { heartbeatIntervalSeconds: 1, cleanUpAfterDays: 2 },
      Date.now(),
    );
    const agent = cppAgentOf(agentId, agentClass, "1 sec");
    await beat(agentId, { full: true, agent });
    await beat(agentId, { agent });
    const lastSeen = await lastSeenOf(agentId);
    await sweepOfflineAt(lastSeen + 3_001);
    expect(await agentEvents(agentId, "agent.offline")).toHaveLength(1);

    expect(await cleanUpAt(lastSeen + 2 * DAY)).toMatchObject({ decommissioned: 0 });
    expect(await cleanUpAt(lastSeen + 2 * DAY + 1)).toMatchObject({ decommissioned: 1, cameBack: 0 });
    expect(await cleanUpAt(lastSeen + 3 * DAY)).toMatchObject({ decommissioned: 0 });
    const announced = await agentEvents(agentId, "agent.decommissioned");
    expect(announced).toEqual([
      expect.objectContaining({ agentClass, lastSeen, cleanUpAfterDays: 2, at: lastSeen + 2 * DAY + 1 }),
    ]);
    expect(eventValidator(announced[0] as { type: string })(announced[0])).toBe(true);

    // The entry stays, marked and out of every index; the cache forgot the agent; its certificate is not revoked.
    const { Item } = await documents.send(
      new GetCommand({ TableName: tableName, Key: Keys.agent(tenant, agentId) }),
    );
    expect(Item).toMatchObject({
      decommissionReason: "silent",
      decommissionedAt: lastSeen + 2 * DAY + 1,
      lastSeen,
    });
    expect(Object.keys(Item ?? {}).filter((name) => name.startsWith("gsi"))).toEqual([]);
    expect(await registry.get(tenant, agentId)).toBeUndefined();
    expect(await redis.exists(CacheKeys.agent(tenant, agentId))).toBe(0);

    await beat(agentId, { agent });
    const registeredAgain = await registry.get(tenant, agentId);
    expect(registeredAgain).toMatchObject({ agentClass });
    expect(registeredAgain?.firstSeen).toBeGreaterThan(lastSeen);
    expect(await agentEvents(agentId, "heartbeat")).toContainEqual(
      expect.objectContaining({ firstSight: true }),
    );
  });

  it("keeps an agent that came back before its age, and takes it out of the silent index", async () => {
    const backId = "cpp-back";
    const agent = cppAgentOf(backId, agentClass, "1 sec");
    await beat(backId, { full: true, agent });
    const lastSeen = await lastSeenOf(backId);
    await sweepOfflineAt(lastSeen + 3_001);
    await beat(backId, { agent });
    // The first test's agent, silent since it registered again, is due as well: only this one came back.
    expect(await cleanUpAt(lastSeen + 10 * DAY)).toMatchObject({ cameBack: 1 });
    expect(await cleanUpAt(lastSeen + 10 * DAY)).toMatchObject({ decommissioned: 0, cameBack: 0 });
    expect(
      await new DynamoAgentRegistry(documents, agentApi.env[EnvNames.tableName] as string).get(
        tenant,
        backId,
      ),
    ).toBeDefined();
    expect(await agentEvents(backId, "agent.decommissioned")).toEqual([]);
  });

  it("holds a class without its own age to the tenant's default", async () => {
    const tableName = agentApi.env[EnvNames.tableName] as string;
    const settings = new DynamoTenantSettings(documents, tableName);
    const defaultedId = "cpp-tenant-default";
    const defaultedClass = "sweeper-tenant-default";
    await new DynamoClassCatalog(documents, tableName).put(
      tenant,
      defaultedClass,
      { heartbeatIntervalSeconds: 1 },
      Date.now(),
    );
    const agent = cppAgentOf(defaultedId, defaultedClass, "1 sec");
    await beat(defaultedId, { full: true, agent });
    const lastSeen = await lastSeenOf(defaultedId);
    await sweepOfflineAt(lastSeen + 3_001);
    expect(await agentEvents(defaultedId, "agent.offline")).toHaveLength(1);

    // Without a default the class keeps its silent agents however long.
    await cleanUpAt(lastSeen + 100 * DAY);
    expect(await agentEvents(defaultedId, "agent.decommissioned")).toEqual([]);
    await settings.put(tenant, { cleanUpAfterDays: 1 }, Date.now());
    try {
      await cleanUpAt(lastSeen + DAY);
      expect(await agentEvents(defaultedId, "agent.decommissioned")).toEqual([]);
      await cleanUpAt(lastSeen + DAY + 1);
      expect(await agentEvents(defaultedId, "agent.decommissioned")).toEqual([
        expect.objectContaining({ agentClass: defaultedClass, lastSeen, cleanUpAfterDays: 1 }),
      ]);
      expect(await new DynamoAgentRegistry(documents, tableName).get(tenant, defaultedId)).toBeUndefined();
    } finally {
      await settings.put(tenant, { cleanUpAfterDays: null }, Date.now());
    }
  });
});

describe("groups' member counts", () => {
  const agentClass = "sweeper-groups";
  const countGroupsAhead = (aheadMs: number) =>
    withSweeperAhead(aheadMs, (sweeper) => sweeper.countGroups(Number.POSITIVE_INFINITY));

  it("are counted by a pass, an agent registering later by the next, and a changed group counted anew", async () => {
    const tableName = agentApi.env[EnvNames.tableName] as string;
    const groups = new DynamoGroupStore(documents, tableName);
    const registry = new DynamoFleetRegistry(documents, tableName);
    const created = Date.now();
    const group = (name: string, query: Group["query"], at = created): Group => ({
      tenant,
      name,
      query,
      createdAt: created,
      updatedAt: at,
    });
    for (const agentId of ["cpp-grouped-1", "cpp-grouped-2"]) await beat(agentId, { full: true, agentClass });
    await groups.create(group("grouped", { classes: [agentClass] }));
    await groups.create(group("whole-fleet", {}));

    // Every tenant with agents is counted (for its binaries), those of the other cases in this table too.
    const first = await countGroupsAhead(0);
    expect(first).toMatchObject({ groupsCounted: 2, more: false });
    expect(first.passesEnded).toBeGreaterThanOrEqual(1);
    expect(await groups.get(tenant, "grouped")).toMatchObject({ memberCount: 2 });
    expect((await groups.get(tenant, "grouped"))?.countedAt).toBeGreaterThanOrEqual(created);
    expect((await groups.get(tenant, "whole-fleet"))?.memberCount).toBe(
      await registry.countMatching(tenant, {}),
    );

    // The next pass is due five minutes after the last ended: an agent registering meanwhile joins then.
    await beat("cpp-grouped-3", { full: true, agentClass });
    expect(await countGroupsAhead(MINUTE)).toMatchObject({ passesEnded: 0, agentsRead: 0 });
    expect(await groups.get(tenant, "grouped")).toMatchObject({ memberCount: 2 });
    expect(await countGroupsAhead(6 * MINUTE)).toMatchObject({ passesEnded: first.passesEnded });
    expect(await groups.get(tenant, "grouped")).toMatchObject({ memberCount: 3 });

    // A changed group shows no count until a pass counted it as it is now.
    await groups.replace(group("grouped", { classes: [agentClass, "sweeper-cpp"] }, Date.now()));
    expect((await groups.get(tenant, "grouped"))?.memberCount).toBeUndefined();
    await countGroupsAhead(12 * MINUTE);
    expect((await groups.get(tenant, "grouped"))?.memberCount).toBe(
      await registry.countMatching(tenant, { agentClasses: [agentClass, "sweeper-cpp"] }),
    );
    expect((await groups.get(tenant, "grouped"))?.memberCount).toBeGreaterThan(3);
  });
});

describe("operations held for maintenance windows, when the windows change", () => {
  let consoleApi: ConsoleApiUnderTest;
  let token: string;

  beforeAll(async () => {
    consoleApi = await startConsoleApi(agentApi, {
      [EnvNames.tableName]: agentApi.env[EnvNames.tableName] as string,
    });
    token = await consoleApi.token({ tenant, role: "operator" });
  });

  afterAll(async () => {
    await consoleApi?.close();
  });

  const call = async (method: string, route: string, body?: Record<string, unknown>) => {
    const response = await consoleApi.request(method, `/api/v1${route}`, { token, body });
    expect(response.status, response.body).toBeLessThan(300);
    return response.json();
  };
  /** The class's one window, an hour on the day `daysAhead` from today at 00:00 UTC (the tenant's zone). */
  const windowOn = (daysAhead: number) => {
    const day = WEEKDAYS[(new Date().getUTCDay() + daysAhead) % 7] as Weekday;
    return [{ days: [day], start: "00:00", durationMinutes: 60 }];
  };
  const midnightIn = (daysAhead: number) => {
    const today = new Date();
    return Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + daysAhead);
  };

  // Last in the file: its sweeper runs days ahead would time out what the tests before it queued.
  it("follow them: one whose window moved later is not released at the old time, one whose window is open now at once", async () => {
    const agentId = "cpp-follows";
    const agentClass = "following-cpp";
    await beat(agentId, { full: true, agentClass });
    await call("PUT", `/classes/${agentClass}`, { maintenanceWindows: windowOn(3) });
    const created = await call("POST", "/operations", {
      agentId,
      operation: "DESCRIBE",
      operand: "MANIFEST",
      outsideWindow: "wait",
    });
    const [{ operationId }] = created.items as [{ operationId: string }];
    const opening = midnightIn(3);
    expect(created.items).toMatchObject([{ state: "queued", notBefore: new Date(opening).toISOString() }]);

    // The window moves a day later: at its old opening the sweeper releases nothing, and heartbeats get nothing.
    await call("PUT", `/classes/${agentClass}`, { maintenanceWindows: windowOn(4) });
    expect(await store.get(tenant, agentId, operationId)).toMatchObject({
      state: "queued",
      notBefore: midnightIn(4),
      dueAt: midnightIn(4),
    });
    await withSweeperOn({ now: () => opening }, (sweeper) => sweeper.sweepTimeouts());
    expect(await store.get(tenant, agentId, operationId)).toMatchObject({ dueAt: midnightIn(4) });
    expect(await beat(agentId)).toEqual([]);

    // A window open now: held until now, the sweeper's run releases it at once and the next heartbeat takes it.
    const changed = Date.now();
    await call("PUT", `/classes/${agentClass}`, {
      maintenanceWindows: [{ days: [...WEEKDAYS], start: "00:00", durationMinutes: 24 * 60 }],
    });
    const released = (await store.get(tenant, agentId, operationId))?.notBefore as number;
    expect(released).toBeGreaterThanOrEqual(changed);
    expect(released).toBeLessThanOrEqual(Date.now());
    expect(await withSweeperOn({ now: () => released }, (sweeper) => sweeper.sweepTimeouts())).toMatchObject({
      released: 1,
    });
    expect(await beat(agentId)).toEqual([operationId]);
    expect(await call("GET", `/operations/${operationId}`)).toMatchObject({
      state: "delivered",
      notBefore: new Date(released).toISOString(),
    });
  });
});

describe("the daily snapshot of what a tenant stores", () => {
  it("lists each store once a day, keeps the figures in the usage table and GET /usage answers them", async () => {
    const tableName = agentApi.env[EnvNames.tableName] as string;
    const s3 = makeS3Client(agentApi.env);
    const now = Date.now();
    // A tenant of its own, whose stores hold only what this case puts there.
    const tenant = `stored-${randomUUID().slice(0, 8)}`;
    try {
      // A manifest from an agent's full heartbeat, a flow version, an asset's record, a debug bundle's
      // record and an archive object.
      const certificate = await agentApi.issueCertificate({ tenant, fleet: true });
      const response = await agentApi.post(HEARTBEAT, cppHeartbeatOf("cpp-stored", "stored", true), {
        certificate,
      });
      expect(response.status).toBe(200);
      await new DynamoClassCatalog(documents, tableName).put(tenant, "stored", {}, now);
      const flowBytes = new TextEncoder().encode(JSON.stringify({ flow: randomUUID() }));
      const flow = await new DynamoFlowCatalog(documents, tableName).add(
        tenant,
        {
          hash: createHash("sha256").update(flowBytes).digest("hex"),
          format: "minifi-json",
          contentType: "application/json",
          sizeBytes: flowBytes.length,
          processorTypes: [],
          controllerServiceTypes: [],
          className: "stored",
          createdAt: now,
          createdBy: "sweeper-test",
        },
        flowBytes,
      );
      await new DynamoAssetCatalog(documents, tableName).add(tenant, {
        assetId: randomUUID(),
        name: "model.bin",
        sizeBytes: 5_000_000,
        contentType: "application/octet-stream",
        createdAt: now,
        createdBy: "sweeper-test",
      });
      await new DynamoDebugBundles(documents, tableName).create({
        tenant,
        operationId: randomUUID(),
        agentId: "cpp-1",
        uploadId: randomUUID(),
        bytes: 70_000,
        storedAt: now,
        expiresAt: now + 7 * 24 * 60 * MINUTE,
      });
      const archiveBucket = agentApi.env[EnvNames.archiveBucket] as string;
      // Yesterday's: a day ended, which the snapshot keeps the figure of.
      const yesterday = new Date(now - 24 * 60 * MINUTE).toISOString().slice(0, 10);
      const archived = `events/tenant=${tenant}/day=${yesterday}/hour=23/shardId-000000000000-1-2.json.gz`;
      await new S3EventArchive(s3ObjectCalls(s3, archiveBucket)).put(
        archived,
        `${JSON.stringify({ eventId: "e-1" })}\n`,
      );
      const archiveBytes = (await s3.send(new HeadObjectCommand({ Bucket: archiveBucket, Key: archived })))
        .ContentLength;
      const manifests = await allPagesOf((page) =>
        new DynamoManifestCatalog(documents, tableName).list(tenant, page),
      );
      expect(manifests).toHaveLength(1);

      const clock = { now: () => now };
      expect(await withSweeperOn(clock, (sweeper) => sweeper.takeStoredSnapshot(tenant))).toBe("taken");
      const usage = new DynamoUsage(documents, tableName);
      const day = dayOf(now);
      const [snapshot] = await usage.readStored(tenant, day, day + 1);
      expect(snapshot).toEqual({
        tenant,
        day,
        takenAt: now,
        stored: {
          manifests: {
            count: manifests.length,
            bytes: manifests.reduce((sum, manifest) => sum + manifest.gzipBytes, 0),
          },
          flowVersions: { count: 1, bytes: flow.record.gzipBytes },
          assets: { count: 1, bytes: 5_000_000 },
          debugBundles: { count: 1, bytes: 70_000 },
          archive: { bytes: archiveBytes },
        },
        archiveDays: { [yesterday]: archiveBytes },
      });
      // Remembered for the days its agents are gone from the cache, beside a tenant remembered alone.
      expect(await usage.rememberedTenants()).toContain(tenant);
      const storesOnly = `stores-only-${randomUUID()}`;
      await usage.rememberTenant(storesOnly, now);
      expect(await withSweeperOn(clock, (sweeper) => sweeper.snapshotTenants())).toEqual(
        expect.arrayContaining([tenant, storesOnly]),
      );

      // A second pass the same day, by this container or a new one, keeps the day's snapshot as it was.
      await new DynamoAssetCatalog(documents, tableName).add(tenant, {
        assetId: randomUUID(),
        name: "later.bin",
        sizeBytes: 1,
        contentType: "application/octet-stream",
        createdAt: now,
        createdBy: "sweeper-test",
      });
      const later = { now: () => now + 60 * MINUTE };
      expect(await withSweeperOn(later, (sweeper) => sweeper.takeStoredSnapshot(tenant))).toBe("already");
      expect(await usage.readStored(tenant, day, day + 1)).toEqual([snapshot]);

      const consoleApi = await startConsoleApi(agentApi, { [EnvNames.tableName]: tableName });
      try {
        const token = await consoleApi.token({ tenant, role: "admin" });
        const response = await consoleApi.request("GET", "/api/v1/usage", { token });
        expect(response.status, response.body).toBe(200);
        expect(response.json().storedDays).toEqual([
          {
            day: new Date(day * 24 * 60 * MINUTE).toISOString(),
            takenAt: new Date(now).toISOString(),
            ...snapshot?.stored,
          },
        ]);
      } finally {
        await consoleApi.close();
      }
    } finally {
      s3.destroy();
    }
  });
});
