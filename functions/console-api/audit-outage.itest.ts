/**
 * A console change whose audit record cannot be written stays made and answered as it was: DynamoDB, behind a
 * proxy here, fails every write to the audit partition as an unavailable table would. The SDK tries the write
 * three times; then the handler logs the record whole, to be restored from the log, and counts AuditWriteFailed.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { type CountingProxy, startCountingProxy } from "../../scripts/local/counting-proxy.js";
import { loggedRecords } from "../../scripts/local/function-logs.js";
import { metricTotals } from "../../scripts/local/function-metrics.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { AwsEndpointEnvNames } from "../shared/env-names.js";
import { MetricNames } from "../shared/observability.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let dynamoDb: CountingProxy;
let auditWrites = 0;

beforeAll(async () => {
  agentApi = await startAgentApi();
  dynamoDb = await startCountingProxy(inject("beaconEnv")[AwsEndpointEnvNames.dynamodb] as string, {
    fault: (operation, body) => {
      if (operation !== "DynamoDB_20120810.PutItem" || !body.includes('#AUDIT"')) return undefined;
      auditWrites++;
      return {
        status: 500,
        body: {
          __type: "com.amazonaws.dynamodb.v20120810#InternalServerError",
          message: "Internal server error",
        },
      };
    },
  });
  consoleApi = await startConsoleApi(agentApi, { [AwsEndpointEnvNames.dynamodb]: dynamoDb.url });
});

afterAll(async () => {
  await consoleApi?.close();
  await dynamoDb?.close();
  await agentApi?.close();
});

const logged = (message: string) => loggedRecords(consoleApi.functionLog, message);

it("answers a change made as made, and logs and counts the audit record it could not write", async () => {
  const from = Date.now();
  const tenant = `outage-${randomUUID().slice(0, 8)}`;
  const operator = await consoleApi.token({ tenant, role: "operator", subject: "bob" });
  const changed = await consoleApi.request("PUT", "/api/v1/classes/pumps", {
    token: operator,
    body: { description: "Pumps" },
  });
  expect(changed.status, changed.body).toBe(201);
  const requestId = changed.headers.get("apigw-requestid");
  const read = await consoleApi.request("GET", "/api/v1/classes/pumps", { token: operator });
  expect(read.json()).toMatchObject({ name: "pumps", description: "Pumps" });

  expect(auditWrites).toBe(3);
  const [failure] = logged("audit record not written").filter(
    (record) => (record.auditRecord as { requestId?: string }).requestId === requestId,
  );
  expect(failure?.auditRecord).toMatchObject({
    tenant,
    actor: { subject: "bob", role: "operator" },
    operationId: "putClass",
    target: { className: "pumps" },
    status: 201,
    summary: { description: "Pumps" },
  });
  expect(
    await metricTotals(consoleApi.functionLog, [MetricNames.auditWriteFailed], { from, to: Date.now() }),
  ).toEqual({ [MetricNames.auditWriteFailed]: 1 });
  const admin = await consoleApi.token({ tenant, role: "admin" });
  const trail = await consoleApi.request("GET", "/api/v1/audit", { token: admin });
  expect(trail.json()).toEqual({ items: [] });
});
