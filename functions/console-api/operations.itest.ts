/**
 * Operations end to end on the local stack: queued through the console, delivered in heartbeat replies
 * through the real mutual-TLS gateway, closed by acknowledgements, every state change on the stream;
 * and what a heartbeat costs with and without something pending.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cppAckOf, cppHeartbeatOf } from "../../scripts/c2-examples.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeat as javaHeartbeat } from "../../scripts/test-support/console-seed.js";
import { type PrivateRedis, startPrivateRedis } from "../../scripts/test-support/private-redis.js";
import { readWholeStream } from "../../scripts/test-support/stream-reader.js";
import type { JsonObject } from "../core/c2/json.js";
import { makeKinesisClient } from "../shared/aws-clients.js";
import { eventValidator } from "../shared/schemas.js";

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

async function beat(agentId: string) {
  const response = await agentApi.post(HEARTBEAT, cppHeartbeat(agentId), { certificate: fleet });
  expect(response.status).toBe(200);
  return response.json().requestedOperations as { identifier: string; operation: string; operand?: string }[];
}

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
    expect(agentApi.dynamoDb.counts()).toEqual({
      "DynamoDB_20120810.Query": 1,
      "DynamoDB_20120810.UpdateItem": 2,
    });
    expect(agentApi.kinesis.counts()).toEqual({ "Kinesis_20131202.PutRecords": 1 });
    // The sighting script, and the one that clears the marker now that nothing is queued.
    expect(pending.roundTrips).toEqual(["evalsha", "evalsha"]);

    const steady = await countRoundTrips(async () => {
      for (let index = 0; index < 10; index++) expect(await beat("cpp-1")).toEqual([]);
    });
    expect(agentApi.dynamoDb.counts()).toEqual({});
    expect(agentApi.kinesis.counts()).toEqual({ "Kinesis_20131202.PutRecords": 10 });
    expect(steady.roundTrips).toEqual(Array.from({ length: 10 }, () => "evalsha"));
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
      ["-→queued", "delivered→done", "delivered→failed", "queued→cancelled", "queued→delivered"].sort(),
    );
    const listed = await consoleApi.request("GET", "/api/v1/operations?limit=100", { token: operator });
    const created = operations.filter((event) => event.state === "queued").length;
    expect((listed.json().items as unknown[]).length).toBe(created);
  });
});
