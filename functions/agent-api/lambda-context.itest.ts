/**
 * The agent API's log records carry the Lambda context of the invocation that wrote them, as on AWS: its request
 * id, the function's name and whether it was a cold start. The local runtime makes every request an invocation
 * of its own, also when many run at once in its one process.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";

let api: AgentApiUnderTest;
let fleet: string;

beforeAll(async () => {
  // INFO: every registration writes a record.
  api = await startAgentApi({ POWERTOOLS_LOG_LEVEL: "INFO" });
  fleet = await api.issueCertificate({ tenant: `t-${randomUUID().slice(0, 8)}`, fleet: true });
});

afterAll(async () => {
  await api?.close();
});

const lightHeartbeat = JSON.parse(
  readFileSync(new URL("../../schemas/c2/examples/java-2.3.0/heartbeat-light.json", import.meta.url), "utf8"),
);

async function register(agentId: string): Promise<void> {
  const heartbeat = structuredClone(lightHeartbeat);
  heartbeat.agentId = agentId;
  heartbeat.agentInfo.identifier = agentId;
  const response = await api.post("/c2/api/heartbeat", heartbeat, { certificate: fleet });
  expect(response.status, response.body).toBe(200);
}

/** The "agent registered" records of the function log, by agent. */
function registrations(): Map<unknown, Record<string, unknown>[]> {
  const byAgent = new Map<unknown, Record<string, unknown>[]>();
  for (const line of readFileSync(api.functionLog, "utf8").trim().split("\n")) {
    const record = JSON.parse(line) as Record<string, unknown>;
    if (record.message !== "agent registered") continue;
    byAgent.set(record.agentId, [...(byAgent.get(record.agentId) ?? []), record]);
  }
  return byAgent;
}

const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

it("logs the invocation's request id and function, and the cold start on the first invocation only", async () => {
  const first = `cold-${randomUUID()}`;
  await register(first);
  const concurrent = Array.from({ length: 8 }, () => `warm-${randomUUID()}`);
  await Promise.all(concurrent.map(register));

  const byAgent = registrations();
  expect([...byAgent.keys()].sort()).toEqual([first, ...concurrent].sort());
  expect(byAgent.get(first)).toEqual([
    expect.objectContaining({
      function_name: "agent-api",
      function_request_id: expect.stringMatching(REQUEST_ID),
      cold_start: true,
    }),
  ]);
  for (const agentId of concurrent)
    expect(byAgent.get(agentId)).toEqual([
      expect.objectContaining({
        function_name: "agent-api",
        function_request_id: expect.stringMatching(REQUEST_ID),
        cold_start: false,
      }),
    ]);
  // Requests handled at the same time kept their own ids: none took another's.
  const requestIds = [...byAgent.values()].flat().map((record) => record.function_request_id);
  expect(new Set(requestIds).size).toBe(1 + concurrent.length);
});
