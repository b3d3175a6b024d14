/**
 * Operations end to end on the local stack: queued through the console, delivered in heartbeat replies
 * through the real mutual-TLS gateway, closed by acknowledgements found by their operation id alone, or
 * by heartbeats that show their effect, every state change on the stream; and what a heartbeat and an
 * acknowledgement cost.
 */
import { randomUUID } from "node:crypto";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cppAckOf, cppHeartbeatOf, example } from "../../scripts/common/c2-examples.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeat as javaHeartbeat } from "../../scripts/test-support/console-seed.js";
import { type PrivateRedis, startPrivateRedis } from "../../scripts/test-support/private-redis.js";
import { readWholeStream } from "../../scripts/test-support/stream-reader.js";
import { DynamoOperationStore } from "../adapters/dynamodb/operation-store.js";
import { KinesisEventSink } from "../adapters/kinesis/event-sink.js";
import { RedisFleetHotState } from "../adapters/redis/fleet-hot-state.js";
import type { JsonObject } from "../core/json.js";
import { newOperationId } from "../core/operations/ids.js";
import { makeOperationLifecycle } from "../core/operations/lifecycle.js";
import type { OperationRecord } from "../core/operations/model.js";
import { makeDynamoDbClient } from "../runtime/aws-clients/dynamodb.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { makeRedisClient } from "../runtime/redis-client.js";
import { eventValidator } from "../shared/event-validators.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let redis: PrivateRedis;
let tenant: string;
let fleet: string;
let operator: string;
const agentClass = "ops-cpp";
const javaClass = "ops-java";

const HEARTBEAT = "/c2/api/heartbeat";
const ACKNOWLEDGE = "/c2/api/acknowledge";

type Operation = { operationId: string; state: string; [field: string]: unknown };

const cppHeartbeat = (agentId: string, full = false): JsonObject => cppHeartbeatOf(agentId, agentClass, full);

/** The C++ example heartbeat, showing its processor's run status and its flow as given. */
async function beat(agentId: string, shows: { processor?: string; flowId?: string } = {}) {
  const body = cppHeartbeat(agentId);
  const flowInfo = body.flowInfo as JsonObject;
  if (shows.processor) flowInfo.processorStatuses = [{ id: PROCESSOR, runStatus: shows.processor }];
  if (shows.flowId) flowInfo.flowId = shows.flowId;
  const response = await agentApi.post(HEARTBEAT, body, { certificate: fleet });
  expect(response.status).toBe(200);
  return response.json().requestedOperations as { identifier: string; operation: string; operand?: string }[];
}

/** The example flow's processor, which the C++ manifest lists as an operand of START and STOP. */
const PROCESSOR = "4fe2d51d-076a-49b0-88de-5cf5adf52b8f";

async function create(body: JsonObject) {
  return consoleApi.request("POST", "/api/v1/operations", { token: operator, body });
}

async function queue(body: JsonObject): Promise<Operation[]> {
  const response = await create(body);
  expect(response.status, response.body).toBe(201);
  return response.json().items as Operation[];
}

const operationOf = async (operationId: string): Promise<Operation> =>
  (
    await consoleApi.request("GET", `/api/v1/operations/${operationId}`, { token: operator })
  ).json() as Operation;

beforeAll(async () => {
  redis = await startPrivateRedis();
  const redisUrl = { BEACON_REDIS_URL: redis.url };
  agentApi = await startAgentApi(redisUrl);
  consoleApi = await startConsoleApi(agentApi, redisUrl);
  tenant = `ops-${randomUUID().slice(0, 8)}`;
  fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  operator = await consoleApi.token({ tenant, role: "operator" });
  // C++ agents with their full manifest (operations in lower case), and a Java agent that lists only DESCRIBE.
  for (const agentId of ["cpp-1", "cpp-2", "cpp-3"]) {
    const response = await agentApi.post(HEARTBEAT, cppHeartbeat(agentId, true), { certificate: fleet });
    expect(response.status).toBe(200);
  }
  expect(await javaHeartbeat(agentApi, fleet, "java-1", javaClass, `${tenant}-java-manifest`)).toBe(200);
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
  await redis?.stop();
});

describe("creation", () => {
  it("refuses a pair the agent's manifest does not list with 409 and the reason, creating nothing", async () => {
    const refused = await create({ agentId: "java-1", operation: "RESTART" });
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({
      error: { code: "operation_not_supported", message: expect.stringContaining("java-1") },
    });
    const listed = await consoleApi.request("GET", "/api/v1/operations?agentId=java-1", { token: operator });
    expect(listed.json().items).toEqual([]);
    // C++ agents start and stop components by id, and list no START FLOW.
    const startFlow = await create({ agentId: "cpp-1", operation: "START", operand: "FLOW" });
    expect(startFlow.status).toBe(409);
    const unknown = await create({ agentId: "nobody", operation: "RESTART" });
    expect(unknown.status).toBe(404);
    const noArgs = await create({ agentId: "cpp-1", operation: "UPDATE", operand: "PROPERTIES" });
    expect(noArgs.status).toBe(400);
  });

  it("refuses what only C++ takes to a Java agent whose manifest lists it, with 409 naming the agent and why, creating nothing", async () => {
    // A MiNiFi Java 2.3.0 agent whose manifest (as a buggy or future build might) lists DESCRIBE METRICS.
    const agentId = "java-lists-metrics";
    const hash = `${tenant}-${agentId}-manifest`;
    const body = example("java-2.3.0/heartbeat-light.json");
    Object.assign(body.agentInfo as JsonObject, {
      identifier: agentId,
      agentClass: javaClass,
      agentManifestHash: hash,
    });
    const asked = await agentApi.post(HEARTBEAT, body, { certificate: fleet });
    const [describe] = asked.json().requestedOperations as { identifier: string }[];
    const ack = example("java-2.3.0/ack-describe-manifest.json");
    ack.operationId = describe?.identifier;
    const ackInfo = ack.agentInfo as JsonObject;
    Object.assign(ackInfo, {
      identifier: agentId,
      agentManifestHash: hash,
      agentManifest: {
        ...(ackInfo.agentManifest as JsonObject),
        // A build of its own, so that the example's binary is still new to the tests below.
        buildInfo: { ...((ackInfo.agentManifest as JsonObject).buildInfo as JsonObject), revision: hash },
        supportedOperations: [
          { type: "DESCRIBE", properties: { MANIFEST: {}, METRICS: {} } },
          { type: "START", properties: { FLOW: {}, PROCESSOR: {} } },
        ],
      },
    });
    expect((await agentApi.post(ACKNOWLEDGE, ack, { certificate: fleet })).status).toBe(200);

    const metrics = await create({ agentId, operation: "DESCRIBE", operand: "METRICS" });
    expect(metrics.status).toBe(409);
    expect(metrics.json()).toMatchObject({
      error: {
        code: "operation_not_supported",
        message: `The agent cannot take the operation: ${agentId} (DESCRIBE METRICS: only MiNiFi C++ takes DESCRIBE METRICS: MiNiFi Java drops the whole heartbeat reply over it (it runs minifi-java 2.3.0))`,
      },
    });
    const processor = await create({
      agentId,
      operation: "START",
      operand: "PROCESSOR",
      args: { processorId: "p-1" },
    });
    expect(processor.status).toBe(409);
    expect(processor.json()).toMatchObject({
      error: {
        message: expect.stringContaining(
          `${agentId} (START PROCESSOR: MiNiFi Java starts and stops a processor from 2.7 on`,
        ),
      },
    });
    const listed = await consoleApi.request("GET", `/api/v1/operations?agentId=${agentId}`, {
      token: operator,
    });
    expect(listed.json().items).toEqual([]);
    expect((await agentApi.post(HEARTBEAT, body, { certificate: fleet })).json()).toEqual({
      requestedOperations: [],
    });
  });

  it("sends STOP c2 and CLEAR REPOSITORIES only with confirm: true", async () => {
    for (const kind of [
      { operation: "STOP", operand: "c2" },
      { operation: "CLEAR", operand: "REPOSITORIES" },
    ]) {
      const unconfirmed = await create({ agentId: "cpp-3", ...kind });
      expect(unconfirmed.status).toBe(400);
      expect(unconfirmed.json()).toMatchObject({ error: { code: "confirmation_required" } });
    }
    const listed = await consoleApi.request("GET", "/api/v1/operations?agentId=cpp-3", { token: operator });
    expect(listed.json().items).toEqual([]);
    const [clear] = await queue({
      agentId: "cpp-3",
      operation: "CLEAR",
      operand: "REPOSITORIES",
      confirm: true,
    });
    expect(await beat("cpp-3")).toEqual([
      { identifier: clear?.operationId, operation: "CLEAR", operand: "REPOSITORIES" },
    ]);
    await agentApi.post(ACKNOWLEDGE, cppAckOf("cpp-3", clear?.operationId as string, "FULLY_APPLIED"), {
      certificate: fleet,
    });
    expect((await operationOf(clear?.operationId as string)).state).toBe("done");
  });

  it("matches C++'s lower-case operations case-insensitively and replies upper-case", async () => {
    const [clear] = await queue({
      agentId: "cpp-1",
      operation: "CLEAR",
      operand: "CONNECTION",
      args: { connection: "8368e3c3-9c1f-4b1c-8f4b-3c5b7a9c2d11" },
    });
    expect(clear).toMatchObject({ state: "queued", agentId: "cpp-1", createdBy: `${tenant}-operator` });
    expect(await beat("cpp-1")).toEqual([
      {
        identifier: clear?.operationId,
        operation: "CLEAR",
        operand: "CONNECTION",
        args: { connection: "8368e3c3-9c1f-4b1c-8f4b-3c5b7a9c2d11" },
      },
    ]);
    const delivered = await operationOf(clear?.operationId as string);
    expect(delivered).toMatchObject({ state: "delivered", deliveredAt: expect.any(String) });
    expect(Date.parse(delivered.timeoutAt as string) - Date.parse(delivered.deliveredAt as string)).toBe(
      300_000,
    );
    await agentApi.post(ACKNOWLEDGE, cppAckOf("cpp-1", clear?.operationId as string, "FULLY_APPLIED"), {
      certificate: fleet,
    });
    expect(await operationOf(clear?.operationId as string)).toMatchObject({
      state: "done",
      ackState: "FULLY_APPLIED",
    });
  });

  it("sends args as strings, a number or boolean as its string, and C++ UPDATE PROPERTIES' object form as it is", async () => {
    const [update] = await queue({
      agentId: "cpp-2",
      operation: "UPDATE",
      operand: "PROPERTIES",
      args: {
        "nifi.c2.agent.heartbeat.period": 30000,
        "nifi.c2.rest.gzip": true,
        "nifi.log.level": { value: "DEBUG", persist: true },
      },
    });
    expect(await beat("cpp-2")).toEqual([
      {
        identifier: update?.operationId,
        operation: "UPDATE",
        operand: "PROPERTIES",
        args: {
          "nifi.c2.agent.heartbeat.period": "30000",
          "nifi.c2.rest.gzip": "true",
          "nifi.log.level": { value: "DEBUG", persist: true },
        },
      },
    ]);
    await agentApi.post(ACKNOWLEDGE, cppAckOf("cpp-2", update?.operationId as string, "FULLY_APPLIED"), {
      certificate: fleet,
    });
    expect((await operationOf(update?.operationId as string)).state).toBe("done");
  });

  it("queues one operation per agent a selector picks", async () => {
    const created = await queue({ selector: { class: agentClass, q: "cpp-" }, operation: "RESTART" });
    expect(created.map((operation) => operation.agentId).sort()).toEqual(["cpp-1", "cpp-2", "cpp-3"]);
    for (const agentId of ["cpp-1", "cpp-2", "cpp-3"])
      expect((await beat(agentId)).map((operation) => operation.operation)).toEqual(["RESTART"]);
    const none = await create({ selector: { class: "no-such-class" }, operation: "RESTART" });
    expect(none.status).toBe(400);
  });
});

describe("acknowledgements", () => {
  it("map PARTIALLY_APPLIED to done and NOT_APPLIED to failed; duplicate, late and unknown ones change nothing", async () => {
    const [partial] = await queue({
      agentId: "cpp-2",
      operation: "UPDATE",
      operand: "PROPERTIES",
      args: { "nifi.log.level": "DEBUG" },
    });
    const [failing] = await queue({ agentId: "cpp-2", operation: "RESTART" });
    await beat("cpp-2");
    const ack = (
      operationId: string,
      state: string,
      extra: { details?: string; failureCause?: string } = {},
    ) => agentApi.post(ACKNOWLEDGE, cppAckOf("cpp-2", operationId, state, extra), { certificate: fleet });

    expect(
      (await ack(partial?.operationId as string, "PARTIALLY_APPLIED", { details: "one of two" })).status,
    ).toBe(200);
    expect(
      (await ack(failing?.operationId as string, "NOT_APPLIED", { details: "no", failureCause: "busy" }))
        .status,
    ).toBe(200);
    expect(await operationOf(partial?.operationId as string)).toMatchObject({
      state: "done",
      details: "one of two",
    });
    const failed = await operationOf(failing?.operationId as string);
    expect(failed).toMatchObject({ state: "failed", details: "no", failureCause: "busy" });

    expect((await ack(failing?.operationId as string, "FULLY_APPLIED")).status).toBe(200);
    expect((await ack("op-0000000000000-unknown", "FULLY_APPLIED")).status).toBe(200);
    const [cancelled] = await queue({ agentId: "cpp-2", operation: "RESTART" });
    const cancel = await consoleApi.request("POST", `/api/v1/operations/${cancelled?.operationId}/cancel`, {
      token: operator,
    });
    expect(cancel.json()).toMatchObject({ state: "cancelled", reason: `Cancelled by ${tenant}-operator` });
    expect((await ack(cancelled?.operationId as string, "FULLY_APPLIED")).status).toBe(200);
    const again = await consoleApi.request("POST", `/api/v1/operations/${cancelled?.operationId}/cancel`, {
      token: operator,
    });
    expect(again.status).toBe(409);
    expect(again.json()).toMatchObject({ error: { code: "operation_not_queued" } });

    expect(await operationOf(failing?.operationId as string)).toEqual(failed);
    expect((await operationOf(cancelled?.operationId as string)).state).toBe("cancelled");
    expect(await beat("cpp-2")).toEqual([]);
  });

  it("mark PAUSE done on delivery, and list by state", async () => {
    const [pause] = await queue({ agentId: "cpp-3", operation: "PAUSE" });
    expect(await beat("cpp-3")).toEqual([{ identifier: pause?.operationId, operation: "PAUSE" }]);
    expect((await operationOf(pause?.operationId as string)).state).toBe("done");
    const done = await consoleApi.request("GET", "/api/v1/operations?state=done&agentId=cpp-3", {
      token: operator,
    });
    expect((done.json().items as Operation[]).map((operation) => operation.operationId)).toContain(
      pause?.operationId,
    );
    const queued = await consoleApi.request("GET", "/api/v1/operations?state=queued", { token: operator });
    expect(queued.json().items).toEqual([]);
  });
});

describe("the heartbeat's cost", () => {
  /** What the heartbeats in `work` cost: the proxies count DynamoDB and Kinesis, MONITOR counts Redis. */
  function countRoundTrips<T>(work: () => Promise<T>) {
    agentApi.dynamoDb.reset();
    agentApi.kinesis.reset();
    return redis.countRoundTrips(work);
  }

  it("with something pending: one query, a conditional move per operation, one stream put, then the marker cleared", async () => {
    await beat("cpp-1");
    const [stop, start] = [
      ...(await queue({
        agentId: "cpp-1",
        operation: "CLEAR",
        operand: "CONNECTION",
        args: { connection: "c-1" },
      })),
      ...(await queue({ agentId: "cpp-1", operation: "RESTART" })),
    ];
    const pending = await countRoundTrips(() => beat("cpp-1"));
    expect(pending.result.map((operation) => operation.identifier)).toEqual([
      stop?.operationId,
      start?.operationId,
    ]);
    // Each move with its event staged in one transaction; the events cleared from the outbox in one batch.
    expect(agentApi.dynamoDb.counts()).toEqual({
      "DynamoDB_20120810.Query": 1,
      "DynamoDB_20120810.TransactWriteItems": 2,
      "DynamoDB_20120810.BatchWriteItem": 1,
    });
    expect(agentApi.kinesis.counts()).toEqual({ "Kinesis_20131202.PutRecords": 1 });
    // The sighting script, the one that clears the marker now that nothing is queued, and the RESTART's
    // restart remembered, so that the agent's silence while it restarts is not announced as an outage.
    expect(pending.roundTrips).toEqual(["evalsha", "evalsha", "hset"]);

    const steady = await countRoundTrips(async () => {
      for (let index = 0; index < 10; index++) expect(await beat("cpp-1")).toEqual([]);
    });
    expect(agentApi.dynamoDb.counts()).toEqual({});
    expect(agentApi.kinesis.counts()).toEqual({ "Kinesis_20131202.PutRecords": 10 });
    expect(steady.roundTrips).toEqual(Array.from({ length: 10 }, () => "evalsha"));
  });
});

/** What one request costs: DynamoDB and Kinesis requests (the proxies count them) and Redis round trips. */
async function costOf<T>(work: () => Promise<T>) {
  agentApi.dynamoDb.reset();
  agentApi.kinesis.reset();
  const { result, roundTrips } = await redis.countRoundTrips(work);
  return { result, dynamoDb: agentApi.dynamoDb.counts(), kinesis: agentApi.kinesis.counts(), roundTrips };
}

/**
 * Queues an operation the console does not create (a C++ component's START or STOP, an UPDATE CONFIGURATION
 * naming a flow id of the test's own) as the console queues one: the record through the lifecycle on the
 * real table, its event on the real stream, then the agent's pending marker in the real cache.
 */
async function seed(agentId: string, kind: Pick<OperationRecord, "operation" | "operand" | "args">) {
  const store = new DynamoOperationStore(
    DynamoDBDocumentClient.from(makeDynamoDbClient(agentApi.env)),
    agentApi.env.BEACON_TABLE_NAME as string,
  );
  const ids = { newId: () => randomUUID() };
  const lifecycle = makeOperationLifecycle({
    operations: store,
    clock: { now: () => Date.now() },
    ids,
    settings: { ackTimeoutMs: 300_000 },
  });
  const now = Date.now();
  const operationId = newOperationId(now, ids, agentId);
  const created = await lifecycle.create([
    // With the agent's class, as the console queues one.
    {
      tenant,
      agentId,
      agentClass,
      operationId,
      ...kind,
      state: "queued",
      createdAt: now,
      createdBy: "operations-test",
    },
  ]);
  await new KinesisEventSink(
    makeKinesisClient(agentApi.env),
    agentApi.env.BEACON_STREAM_NAME as string,
  ).publish(created.events);
  const client = makeRedisClient({ url: redis.url, commandTimeoutMs: 1_000 });
  try {
    await new RedisFleetHotState(client).markOperationsPending(tenant, [agentId]);
  } finally {
    client.disconnect();
  }
  return operationId;
}

describe("acknowledgements that find their operation", () => {
  it("are matched by the operation id alone under a fleet certificate, at a bounded cost", async () => {
    const [clear] = await queue({
      agentId: "cpp-3",
      operation: "CLEAR",
      operand: "CONNECTION",
      args: { connection: "c-9" },
    });
    const operationId = clear?.operationId as string;
    expect(operationId).toMatch(/~cpp-3$/);
    await beat("cpp-3");
    // As the Java library acknowledges: operation id and state, no agent.
    const anonymous = { operationId, operationState: { state: "FULLY_APPLIED" } };
    const matched = await costOf(() => agentApi.post(ACKNOWLEDGE, anonymous, { certificate: fleet }));
    expect(matched.result.status).toBe(200);
    expect(await operationOf(operationId)).toMatchObject({
      state: "done",
      ackState: "FULLY_APPLIED",
      confirmedBy: "ack",
    });
    // One consistent read of the operation, its conditional update with the event staged in one transaction,
    // one put, the event cleared from the outbox; the revocation check in the cache, and the agent out of the
    // attention index of failed operations (one script, its class taken from the operation).
    expect(matched.dynamoDb).toEqual({
      "DynamoDB_20120810.GetItem": 1,
      "DynamoDB_20120810.TransactWriteItems": 1,
      "DynamoDB_20120810.BatchWriteItem": 1,
    });
    expect(matched.kinesis).toEqual({ "Kinesis_20131202.PutRecords": 1 });
    expect(matched.roundTrips).toEqual(["hmget", "evalsha"]);

    const duplicate = await costOf(() => agentApi.post(ACKNOWLEDGE, anonymous, { certificate: fleet }));
    expect(duplicate.result.status).toBe(200);
    expect(duplicate.dynamoDb).toEqual({ "DynamoDB_20120810.GetItem": 1 });
    const unknownOfAgent = { ...anonymous, operationId: `op-0000000000000-nothing~cpp-3` };
    const unknown = await costOf(() => agentApi.post(ACKNOWLEDGE, unknownOfAgent, { certificate: fleet }));
    expect(unknown.result.status).toBe(200);
    expect(unknown.dynamoDb).toEqual({ "DynamoDB_20120810.GetItem": 1 });
    // An id that names no agent, from a fleet certificate and an ack that name none either: nothing to read.
    const nameless = { ...anonymous, operationId: "op-0000000000000-nothing" };
    const none = await costOf(() => agentApi.post(ACKNOWLEDGE, nameless, { certificate: fleet }));
    expect(none.result.status).toBe(200);
    expect(none.dynamoDb).toEqual({});
    expect(none.kinesis).toEqual({ "Kinesis_20131202.PutRecords": 1 });
  });

  it("put an agent whose operation failed among those needing attention, and a later one carried out takes it out", async () => {
    const attentionFailed = async () =>
      (
        (
          await consoleApi.request("GET", "/api/v1/agents?attention=operationFailed", { token: operator })
        ).json() as { items: { agentId: string }[] }
      ).items.map((item) => item.agentId);
    const acknowledged = async (state: string) => {
      const [restart] = await queue({
        agentId: "cpp-4",
        operation: "CLEAR",
        operand: "CONNECTION",
        args: { connection: "c-1" },
      });
      await beat("cpp-4");
      const ack = { operationId: restart?.operationId as string, operationState: { state } };
      return costOf(() => agentApi.post(ACKNOWLEDGE, ack, { certificate: fleet }));
    };
    await agentApi.post(HEARTBEAT, cppHeartbeat("cpp-4", true), { certificate: fleet });
    const failed = await acknowledged("NOT_APPLIED");
    expect(failed.result.status).toBe(200);
    // The revocation check and the index of failed operations, one script; the registry is not read for it.
    expect(failed.roundTrips).toEqual(["hmget", "evalsha"]);
    // As before the index: the operation read, the agent's open ones (what waits on it is cancelled), its move.
    expect(failed.dynamoDb).toEqual({
      "DynamoDB_20120810.GetItem": 1,
      "DynamoDB_20120810.Query": 1,
      "DynamoDB_20120810.TransactWriteItems": 1,
      "DynamoDB_20120810.BatchWriteItem": 1,
    });
    expect(await attentionFailed()).toContain("cpp-4");
    await acknowledged("FULLY_APPLIED");
    expect(await attentionFailed()).not.toContain("cpp-4");
  });

  it("find Beacon's own DESCRIBE MANIFEST by its id alone too, and store the manifest it brings", async () => {
    const agentId = "java-anonymous";
    const body = example("java-2.3.0/heartbeat-light.json");
    const agentInfo = body.agentInfo as JsonObject;
    agentInfo.identifier = agentId;
    agentInfo.agentManifestHash = `${tenant}-anonymous-manifest`;
    const asked = await agentApi.post(HEARTBEAT, body, { certificate: fleet });
    const [describe] = asked.json().requestedOperations as { identifier: string }[];
    expect(describe?.identifier).toMatch(new RegExp(`^describe-.+~${agentId}$`));
    const ack = example("java-2.3.0/ack-describe-manifest.json");
    ack.operationId = describe?.identifier;
    ack.agentInfo = {
      ...(ack.agentInfo as JsonObject),
      identifier: undefined,
      agentManifestHash: agentInfo.agentManifestHash,
    };
    const stored = await costOf(() => agentApi.post(ACKNOWLEDGE, ack, { certificate: fleet }));
    expect(stored.result.status).toBe(200);
    // The agent's registry entry (one query of its partition), the binary's content looked up then written
    // once, the DESCRIBE closed with the agent's manifest; in the cache the revocation check, the binary
    // looked up and remembered as stored, the agent's manifest with its heartbeat period (one script) and the
    // DESCRIBE's end.
    expect(stored.dynamoDb).toEqual({
      "DynamoDB_20120810.Query": 1,
      "DynamoDB_20120810.GetItem": 1,
      "DynamoDB_20120810.PutItem": 1,
      "DynamoDB_20120810.UpdateItem": 1,
    });
    expect(stored.roundTrips).toEqual(["hmget", "sismember", "sadd", "evalsha", "hdel"]);
    expect((await agentApi.post(HEARTBEAT, body, { certificate: fleet })).json()).toEqual({
      requestedOperations: [],
    });
  });

  it("are refused with 403, recording nothing, when the certificate or the ack names another agent", async () => {
    const [restart] = await queue({ agentId: "cpp-3", operation: "RESTART" });
    const operationId = restart?.operationId as string;
    await beat("cpp-3");
    const otherAgent = await agentApi.issueCertificate({ tenant, agentId: "cpp-2" });
    const refused = await costOf(async () => [
      await agentApi.post(ACKNOWLEDGE, cppAckOf("cpp-3", operationId, "FULLY_APPLIED"), {
        certificate: otherAgent,
      }),
      await agentApi.post(ACKNOWLEDGE, cppAckOf("cpp-2", operationId, "FULLY_APPLIED"), {
        certificate: fleet,
      }),
    ]);
    for (const response of refused.result) {
      expect(response.status).toBe(403);
      expect(response.json()).toMatchObject({ error: { code: "identity_mismatch" } });
    }
    expect(refused.dynamoDb).toEqual({});
    expect(refused.kinesis).toEqual({});
    expect((await operationOf(operationId)).state).toBe("delivered");
    // The operation's own agent certificate is welcome.
    const own = await agentApi.issueCertificate({ tenant, agentId: "cpp-3" });
    const accepted = await agentApi.post(ACKNOWLEDGE, cppAckOf("cpp-3", operationId, "FULLY_APPLIED"), {
      certificate: own,
    });
    expect(accepted.status).toBe(200);
    expect((await operationOf(operationId)).state).toBe("done");
  });
});

describe("done means the effect is seen", () => {
  it("holds a C++ STOP acknowledged FULLY_APPLIED until a heartbeat shows the processor stopped", async () => {
    await beat("cpp-1");
    const operationId = await seed("cpp-1", { operation: "STOP", operand: PROCESSOR.toUpperCase() });
    expect((await beat("cpp-1")).map((operation) => operation.identifier)).toEqual([operationId]);
    const acknowledged = await costOf(() =>
      agentApi.post(ACKNOWLEDGE, cppAckOf("cpp-1", operationId, "FULLY_APPLIED"), { certificate: fleet }),
    );
    expect(acknowledged.result.status).toBe(200);
    // The revocation check, the marker that has the agent's next heartbeats look for the effect, before the
    // state change and after it (a heartbeat in between clears the first), and the attention index of failed
    // operations, which an operation the agent applied takes it out of (one script).
    expect(acknowledged.roundTrips).toEqual(["hmget", "incr", "incr", "evalsha"]);
    expect(acknowledged.dynamoDb).toEqual({
      "DynamoDB_20120810.GetItem": 1,
      "DynamoDB_20120810.TransactWriteItems": 1,
      "DynamoDB_20120810.BatchWriteItem": 1,
    });
    expect(await operationOf(operationId)).toMatchObject({
      state: "awaiting_effect",
      ackState: "FULLY_APPLIED",
    });

    // The agent said it stopped it; its heartbeat says it still runs. Looking costs one query.
    const claimed = await costOf(() => beat("cpp-1", { processor: "RUNNING" }));
    expect(claimed.dynamoDb).toEqual({ "DynamoDB_20120810.Query": 1 });
    expect((await operationOf(operationId)).state).toBe("awaiting_effect");

    const shown = await costOf(() => beat("cpp-1", { processor: "STOPPED" }));
    expect(shown.dynamoDb).toEqual({
      "DynamoDB_20120810.Query": 1,
      "DynamoDB_20120810.TransactWriteItems": 1,
      "DynamoDB_20120810.BatchWriteItem": 1,
    });
    expect(await operationOf(operationId)).toMatchObject({ state: "done", confirmedBy: "heartbeat" });
    // Nothing awaits any more: the steady heartbeat is back to no DynamoDB request.
    const steady = await costOf(() => beat("cpp-1", { processor: "STOPPED" }));
    expect(steady.dynamoDb).toEqual({});
    expect(steady.roundTrips).toEqual(["evalsha"]);
  });

  it("closes an UPDATE CONFIGURATION whose acknowledgement was lost once a heartbeat reports its flow", async () => {
    const flowId = `flow-${randomUUID()}`;
    const operationId = await seed("cpp-2", {
      operation: "UPDATE",
      operand: "CONFIGURATION",
      args: { location: `${agentApi.url}/c2/api/flows/${flowId}/content`, flowId },
    });
    await beat("cpp-2");
    expect((await operationOf(operationId)).state).toBe("delivered");
    // The ack never comes. The heartbeat that reports the new flow reads the agent's operations once and
    // closes this one (its event staged with it, then cleared), besides the registry's checkpoint that every
    // flow change costs.
    const reported = await costOf(() => beat("cpp-2", { flowId }));
    expect(reported.dynamoDb).toEqual({
      "DynamoDB_20120810.Query": 1,
      "DynamoDB_20120810.TransactWriteItems": 1,
      "DynamoDB_20120810.UpdateItem": 1,
      "DynamoDB_20120810.BatchWriteItem": 1,
    });
    const closed = await operationOf(operationId);
    expect(closed).toMatchObject({ state: "done", confirmedBy: "heartbeat" });
    expect(closed.ackState).toBeUndefined();
    const steady = await costOf(() => beat("cpp-2", { flowId }));
    expect(steady.dynamoDb).toEqual({});
  });

  it("shows in GET /agents/{id} what the heartbeats report of the agent's effects", async () => {
    await beat("cpp-1", { processor: "Stopped" });
    const agent = await consoleApi.request("GET", "/api/v1/agents/cpp-1", { token: operator });
    expect(agent.status, agent.body).toBe(200);
    expect(agent.json()).toMatchObject({
      runStatus: "RUNNING",
      processors: [{ id: PROCESSOR, runStatus: "STOPPED" }],
      // The C++ agent reports "null" while it holds no synchronised resource.
      resourceHash: null,
      system: {
        cpuUtilization: expect.any(Number),
        cpuLoadAverage: expect.any(Number),
        memoryUsage: expect.any(Number),
      },
      statusSummary: { backPressuredQueues: 0 },
      queues: [expect.objectContaining({ size: 4, dataSizeMax: 1048576, backPressure: false })],
    });
  });
});

describe("a class's acknowledgement timeout", () => {
  it("applies to operations created through the console too", async () => {
    const agentClass = "ops-patient";
    const response = await agentApi.post(HEARTBEAT, cppHeartbeatOf("cpp-slow", agentClass, true), {
      certificate: fleet,
    });
    expect(response.status).toBe(200);
    const admin = await consoleApi.token({ tenant, role: "admin" });
    const put = await consoleApi.request("PUT", `/api/v1/classes/${agentClass}`, {
      token: admin,
      body: { ackTimeoutSeconds: 45 },
    });
    expect(put.status, put.body).toBe(200);
    const [restart] = await queue({ agentId: "cpp-slow", operation: "RESTART" });
    await agentApi.post(HEARTBEAT, cppHeartbeatOf("cpp-slow", agentClass), { certificate: fleet });
    const delivered = await operationOf(restart?.operationId as string);
    expect(Date.parse(delivered.timeoutAt as string) - Date.parse(delivered.deliveredAt as string)).toBe(
      45_000,
    );
  });
});

describe("the stream", () => {
  it("carries every state change of this file's operations, each valid against its schema", async () => {
    const events = (
      await readWholeStream(makeKinesisClient(agentApi.env), agentApi.env.BEACON_STREAM_NAME as string)
    ).filter((event) => (event as { tenant?: string }).tenant === tenant) as {
      type: string;
      [field: string]: unknown;
    }[];
    for (const event of events) {
      const validate = eventValidator(event);
      expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    }
    const operations = events.filter((event) => event.type === "operation");
    const transitions = new Set(operations.map((event) => `${event.from ?? "-"}→${event.state}`));
    expect([...transitions].sort()).toEqual(
      [
        "-→queued",
        "delivered→done",
        "delivered→failed",
        "queued→cancelled",
        "queued→delivered",
        "delivered→awaiting_effect",
        "awaiting_effect→done",
      ].sort(),
    );
    const listed = await consoleApi.request("GET", "/api/v1/operations?limit=100", { token: operator });
    const created = operations.filter((event) => event.state === "queued").length;
    expect((listed.json().items as unknown[]).length).toBe(created);
  });
});
