/**
 * Flow versions that declare parameters, with the real Apache NiFi C2 client library 2.3.0
 * (org.apache.nifi:c2-client-http) and its own UPDATE CONFIGURATION handler, as MiNiFi Java runs it: two agents of
 * a class take a version through a rollout, each downloading its own rendering (the class's values, an agent's own
 * over them, a secret read by reference from Secrets Manager, served by moto) and reporting its flow id; then a
 * class value change reaches, by catch-up, exactly the agents whose rendering it changes. Each agent keeps its disk
 * (the flow id the library persists, the flow it runs) between the driver's runs, as an agent does across restarts.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentFlowContentUrl } from "../../functions/core/c2/routes.js";
import { CATCH_UP_CREATOR } from "../../functions/core/operations/delivery.js";
import { type AgentApiUnderTest, startAgentApi } from "../test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../test-support/console-api-harness.js";
import { javaParameterFlow, parameterValuesIn } from "../test-support/flow-fixtures.js";
import { createTenantSecret } from "../test-support/secrets.js";
import { buildJavaDriver, type JavaDriverOptions, runJavaDriver, runningFlowIn } from "./java-client.js";
import { acks, driverRollout, expectFlowApplied, heartbeats, sweeperLooksAt } from "./java-rollout.js";

/** A cold build resolves the library and Maven's plugins into ~/.m2 first. */
const BUILD_TIMEOUT_MS = 11 * 60_000;
const AGENT_CLASS = "pumps";

let api: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let operator: string;
let flowHash: string;
const run = randomUUID().slice(0, 8);
const tenant = `java-params-${run}`;
/** The secret's value: random, so that finding it in a flow can only mean Beacon read it by its reference. */
const kafkaPassword = `pw-${randomUUID()}`;

/** A Java agent with its disk, and the flow id it reports (null until it runs a flow Beacon sent). */
interface JavaAgent {
  agentId: string;
  stateDir: string;
  options: JavaDriverOptions;
  flowId: string | null;
}
/** Sets site.id of its own. */
let own: JavaAgent;
/** Takes the class's values. */
let plain: JavaAgent;

beforeAll(async () => {
  await buildJavaDriver();
  api = await startAgentApi();
  consoleApi = await startConsoleApi(api);
  operator = await consoleApi.token({ tenant, role: "operator" });
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await consoleApi?.close();
  await api?.close();
  for (const agent of [own, plain]) if (agent) rmSync(agent.stateDir, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A Java agent with an agent certificate of its own; its first run registers it and its manifest. */
async function registered(name: string): Promise<JavaAgent> {
  const agentId = `${name}-${run}`;
  const stateDir = mkdtempSync(path.join(tmpdir(), "beacon-java-params-"));
  const options: JavaDriverOptions = {
    url: api.url,
    certsDir: api.certsDir,
    certificate: await api.issueCertificate({ tenant, agentId }),
    agentId,
    agentClass: AGENT_CLASS,
    manifestHash: randomBytes(64).toString("hex"),
    compression: "gzip",
    stateDir,
  };
  const steps = await runJavaDriver(options);
  expect(acks(steps)).toMatchObject([{ operation: "DESCRIBE", state: "FULLY_APPLIED" }]);
  return { agentId, stateDir, options, flowId: null };
}

async function put(route: string, body: unknown, status: 200 | 201) {
  const response = await consoleApi.request("PUT", `/api/v1/${route}`, { token: operator, body });
  expect(response.status, response.body).toBe(status);
}

async function operationOf(operationId: string) {
  return (await consoleApi.request("GET", `/api/v1/operations/${operationId}`, { token: operator })).json();
}

/**
 * One run of the driver in which the agent's first heartbeat brings an UPDATE CONFIGURATION of its own rendering
 * of the version under a new flow id, the library's handler downloads and applies it, its acknowledgement makes
 * the operation done and the second heartbeat reports the flow id. Returns the operation and the parameter values
 * of the flow the agent runs now.
 */
async function takesItsRendering(agent: JavaAgent) {
  const steps = await runJavaDriver(agent.options);
  const [first] = heartbeats(steps);
  const location = agentFlowContentUrl(api.url, agent.agentId, flowHash);
  expect(first).toMatchObject({ parsed: true, flowId: agent.flowId });
  expect(first?.operations).toEqual([
    {
      identifier: expect.any(String),
      operation: "UPDATE",
      operand: "CONFIGURATION",
      args: { location, flowId: expect.stringMatching(/^[0-9a-f]{40}$/), persist: "true" },
    },
  ]);
  const operationId = first?.operations[0]?.identifier as string;
  const flowId = first?.operations[0]?.args.flowId as string;
  expect(flowId).not.toBe(agent.flowId);
  expect(flowId).not.toBe(flowHash);

  const flow = runningFlowIn(agent.stateDir);
  expectFlowApplied(steps, {
    operationId,
    path: new URL(location).pathname,
    flowBytes: flow.length,
    flowSha256: sha256(flow),
    flowId,
  });
  expect(await operationOf(operationId)).toMatchObject({
    state: "done",
    ackState: "FULLY_APPLIED",
    confirmedBy: "ack",
  });
  agent.flowId = flowId;
  return { operationId, flowId, values: parameterValuesIn(flow) };
}

/** One run of the driver in which the agent gets no operation and goes on reporting the flow id it runs. */
async function keepsItsFlow(agent: JavaAgent) {
  const steps = await runJavaDriver(agent.options);
  expect(heartbeats(steps)).toMatchObject([
    { parsed: true, operations: [], flowId: agent.flowId },
    { parsed: true, operations: [], flowId: agent.flowId },
  ]);
  expect(steps.filter((step) => step.step === "update" || step.step === "ack")).toEqual([]);
}

describe("a flow version that declares parameters, with the NiFi 2.3.0 Java C2 client's own handlers", () => {
  it("goes to each agent through a rollout rendered with its own values, each reporting its own rendering's flow id", async () => {
    [own, plain] = await Promise.all([registered("pump-own"), registered("pump-plain")]);
    const secretArn = await createTenantSecret(api.env, tenant, "kafka", { password: kafkaPassword });
    const classValue = (name: string) => `classes/${AGENT_CLASS}/parameters/${name}`;
    await put(classValue("kafka.brokers"), { value: "broker-a.plant:9092" }, 201);
    await put(classValue("kafka.password"), { secretRef: `${secretArn}:SecretString:password` }, 201);
    await put(classValue("site.id"), { value: "plant-0" }, 201);
    await put(`agents/${own.agentId}/parameters/site.id`, { value: "plant-17" }, 201);
    // Published once its agents have every value it needs (kafka.password has no value of the flow's own).
    const published = await consoleApi.request("POST", `/api/v1/classes/${AGENT_CLASS}/flows`, {
      token: operator,
      body: javaParameterFlow,
    });
    expect(published.status, published.body).toBe(201);
    flowHash = published.json().hash as string;

    const started = await consoleApi.request("POST", "/api/v1/rollouts", {
      token: operator,
      // Both agents in the canary.
      body: driverRollout(AGENT_CLASS, flowHash, 2),
    });
    expect(started.status, started.body).toBe(201);
    const rolloutId = started.json().rolloutId as string;
    expect(started.json()).toMatchObject({ state: "canary", counts: { selected: 2, updating: 2 } });

    const [ownTook, plainTook] = await Promise.all([takesItsRendering(own), takesItsRendering(plain)]);
    expect(ownTook.flowId).not.toBe(plainTook.flowId);
    const shared = {
      pumps: { "kafka.brokers": "broker-a.plant:9092", compression: "gzip" },
      archive: { "s3.prefix": "pumps/" },
    };
    expect(ownTook.values).toEqual({
      common: { "site.id": "plant-17", "kafka.password": kafkaPassword },
      ...shared,
    });
    expect(plainTook.values).toEqual({
      common: { "site.id": "plant-0", "kafka.password": kafkaPassword },
      ...shared,
    });

    await sweeperLooksAt(api.env, { tenant, rolloutId });
    const rollout = await consoleApi.request("GET", `/api/v1/rollouts/${rolloutId}`, { token: operator });
    expect(rollout.json()).toMatchObject({
      state: "completed",
      counts: { selected: 2, healthy: 2, failed: 0 },
    });
    const agentClass = await consoleApi.request("GET", `/api/v1/classes/${AGENT_CLASS}`, { token: operator });
    expect(agentClass.json()).toMatchObject({ flow: { target: flowHash } });
    for (const agent of [own, plain]) {
      const view = await consoleApi.request("GET", `/api/v1/agents/${agent.agentId}`, { token: operator });
      expect(view.json()).toMatchObject({ agentId: agent.agentId, flowId: agent.flowId });
    }
  });

  it("brings a class value to the agent without one of its own by catch-up, and nothing to the agent with one", async () => {
    await put(`classes/${AGENT_CLASS}/parameters/site.id`, { value: "plant-1" }, 200);
    const [plainTook] = await Promise.all([takesItsRendering(plain), keepsItsFlow(own)]);
    expect(plainTook.values.common).toEqual({ "site.id": "plant-1", "kafka.password": kafkaPassword });
    expect(await operationOf(plainTook.operationId)).toMatchObject({ createdBy: CATCH_UP_CREATOR });
  });

  it("brings a class value neither agent sets to both, each in its own rendering", async () => {
    await put(`classes/${AGENT_CLASS}/parameters/compression`, { value: "snappy" }, 201);
    const [ownTook, plainTook] = await Promise.all([takesItsRendering(own), takesItsRendering(plain)]);
    expect(ownTook.flowId).not.toBe(plainTook.flowId);
    expect(ownTook.values.pumps).toEqual({ "kafka.brokers": "broker-a.plant:9092", compression: "snappy" });
    expect(plainTook.values.pumps).toEqual(ownTook.values.pumps);
    expect(ownTook.values.common?.["site.id"]).toBe("plant-17");
    expect(plainTook.values.common?.["site.id"]).toBe("plant-1");
    for (const { operationId } of [ownTook, plainTook])
      expect(await operationOf(operationId)).toMatchObject({ createdBy: CATCH_UP_CREATOR });
  });
});
