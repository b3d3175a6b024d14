/**
 * Parameter values end to end on the local stack: set at the class and agent layers through the console,
 * read back, overridden and removed, each agent's effective view naming the layer each value comes from,
 * other tenants' classes and agents answering 404, viewers refused, and every change in the audit trail with
 * the reference it set and never a value.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeat } from "../../scripts/test-support/console-seed.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let operator: string;
let viewer: string;
let admin: string;
/** Another tenant with a class and an agent of its own. */
let otherOperator: string;

/** A secret of the tenant's own, below beacon/<tenant>/ as every reference must be. */
let secretArn: string;
const classValue = (name: string) => `/api/v1/classes/pumps/parameters/${encodeURIComponent(name)}`;
const agentValue = (agentId: string, name: string) =>
  `/api/v1/agents/${agentId}/parameters/${encodeURIComponent(name)}`;

const send = (method: string, path: string, token: string, body?: unknown) =>
  consoleApi.request(method, path, { token, body });

async function effective(agentId: string) {
  const response = await send("GET", `/api/v1/agents/${agentId}/parameters`, viewer);
  expect(response.status, response.body).toBe(200);
  return response.json() as {
    className: string;
    items: { name: string; layer?: string; value?: string; secretRef?: string }[];
    agentValues: { name: string }[];
  };
}

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  tenant = `params-${randomUUID().slice(0, 8)}`;
  secretArn = `arn:aws:secretsmanager:eu-west-1:123456789012:secret:beacon/${tenant}/kafka-AbCdEf`;
  operator = await consoleApi.token({ tenant, role: "operator" });
  viewer = await consoleApi.token({ tenant, role: "viewer" });
  admin = await consoleApi.token({ tenant, role: "admin" });
  const fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  for (const agentId of ["pump-1", "pump-2"])
    expect(await heartbeat(agentApi, fleet, agentId, "pumps", `${tenant}-java`)).toBe(200);
  const other = `${tenant}-other`;
  otherOperator = await consoleApi.token({ tenant: other, role: "operator" });
  const otherFleet = await agentApi.issueCertificate({ tenant: other, fleet: true });
  expect(await heartbeat(agentApi, otherFleet, "valve-1", "valves", `${other}-java`)).toBe(200);
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

describe("parameter values", () => {
  it("are set for a class, overridden for an agent, and removed, the effective view naming each layer", async () => {
    const set = await send("PUT", classValue("kafka.brokers"), operator, { value: "class-1:9092" });
    expect(set.status, set.body).toBe(201);
    expect(set.json()).toMatchObject({
      name: "kafka.brokers",
      value: "class-1:9092",
      updatedBy: expect.any(String),
    });
    expect((await send("PUT", classValue("kafka.brokers"), operator, { value: "class:9092" })).status).toBe(
      200,
    );
    const secret = await send("PUT", classValue("kafka password"), operator, {
      secretRef: `${secretArn}:SecretString:password`,
    });
    expect(secret.status, secret.body).toBe(201);
    const listed = await send("GET", "/api/v1/classes/pumps/parameters", viewer);
    expect(listed.json().items).toEqual([
      expect.objectContaining({ name: "kafka password", secretRef: `${secretArn}:SecretString:password` }),
      expect.objectContaining({ name: "kafka.brokers", value: "class:9092" }),
    ]);

    const override = await send("PUT", agentValue("pump-1", "kafka.brokers"), operator, {
      value: "agent:9092",
    });
    expect(override.status, override.body).toBe(201);
    expect((await send("PUT", agentValue("pump-1", "site"), operator, { value: "plant-1" })).status).toBe(
      201,
    );
    expect(await effective("pump-1")).toMatchObject({
      className: "pumps",
      items: [
        {
          name: "kafka password",
          declared: false,
          layer: "class",
          secretRef: `${secretArn}:SecretString:password`,
        },
        { name: "kafka.brokers", declared: false, layer: "agent", value: "agent:9092" },
        { name: "site", declared: false, layer: "agent", value: "plant-1" },
      ],
      agentValues: [{ name: "kafka.brokers" }, { name: "site" }],
    });
    expect((await effective("pump-2")).items.map(({ name, layer }) => [name, layer])).toEqual([
      ["kafka password", "class"],
      ["kafka.brokers", "class"],
    ]);

    const removed = await send("DELETE", agentValue("pump-1", "kafka.brokers"), operator);
    expect(removed.status, removed.body).toBe(200);
    expect(removed.json()).toMatchObject({ name: "kafka.brokers", value: "agent:9092" });
    expect((await send("GET", agentValue("pump-1", "kafka.brokers"), viewer)).status).toBe(404);
    expect((await effective("pump-1")).items.find((item) => item.name === "kafka.brokers")).toMatchObject({
      layer: "class",
      value: "class:9092",
    });
    expect((await send("DELETE", agentValue("pump-1", "kafka.brokers"), operator)).status).toBe(404);
  });

  it("take a reference in one of its forms only, to a secret of the tenant's own, and a value of bounded size", async () => {
    for (const body of [
      { secretRef: "hunter2" },
      { secretRef: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:plant/kafka" },
      { value: "é".repeat(2049) },
      { value: "x", secretRef: `ssm:/beacon/${tenant}/password` },
      { secretRef: "ssm:/plant/password" },
      { secretRef: `ssm:/beacon/${tenant}-other/password` },
      { secretRef: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:beacon/other/kafka-AbCdEf" },
    ]) {
      const refused = await send("PUT", classValue("refused"), operator, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    expect((await send("PUT", classValue(" leading space"), operator, { value: "x" })).status).toBe(400);
    expect((await send("GET", classValue("refused"), viewer)).status).toBe(404);
    const ssm = await send("PUT", classValue("ssm ref"), operator, { secretRef: `ssm:/beacon/${tenant}/pw` });
    expect(ssm.status, ssm.body).toBe(201);
  });

  it("of another tenant's class or agent are not found, and nothing of them changes", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/classes/pumps/parameters"],
      ["GET", classValue("kafka.brokers")],
      ["PUT", classValue("kafka.brokers")],
      ["DELETE", classValue("kafka.brokers")],
      ["GET", "/api/v1/agents/pump-1/parameters"],
      ["PUT", agentValue("pump-1", "site")],
      ["DELETE", agentValue("pump-1", "site")],
    ] as const) {
      const response = await send(
        method,
        path,
        otherOperator,
        method === "PUT" ? { value: "theirs" } : undefined,
      );
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.json()).toMatchObject({ error: { code: "not_found" } });
    }
    expect((await send("GET", agentValue("pump-1", "site"), viewer)).json()).toMatchObject({
      value: "plant-1",
    });
    expect((await send("GET", "/api/v1/agents/valve-1/parameters", otherOperator)).json()).toMatchObject({
      className: "valves",
      items: [],
    });
  });

  it("are changed by operators only: a viewer reads them and is refused a change", async () => {
    expect((await send("GET", classValue("kafka.brokers"), viewer)).status).toBe(200);
    for (const [method, path] of [
      ["PUT", classValue("kafka.brokers")],
      ["DELETE", classValue("kafka.brokers")],
      ["PUT", agentValue("pump-2", "site")],
    ] as const) {
      const refused = await send(method, path, viewer, method === "PUT" ? { value: "viewer's" } : undefined);
      expect(refused.status, `${method} ${path}`).toBe(403);
    }
    expect((await send("GET", classValue("kafka.brokers"), viewer)).json()).toMatchObject({
      value: "class:9092",
    });
    expect((await send("GET", agentValue("pump-2", "site"), viewer)).status).toBe(404);
  });

  it("are in the audit trail by what they set: the reference, never a value", async () => {
    const trail = await send("GET", "/api/v1/audit?limit=100", admin);
    expect(trail.status, trail.body).toBe(200);
    const records = trail.json().items as {
      operationId: string;
      target: Record<string, string>;
      status: number;
      summary?: Record<string, unknown>;
    }[];
    expect(records).toContainEqual(
      expect.objectContaining({
        operationId: "putClassParameter",
        target: { className: "pumps", name: "kafka password" },
        status: 201,
        summary: { kind: "secretRef", secretRef: `${secretArn}:SecretString:password` },
      }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({
        operationId: "putAgentParameter",
        target: { agentId: "pump-1", name: "kafka.brokers" },
        summary: { kind: "value" },
      }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({
        operationId: "deleteAgentParameter",
        target: { agentId: "pump-1", name: "kafka.brokers" },
        status: 200,
      }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({
        operationId: "putAgentParameter",
        status: 403,
        target: { agentId: "pump-2", name: "site" },
      }),
    );
    for (const value of ["class:9092", "agent:9092", "plant-1"]) expect(trail.body).not.toContain(value);
  });
});
