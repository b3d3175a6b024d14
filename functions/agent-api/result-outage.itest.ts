/**
 * Agents send an acknowledgement once: a DESCRIBE's answer that the bucket does not take must not cost the
 * acknowledgement. The agent API here puts answers into a bucket that does not exist, so every put fails as in
 * an S3 outage: the acknowledgement is still answered 200, the operation closes with its result marked lost,
 * and OperationResultsLost counts it (the CDK app alarms on it).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cppDescribeAckOf, cppHeartbeatOf } from "../../scripts/common/c2-examples.js";
import { metricTotals } from "../../scripts/local/function-metrics.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { EnvNames } from "../shared/env-names.js";
import { MetricNames } from "../shared/observability.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;

beforeAll(async () => {
  agentApi = await startAgentApi({ [EnvNames.assetBucket]: `beacon-missing-${randomUUID().slice(0, 8)}` });
  consoleApi = await startConsoleApi(agentApi);
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

it("accepts the acknowledgement and closes the operation, its result lost and counted", async () => {
  const from = Date.now();
  const tenant = `lost-${randomUUID().slice(0, 8)}`;
  const fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  const operator = await consoleApi.token({ tenant, role: "operator" });
  const heartbeat = (full: boolean) =>
    agentApi.post("/c2/api/heartbeat", cppHeartbeatOf("cpp-1", "lost-cpp", full), { certificate: fleet });
  expect((await heartbeat(true)).status).toBe(200);
  const queued = await consoleApi.request("POST", "/api/v1/operations", {
    token: operator,
    body: { agentId: "cpp-1", operation: "DESCRIBE", operand: "CONFIGURATION" },
  });
  expect(queued.status, queued.body).toBe(201);
  const operationId = (queued.json().items as { operationId: string }[])[0]?.operationId as string;
  const requested = (await heartbeat(false)).json().requestedOperations as { identifier: string }[];
  expect(requested.map((operation) => operation.identifier)).toEqual([operationId]);

  const ack = cppDescribeAckOf("cpp-1", operationId, "CONFIGURATION");
  const answered = await agentApi.post("/c2/api/acknowledge", ack, { certificate: fleet });
  expect(answered.status, answered.body).toBe(200);

  const operation = await consoleApi.request("GET", `/api/v1/operations/${operationId}`, { token: operator });
  expect(operation.json()).toMatchObject({ state: "done", ackState: "FULLY_APPLIED", resultLost: true });
  expect(operation.json()).not.toHaveProperty("result");
  const result = await consoleApi.request("GET", `/api/v1/operations/${operationId}/result`, {
    token: operator,
  });
  expect(result.status).toBe(404);
  expect(result.json()).toMatchObject({ error: { code: "not_found" } });
  const totals = await metricTotals(agentApi.functionLog, [MetricNames.operationResultsLost], {
    from,
    to: Date.now(),
  });
  expect(totals).toEqual({ [MetricNames.operationResultsLost]: 1 });
});
