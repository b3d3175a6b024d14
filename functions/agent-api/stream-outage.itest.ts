/**
 * Agents send an acknowledgement at most once (Java logs a failed one and drops it, C++ does not queue it
 * again). So when the stream cannot take its events, an ack whose change is saved is still answered 200,
 * and its events are counted (EventsLost, StreamFailures) and logged whole, to be put on the stream again.
 * The agent API here writes to a stream that does not exist: every put fails as in an outage.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { example } from "../../scripts/c2-examples.js";
import { loggedRecords } from "../../scripts/local/function-logs.js";
import { metricTotals } from "../../scripts/local/function-metrics.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import type { JsonObject } from "../core/c2/json.js";
import { EnvNames } from "../shared/env-names.js";
import { MetricNames } from "../shared/observability.js";

let api: AgentApiUnderTest;
let fleet: string;
const agentId = "java-stream-outage";
const manifestHash = randomBytes(64).toString("hex");

beforeAll(async () => {
  api = await startAgentApi({ [EnvNames.streamName]: `beacon-missing-${randomUUID().slice(0, 8)}` });
  fleet = await api.issueCertificate({ tenant: `t-${randomUUID().slice(0, 8)}`, fleet: true });
});

afterAll(async () => {
  await api?.close();
});

async function heartbeat() {
  const body = example("java-2.3.0/heartbeat-light.json");
  const agentInfo = body.agentInfo as JsonObject;
  agentInfo.identifier = agentId;
  agentInfo.agentManifestHash = manifestHash;
  body.agentId = agentId;
  const response = await api.post("/c2/api/heartbeat", body, { certificate: fleet });
  expect(response.status, response.body).toBe(200);
  return response.json().requestedOperations as { identifier: string; operation: string }[];
}

const logged = (message: string) => loggedRecords(api.functionLog, message);

it("answers an acknowledgement 200 once its change is saved, and logs its events whole", async () => {
  const from = Date.now();
  const [describe] = await heartbeat();
  expect(describe).toMatchObject({ operation: "DESCRIBE" });
  const operationId = describe?.identifier as string;

  // The Java library's DESCRIBE ack, under the fleet certificate: its id alone names the agent.
  const ack = example("java-2.3.0/ack-describe-manifest.json");
  ack.operationId = operationId;
  (ack.agentInfo as JsonObject).agentManifestHash = manifestHash;
  delete (ack.agentInfo as JsonObject).identifier;
  const answered = await api.post("/c2/api/acknowledge", ack, { certificate: fleet });
  expect(answered.status, answered.body).toBe(200);
  // Its change is saved: the manifest is known, and nothing more is asked.
  expect(await heartbeat()).toEqual([]);

  const [lost] = logged("event not put on the stream").filter((record) =>
    (record.events as { type: string; operationId?: string }[] | undefined)?.some(
      (event) => event.type === "ack" && event.operationId === operationId,
    ),
  );
  expect(lost?.events).toEqual([
    expect.objectContaining({ type: "ack", agentId, operationId, state: "FULLY_APPLIED", matched: true }),
  ]);
  const totals = await metricTotals(api.functionLog, [MetricNames.eventsLost, MetricNames.streamFailures], {
    from,
    to: Date.now(),
  });
  // Two heartbeats' events and the ack's: each publish failed whole.
  expect(totals).toEqual({ [MetricNames.eventsLost]: 3, [MetricNames.streamFailures]: 3 });
});
