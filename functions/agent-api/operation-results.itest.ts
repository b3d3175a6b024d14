/**
 * What a C++ agent's DESCRIBE answers, end to end on the local stack: the acknowledgement through the real
 * mutual-TLS gateway, its answer redacted and kept in the bucket (S3Proxy) before the operation closes, read
 * back through the console by operators and admins of its tenant only, and never put on the stream.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CppDescribed, cppDescribeAckOf, cppHeartbeatOf } from "../../scripts/common/c2-examples.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { readWholeStream } from "../../scripts/test-support/stream-reader.js";
import type { JsonObject } from "../core/json.js";
import { REDACTED } from "../core/operations/redaction.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { EnvNames } from "../shared/env-names.js";

const HEARTBEAT = "/c2/api/heartbeat";
const ACKNOWLEDGE = "/c2/api/acknowledge";
const OPERANDS: CppDescribed[] = ["CONFIGURATION", "METRICS", "JSTACK", "CORECOMPONENTSTATE"];

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let fleet: string;
let operator: string;
/** Each operand's operation, acknowledged with its answer, and the acknowledgement the agent sent. */
const answered = new Map<CppDescribed, { operationId: string; ack: JsonObject }>();

/** Queues a DESCRIBE of `operand` for the agent through the console and delivers it in a heartbeat reply. */
async function deliverDescribe(agentId: string, operand: string): Promise<string> {
  const queued = await consoleApi.request("POST", "/api/v1/operations", {
    token: operator,
    body: { agentId, operation: "DESCRIBE", operand },
  });
  expect(queued.status, queued.body).toBe(201);
  const operationId = (queued.json().items as { operationId: string }[])[0]?.operationId as string;
  const reply = await agentApi.post(HEARTBEAT, cppHeartbeatOf(agentId, "results-cpp"), {
    certificate: fleet,
  });
  const requested = reply.json().requestedOperations as { identifier: string }[];
  expect(requested.map((operation) => operation.identifier)).toContain(operationId);
  return operationId;
}

const readResult = (operationId: string, token: string) =>
  consoleApi.request("GET", `/api/v1/operations/${operationId}/result`, { token });

const operationOf = async (operationId: string) =>
  (await consoleApi.request("GET", `/api/v1/operations/${operationId}`, { token: operator })).json();

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  tenant = `results-${randomUUID().slice(0, 8)}`;
  fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  operator = await consoleApi.token({ tenant, role: "operator" });
  const full = await agentApi.post(HEARTBEAT, cppHeartbeatOf("cpp-1", "results-cpp", true), {
    certificate: fleet,
  });
  expect(full.status).toBe(200);
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

describe("a C++ agent's DESCRIBE answer", () => {
  it.each(OPERANDS)(
    "%s is kept before its operation closes, at one put more than any acknowledgement",
    async (operand) => {
      const operationId = await deliverDescribe("cpp-1", operand);
      const ack = cppDescribeAckOf("cpp-1", operationId, operand);
      agentApi.dynamoDb.reset();
      agentApi.kinesis.reset();
      agentApi.s3.reset();
      expect((await agentApi.post(ACKNOWLEDGE, ack, { certificate: fleet })).status).toBe(200);
      const bucket = agentApi.env[EnvNames.assetBucket] as string;
      expect(agentApi.s3.counts()).toEqual({
        [`PUT /${bucket}/operation-results/${tenant}/${encodeURIComponent(operationId)}.json?x-id=PutObject`]: 1,
      });
      // As for every acknowledgement that closes its operation: its read, its update with the event staged, the
      // event's clearance from the outbox once it is on the stream.
      expect(agentApi.dynamoDb.counts()).toEqual({
        "DynamoDB_20120810.GetItem": 1,
        "DynamoDB_20120810.TransactWriteItems": 1,
        "DynamoDB_20120810.BatchWriteItem": 1,
      });
      expect(agentApi.kinesis.counts()).toEqual({ "Kinesis_20131202.PutRecords": 1 });
      answered.set(operand, { operationId, ack });

      const operation = await operationOf(operationId);
      expect(operation).toMatchObject({ state: "done", result: { bytes: expect.any(Number) } });
      const result = await readResult(operationId, operator);
      expect(result.status, result.body).toBe(200);
      expect(result.headers.get("content-type")).toBe("application/json");
      expect(Buffer.byteLength(result.body)).toBe((operation.result as { bytes: number }).bytes);
      const { agentInfo: _agentInfo, ...asSent } = ack;
      const kept = result.json();
      if (operand === "CONFIGURATION" || operand === "CORECOMPONENTSTATE") expect(kept).not.toEqual(asSent);
      else expect(kept).toEqual(asSent);
    },
  );

  it("comes back with what looks secret redacted and the rest as the agent sent it", async () => {
    const configuration = answered.get("CONFIGURATION");
    const options = (await readResult(configuration?.operationId as string, operator)).json()
      .configuration_options as JsonObject;
    const sent = configuration?.ack.configuration_options as JsonObject;
    expect(options).toEqual({
      ...sent,
      "nifi.c2.rest.api.token": REDACTED,
      "nifi.security.client.private.key": REDACTED,
    });
    const state = answered.get("CORECOMPONENTSTATE");
    const admin = await consoleApi.token({ tenant, role: "admin" });
    const components = (await readResult(state?.operationId as string, admin)).json().corecomponentstate;
    expect(components).toMatchObject({
      "4fe2d51d-076a-49b0-88de-5cf5adf52b8f": { "oauth.access.token": REDACTED, "last.run": "1732480000" },
    });
  });

  it("is read by operators and admins of its tenant only: 403 for a viewer, 404 for another tenant and where there is none", async () => {
    const { operationId } = answered.get("CONFIGURATION") ?? { operationId: "" };
    const viewer = await consoleApi.token({ tenant, role: "viewer" });
    const refused = await readResult(operationId, viewer);
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({ error: { code: "forbidden" } });
    const stranger = await consoleApi.token({ tenant: `other-${tenant}`, role: "admin" });
    const elsewhere = await readResult(operationId, stranger);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).not.toContain("configuration_options");
    // Who read what agents disclosed, or tried to, is in the tenant's audit trail, without what they read.
    const admin = await consoleApi.token({ tenant, role: "admin" });
    const trail = await consoleApi.request("GET", "/api/v1/audit?operation=getOperationResult", {
      token: admin,
    });
    const reads = (
      trail.json().items as { actor: { role: string }; status: number; target: object }[]
    ).filter((record) => JSON.stringify(record.target).includes(operationId));
    expect(reads.map((record) => [record.actor.role, record.status])).toEqual(
      expect.arrayContaining([
        ["viewer", 403],
        ["operator", 200],
      ]),
    );
    expect(JSON.stringify(reads)).not.toContain("configuration_options");
    const queued = await consoleApi.request("POST", "/api/v1/operations", {
      token: operator,
      body: { agentId: "cpp-1", operation: "DESCRIBE", operand: "METRICS" },
    });
    const pending = (queued.json().items as { operationId: string }[])[0]?.operationId as string;
    expect((await readResult(pending, operator)).status).toBe(404);
  });

  it("never reaches the stream, whose acknowledgement and operation events carry only ids and states", async () => {
    const events = (
      await readWholeStream(makeKinesisClient(agentApi.env), agentApi.env.BEACON_STREAM_NAME as string)
    ).filter((event) => (event as { tenant?: string }).tenant === tenant) as JsonObject[];
    for (const { operationId } of answered.values()) {
      expect(events).toContainEqual(expect.objectContaining({ type: "ack", operationId, matched: true }));
      expect(events).toContainEqual(
        expect.objectContaining({ type: "operation", operationId, state: "done" }),
      );
    }
    const streamed = JSON.stringify(events);
    for (const { ack } of answered.values())
      for (const [key, value] of Object.entries(ack)) {
        if (["operation", "operationId", "operationState", "identifier", "agentInfo"].includes(key)) continue;
        expect(streamed).not.toContain(key);
        for (const name of Object.keys(value as JsonObject)) expect(streamed).not.toContain(name);
      }
    expect(streamed).not.toContain("eyJhbGciOiJIUzI1NiJ9");
  });
});
