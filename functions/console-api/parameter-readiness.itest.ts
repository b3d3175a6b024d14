/**
 * Nothing moves that would leave agents a flow they cannot run, on the local stack: publishing a version, rolling
 * it out and changing a value are refused with a report of the agents that would lack a declared parameter's
 * value (counted per layer) or get one their binary's manifest refuses, and nothing is written or sent.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cppAgentOf } from "../../scripts/common/c2-examples.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { cppYamlParameterFlow } from "../../scripts/test-support/flow-fixtures.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let operator: string;
const className = "sites";
const agents = ["site-1", "site-2"];
/** A version whose `site id` has no value of the flow's own: every agent needs one from a layer. */
const flow = new TextEncoder().encode(
  cppYamlParameterFlow.replace(
    "{name: site id, sensitive: false, value: site-0}",
    "{name: site id, sensitive: false}",
  ),
);
let flowHash: string;

const classValue = (name: string) => `/api/v1/classes/${className}/parameters/${encodeURIComponent(name)}`;
const agentValue = (agentId: string, name: string) =>
  `/api/v1/agents/${agentId}/parameters/${encodeURIComponent(name)}`;
const send = (method: string, path: string, body?: unknown) =>
  consoleApi.request(method, path, { token: operator, body });
const publish = () =>
  consoleApi.request("POST", `/api/v1/classes/${className}/flows`, {
    token: operator,
    body: flow,
    headers: { "content-type": "application/yaml" },
  });

/** A refusal's error, its report in `details`. */
const refusal = (response: { json(): Record<string, unknown> }) =>
  response.json().error as { code: string; details: Record<string, unknown> };

async function expectSet(path: string, body: unknown) {
  const response = await send("PUT", path, body);
  expect([200, 201], response.body).toContain(response.status);
}

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  tenant = `ready-${randomUUID().slice(0, 8)}`;
  operator = await consoleApi.token({ tenant, role: "operator" });
  const fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  for (const agentId of agents) {
    const response = await agentApi.post("/c2/api/heartbeat", cppAgentOf(agentId, className).full(), {
      certificate: fleet,
    });
    expect(response.status, response.body).toBe(200);
  }
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

describe("parameter readiness", () => {
  it("refuses to publish a version its agents lack a value for, or get one their binary refuses, storing nothing", async () => {
    const missing = await publish();
    expect(missing.status, missing.body).toBe(409);
    expect(missing.json()).toEqual({
      error: {
        code: "parameters_not_ready",
        message: expect.stringContaining(
          "the class layer leaves site id unset: the 2 agents without a value of their own lack it",
        ),
        details: {
          className,
          flowHash: expect.stringMatching(/^[0-9a-f]{64}$/),
          truncated: false,
          agentCount: 2,
          missing: [{ parameter: "site id", layer: "class", agentCount: 2, agentIds: agents }],
          refused: [],
        },
      },
    });
    flowHash = refusal(missing).details.flowHash as string;
    expect((await send("GET", `/api/v1/classes/${className}/flows/${flowHash}`)).status).toBe(404);

    // Values for names no version in force declares are taken as they come.
    await expectSet(classValue("site id"), { value: "plant" });
    await expectSet(classValue("mode"), { value: "squash" });
    await expectSet(agentValue("site-1", "mode"), { value: "decompress" });
    const refused = await publish();
    expect(refused.status, refused.body).toBe(409);
    // site-1's own value is one its binary takes; site-2 gets the class's, which the binary's CompressContent refuses.
    expect(refusal(refused).details).toMatchObject({
      missing: [],
      refused: [
        expect.objectContaining({ parameter: "mode", value: "squash", layer: "class", agentIds: ["site-2"] }),
      ],
    });
    expect((await send("GET", `/api/v1/classes/${className}/flows/${flowHash}`)).status).toBe(404);

    await expectSet(classValue("mode"), { value: "compress" });
    const published = await publish();
    expect(published.status, published.body).toBe(201);
    expect(published.json().hash).toBe(flowHash);
  });

  it("refuses to start a rollout of a version its agents lack a value for, and starts none", async () => {
    // The version is in force nowhere yet, so removing the value it needs is taken.
    expect((await send("DELETE", classValue("site id"))).status).toBe(200);
    const request = { className, flowHash, allowIncompatible: true };
    const refused = await send("POST", "/api/v1/rollouts", request);
    expect(refused.status, refused.body).toBe(409);
    expect(refused.json().error).toMatchObject({
      code: "parameters_not_ready",
      details: { flowHash, missing: [{ parameter: "site id", agentCount: 2, agentIds: agents }] },
    });
    const rollouts = await send("GET", `/api/v1/rollouts?className=${className}`);
    expect(rollouts.json().items).toEqual([]);

    await expectSet(classValue("site id"), { value: "plant" });
    const started = await send("POST", "/api/v1/rollouts", request);
    expect(started.status, started.body).toBe(201);
  });

  it("refuses, once the version rolls out, a value change that leaves an agent without a value or with a refused one", async () => {
    const removal = await send("DELETE", classValue("site id"));
    expect(removal.status, removal.body).toBe(409);
    expect(removal.json().error).toMatchObject({
      code: "parameters_not_ready",
      message: expect.stringMatching(/^Removing site id would leave agents of class sites/),
      details: {
        flowHash,
        missing: [{ parameter: "site id", layer: "class", agentCount: 2, agentIds: agents }],
      },
    });
    expect((await send("GET", classValue("site id"))).json()).toMatchObject({ value: "plant" });

    const shrink = await send("PUT", agentValue("site-2", "mode"), { value: "shrink" });
    expect(shrink.status, shrink.body).toBe(409);
    expect(refusal(shrink).details.refused).toEqual([
      expect.objectContaining({ parameter: "mode", value: "shrink", layer: "agent", agentIds: ["site-2"] }),
    ]);
    expect((await send("GET", agentValue("site-2", "mode"))).status).toBe(404);

    // The agent's own value gives way to the class's, which its binary takes.
    expect((await send("DELETE", agentValue("site-1", "mode"))).status).toBe(200);
    await expectSet(agentValue("site-1", "site id"), { value: "plant-1" });
    await expectSet(agentValue("site-2", "site id"), { value: "plant-2" });
    expect((await send("DELETE", classValue("site id"))).status).toBe(200);
  });
});
