/**
 * Flows end to end on the local stack: versions published through the console, checked against the real
 * manifests of the class's agents, sent to an agent with UPDATE CONFIGURATION and downloaded by it over
 * the real mutual-TLS gateway.
 */
import { createHash, randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cppAckOf, cppAgentOf, exampleText } from "../../scripts/common/c2-examples.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { javaFlow, heartbeat as javaHeartbeat } from "../../scripts/test-support/console-seed.js";
import {
  cppYamlFlow as cppYaml,
  cppYamlParameterFlow,
  cppYamlParameterFlowDeclares,
  javaParameterFlow,
} from "../../scripts/test-support/flow-fixtures.js";
import type { JsonObject } from "../core/json.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let fleet: string;
let operator: string;
/**
 * One class, two kinds of agent: two C++ agents of the all-extensions build, each with its own manifest
 * hash (the second varied as real agents vary), and a Java one.
 */
const className = "mixed";
const cppAgent = "cpp-1";
const otherCppAgent = "cpp-2";
const javaAgent = "java-1";

const flowsOf = (name = className) => `/api/v1/classes/${encodeURIComponent(name)}/flows`;

async function upload(body: unknown, headers: Record<string, string> = {}, name = className) {
  return consoleApi.request("POST", flowsOf(name), { token: operator, body, headers });
}

async function publish(body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const response = await upload(body, headers);
  expect([200, 201], response.body).toContain(response.status);
  return response.json().hash as string;
}

async function setClassValue(name: string, body: unknown) {
  const path = `/api/v1/classes/${className}/parameters/${encodeURIComponent(name)}`;
  const response = await consoleApi.request("PUT", path, { token: operator, body });
  expect(response.status, response.body).toBe(201);
}

function cppHeartbeat(agentId: string): JsonObject {
  const heartbeat = JSON.parse(
    exampleText("cpp/heartbeat-full.json").replace("9628acfe-b9fe-11ef-a0c0-10f60a596f64", agentId),
  ) as JsonObject;
  (heartbeat.agentInfo as JsonObject).agentClass = className;
  return heartbeat;
}

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  tenant = `flows-${randomUUID().slice(0, 8)}`;
  fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  operator = await consoleApi.token({ tenant, role: "operator" });
  for (const body of [cppHeartbeat(cppAgent), cppAgentOf(otherCppAgent, className).full()]) {
    const response = await agentApi.post("/c2/api/heartbeat", body, { certificate: fleet });
    expect(response.status).toBe(200);
  }
  expect(await javaHeartbeat(agentApi, fleet, javaAgent, className, `${tenant}-java`)).toBe(200);
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

describe("publishing flow versions", () => {
  it("stores a Java flow.json addressed by the SHA-256 of its bytes, immutable, and lists and serves it", async () => {
    const flow = javaFlow("publish");
    const bytes = JSON.stringify(flow);
    const created = await upload(flow);
    expect(created.status, created.body).toBe(201);
    const hash = createHash("sha256").update(bytes).digest("hex");
    expect(created.json()).toEqual({
      hash,
      className,
      format: "nifi-json",
      contentType: "application/json",
      sizeBytes: Buffer.byteLength(bytes),
      gzipBytes: expect.any(Number),
      processorTypes: ["org.apache.nifi.processors.standard.GenerateFlowFile"],
      controllerServiceTypes: [],
      assetIds: [],
      createdAt: expect.any(String),
      createdBy: `${tenant}-operator`,
      parameters: [],
      // The class's first version.
      version: 1,
    });
    // The same bytes again are the same version, as first published.
    const again = await upload(flow);
    expect(again.status).toBe(200);
    expect(again.json()).toEqual(created.json());

    const listed = await consoleApi.request("GET", flowsOf(), { token: operator });
    expect(listed.json().items).toContainEqual(created.json());
    const got = await consoleApi.request("GET", `${flowsOf()}/${hash}`, { token: operator });
    expect(got.json()).toEqual(created.json());
    const content = await consoleApi.request("GET", `${flowsOf()}/${hash}/content`, { token: operator });
    expect(content.status).toBe(200);
    expect(content.headers.get("content-type")).toBe("application/json");
    expect(content.body).toBe(bytes);
    // Another class of the tenant has no such version.
    const elsewhere = await consoleApi.request("GET", `${flowsOf("other")}/${hash}`, { token: operator });
    expect(elsewhere.status).toBe(404);
  });

  it("takes C++ YAML as sent, and gzip-encoded uploads, and keeps the content type", async () => {
    const yaml = await upload(new TextEncoder().encode(cppYaml), { "content-type": "application/yaml" });
    expect(yaml.status, yaml.body).toBe(201);
    expect(yaml.json()).toMatchObject({
      format: "minifi-yaml",
      contentType: "application/yaml",
      processorTypes: ["GenerateFlowFile", "LogAttribute", "org.apache.nifi.minifi.processors.PutFile"],
      controllerServiceTypes: ["SSLContextService"],
    });
    const content = await consoleApi.request("GET", `${flowsOf()}/${yaml.json().hash}/content`, {
      token: operator,
    });
    expect(content.headers.get("content-type")).toBe("application/yaml");
    expect(content.body).toBe(cppYaml);

    const text = JSON.stringify(javaFlow("gzip"));
    const gzipped = await upload(gzipSync(text), { "content-encoding": "gzip" });
    expect(gzipped.status, gzipped.body).toBe(201);
    expect(gzipped.json().hash).toBe(createHash("sha256").update(text).digest("hex"));
  });

  it("refuses what is no flow with 400, more than 5 MB with 413, and a viewer with 403", async () => {
    expect((await upload({ processors: [] })).status).toBe(400);
    expect(await upload(new TextEncoder().encode("Flow Controller: ["))).toMatchObject({ status: 400 });
    const large = { ...javaFlow("large"), padding: "x".repeat(5 * 1024 * 1024) };
    expect((await upload(gzipSync(JSON.stringify(large)), { "content-encoding": "gzip" })).status).toBe(413);
    const viewer = await consoleApi.token({ tenant, role: "viewer" });
    const refused = await consoleApi.request("POST", flowsOf(), { token: viewer, body: javaFlow("viewer") });
    expect(refused.status).toBe(403);
  });
});

describe("version numbers and labels", () => {
  const named = "named";
  const labelOf = (hash: string) => `${flowsOf(named)}/${hash}/label`;

  it("numbers a class's versions in publish order, keeps a label given at publish, and lets an operator change it", async () => {
    const first = await consoleApi.request("POST", `${flowsOf(named)}?label=kafka%20tls`, {
      token: operator,
      body: javaFlow("named-first"),
    });
    expect(first.status, first.body).toBe(201);
    expect(first.json()).toMatchObject({ version: 1, label: "kafka tls" });
    const second = await upload(javaFlow("named-second"), {}, named);
    expect(second.status, second.body).toBe(201);
    expect(second.json().version).toBe(2);
    expect(second.json()).not.toHaveProperty("label");
    const again = await upload(javaFlow("named-first"), {}, named);
    expect(again.status).toBe(200);
    expect(again.json()).toMatchObject({ version: 1, label: "kafka tls" });

    const hash = second.json().hash as string;
    const labelled = await consoleApi.request("PUT", labelOf(hash), {
      token: operator,
      body: { label: "kafka mtls" },
    });
    expect(labelled.status, labelled.body).toBe(200);
    expect(labelled.json()).toMatchObject({ hash, version: 2, label: "kafka mtls" });
    const listed = await consoleApi.request("GET", flowsOf(named), { token: operator });
    expect(
      (listed.json().items as { version: number; label?: string }[])
        .map(({ version, label }) => ({ version, label }))
        .sort((a, b) => a.version - b.version),
    ).toEqual([
      { version: 1, label: "kafka tls" },
      { version: 2, label: "kafka mtls" },
    ]);

    // The agent list names the version an agent runs.
    expect(await javaHeartbeat(agentApi, fleet, "named-1", named, `${tenant}-java`, { flowId: hash })).toBe(
      200,
    );
    const agents = await consoleApi.request("GET", `/api/v1/agents?class=${named}`, { token: operator });
    expect(agents.json().items).toEqual([
      expect.objectContaining({
        agentId: "named-1",
        flowId: hash,
        flowVersion: { version: 2, label: "kafka mtls" },
      }),
    ]);

    const removed = await consoleApi.request("PUT", labelOf(hash), { token: operator, body: { label: "" } });
    expect(removed.status, removed.body).toBe(200);
    expect(removed.json()).not.toHaveProperty("label");
    expect(removed.json().version).toBe(2);
  });

  it("refuses a label that is no one line of 1 to 64 characters, an unknown version, and a viewer, changing nothing", async () => {
    const published = await upload(javaFlow("named-refusals"), {}, named);
    const hash = published.json().hash as string;
    for (const label of [" padded", "two\nlines", "x".repeat(65)]) {
      const refused = await consoleApi.request("PUT", labelOf(hash), { token: operator, body: { label } });
      expect(refused.status, label).toBe(400);
    }
    const atPublish = await consoleApi.request("POST", `${flowsOf(named)}?label=%20padded`, {
      token: operator,
      body: javaFlow("named-refused-at-publish"),
    });
    expect(atPublish.status).toBe(400);
    const unknown = await consoleApi.request("PUT", labelOf("0".repeat(64)), {
      token: operator,
      body: { label: "none" },
    });
    expect(unknown.status).toBe(404);
    const viewer = await consoleApi.token({ tenant, role: "viewer" });
    const byViewer = await consoleApi.request("PUT", labelOf(hash), {
      token: viewer,
      body: { label: "viewer" },
    });
    expect(byViewer.status).toBe(403);
    const version = await consoleApi.request("GET", `${flowsOf(named)}/${hash}`, { token: operator });
    expect(version.json()).not.toHaveProperty("label");
  });
});

describe("parameters a flow declares", () => {
  it("lists a version's declared parameters, a sensitive one without its value", async () => {
    const yaml = await upload(new TextEncoder().encode(cppYamlParameterFlow), {
      "content-type": "application/yaml",
    });
    expect(yaml.status, yaml.body).toBe(201);
    expect(yaml.json().parameters).toEqual(cppYamlParameterFlowDeclares);
    // The sensitive kafka.password has no value of the flow's own: the class's agents need one before it is published.
    await setClassValue("kafka.password", { secretRef: `ssm:/beacon/${tenant}/kafka-password` });
    const java = await upload(javaParameterFlow);
    expect(java.status, java.body).toBe(201);
    const got = await consoleApi.request("GET", `${flowsOf()}/${java.json().hash}`, { token: operator });
    expect(got.json().parameters).toContainEqual({ name: "kafka.password", sensitive: true });
    expect(got.json().parameters).toHaveLength(5);
  });

  it("refuses a flow referencing a parameter its group's context does not declare, and stores nothing", async () => {
    const flow = structuredClone(javaParameterFlow);
    const inner = flow.rootGroup.processGroups[0] as { processors: { properties: JsonObject }[] };
    Object.assign(inner.processors[0]?.properties ?? {}, { Bucket: "#{site.id}" });
    const refused = await upload(flow);
    expect(refused.status).toBe(400);
    expect(refused.json()).toEqual({
      error: {
        code: "invalid_request",
        message: expect.stringContaining('#{site.id} in processor "put" property "Bucket"'),
        details: {
          undeclaredParameters: [
            { parameter: "site.id", component: "processor", componentName: "put", property: "Bucket" },
          ],
          undeclaredCount: 1,
        },
      },
    });
    const hash = createHash("sha256").update(JSON.stringify(flow)).digest("hex");
    const got = await consoleApi.request("GET", `${flowsOf()}/${hash}`, { token: operator });
    expect(got.status).toBe(404);
    const listed = await consoleApi.request("GET", `${flowsOf()}?limit=100`, { token: operator });
    expect((listed.json().items as JsonObject[]).map((item) => item.hash)).not.toContain(hash);
  });

  it("reports the declared parameters and the flow's own values a binary's processors do not allow", async () => {
    // The class's value, which its agents get, is one they take: the flow's own is reported all the same.
    await setClassValue("mode", { value: "compress" });
    const squashing = cppYamlParameterFlow.replace("value: compress ", "value: squash ");
    const hash = await publish(new TextEncoder().encode(squashing), { "content-type": "application/yaml" });
    const body = (
      await consoleApi.request("GET", `${flowsOf()}/${hash}/validation`, { token: operator })
    ).json();
    expect(body.parameters).toContainEqual({ name: "mode", sensitive: false, default: "squash" });
    expect(body.undeclaredParameters).toEqual([]);
    const cpp = (body.manifests as JsonObject[]).find((entry) =>
      (entry.agentIds as string[]).includes(cppAgent),
    );
    expect(cpp?.valuesRefused).toEqual([
      {
        parameter: "mode",
        processorType: "CompressContent",
        property: "Mode",
        value: "squash",
        allowed: ["compress", "decompress"],
      },
    ]);
  });
});

describe("validation against the class's manifests", () => {
  it("reports per binary which types are missing and which agents could not run the flow", async () => {
    // Short names (GenerateFlowFile, LogAttribute, SSLContextService) and the C++ PutFile: the C++ manifest
    // has them all, the Java one only a GenerateFlowFile.
    const hash = await publish(new TextEncoder().encode(cppYaml), { "content-type": "application/yaml" });
    const report = await consoleApi.request("GET", `${flowsOf()}/${hash}/validation`, { token: operator });
    expect(report.status, report.body).toBe(200);
    const body = report.json();
    expect(body).toMatchObject({
      flowHash: hash,
      className,
      compatible: false,
      agentCount: 3,
      incompatibleAgentCount: 1,
      truncated: false,
    });
    const manifests = body.manifests as JsonObject[];
    expect(manifests).toHaveLength(2);
    const agentOf = async (agentId: string) =>
      (await consoleApi.request("GET", `/api/v1/agents/${agentId}`, { token: operator })).json();
    const [cpp, otherCpp, java] = await Promise.all([cppAgent, otherCppAgent, javaAgent].map(agentOf));
    // Agents of one build share a binary whatever their own hashes: one entry for both C++ agents.
    expect(cpp?.manifestHash).not.toBe(otherCpp?.manifestHash);
    expect(cpp?.manifestId).toBe(otherCpp?.manifestId);
    expect(manifests).toContainEqual({
      manifestId: java?.manifestId,
      manifestKnown: true,
      compatible: false,
      missingProcessorTypes: ["LogAttribute", "org.apache.nifi.minifi.processors.PutFile"],
      missingControllerServiceTypes: ["SSLContextService"],
      valuesRefused: [],
      agentCount: 1,
      agentIds: [javaAgent],
    });
    expect(manifests).toContainEqual(
      expect.objectContaining({
        manifestId: cpp?.manifestId,
        compatible: true,
        missingProcessorTypes: [],
        agentIds: [cppAgent, otherCppAgent],
      }),
    );
  });

  it("refuses to publish, with requireCompatible, a flow some agents could not run, naming what each binary lacks, and stores nothing", async () => {
    // Bytes the class has no version of yet: the C++ flow above, another comment at its end.
    const bytes = new TextEncoder().encode(`${cppYaml}# checked before it is stored\n`);
    const hash = createHash("sha256").update(bytes).digest("hex");
    const javaManifestId = (
      await consoleApi.request("GET", `/api/v1/agents/${javaAgent}`, { token: operator })
    ).json().manifestId as string;
    const refused = await consoleApi.request("POST", `${flowsOf()}?requireCompatible=true`, {
      token: operator,
      body: bytes,
      headers: { "content-type": "application/yaml" },
    });
    expect(refused.status, refused.body).toBe(409);
    expect(refused.json().error).toMatchObject({
      code: "flow_incompatible",
      details: {
        problems: [
          `1 agent of binary ${javaManifestId}: no LogAttribute, org.apache.nifi.minifi.processors.PutFile, SSLContextService`,
        ],
        validation: { compatible: false, agentCount: 3, incompatibleAgentCount: 1 },
      },
    });
    expect((refused.json().error as { message: string }).message).toMatch(
      /^1 of the class's 3 agents could not run this flow, so it was not published: /,
    );
    const stored = await consoleApi.request("GET", `${flowsOf()}/${hash}`, { token: operator });
    expect(stored.status).toBe(404);

    // Without it, the same bytes are published as before: the validation report tells the rest.
    const published = await upload(bytes, { "content-type": "application/yaml" });
    expect(published.status, published.body).toBe(201);
    expect(published.json().hash).toBe(hash);
  });

  it("finds a Java flow of fully qualified types runnable on the Java manifest only", async () => {
    const hash = await publish(javaFlow("validate"));
    const body = (
      await consoleApi.request("GET", `${flowsOf()}/${hash}/validation`, { token: operator })
    ).json();
    const byAgent = Object.fromEntries(
      (body.manifests as { agentIds: string[]; compatible: boolean }[]).map((entry) => [
        entry.agentIds[0],
        entry.compatible,
      ]),
    );
    // The C++ manifest's GenerateFlowFile lives in another package: a qualified name must match exactly.
    expect(byAgent).toEqual({ [javaAgent]: true, [cppAgent]: false });
  });
});

describe("UPDATE CONFIGURATION", () => {
  const create = (body: JsonObject) =>
    consoleApi.request("POST", "/api/v1/operations", { token: operator, body });
  const updateConfiguration = (agentId: string, flowHash?: string) =>
    create({ agentId, operation: "UPDATE", operand: "CONFIGURATION", flowHash });

  it("is refused with 409 for an agent whose manifest lacks it, and needs a version of the class", async () => {
    const hash = await publish(javaFlow("refused"));
    const refused = await updateConfiguration(javaAgent, hash);
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({ error: { code: "operation_not_supported" } });
    const noFlow = await updateConfiguration(cppAgent);
    expect(noFlow.status).toBe(400);
    const unknown = await updateConfiguration(cppAgent, "0".repeat(64));
    expect(unknown.status).toBe(404);
    const flowOnDescribe = await create({
      agentId: cppAgent,
      operation: "DESCRIBE",
      operand: "MANIFEST",
      flowHash: hash,
    });
    expect(flowOnDescribe.status).toBe(400);
  });

  it("sends the agent an absolute download URL and the flow id, which it fetches over mutual TLS", async () => {
    const hash = await publish(new TextEncoder().encode(cppYaml), { "content-type": "application/yaml" });
    const created = await updateConfiguration(cppAgent, hash);
    expect(created.status, created.body).toBe(201);
    const location = `${agentApi.url}/c2/api/flows/${hash}/content`;
    expect(created.json().items).toEqual([
      expect.objectContaining({ args: { location, flowId: hash, persist: "true" }, state: "queued" }),
    ]);

    const reply = await agentApi.post("/c2/api/heartbeat", cppHeartbeat(cppAgent), { certificate: fleet });
    const [delivered] = reply.json().requestedOperations as JsonObject[];
    expect(delivered).toMatchObject({
      operation: "UPDATE",
      operand: "CONFIGURATION",
      args: { location, flowId: hash, persist: "true" },
    });

    const path = new URL(location).pathname;
    const download = await agentApi.get(path, { certificate: fleet });
    expect(download.status).toBe(200);
    expect(download.headers["content-type"]).toBe("application/yaml");
    expect(download.headers.etag).toBe(`"${hash}"`);
    expect(download.body).toBe(cppYaml);
    const unchanged = await agentApi.get(path, {
      certificate: fleet,
      headers: { "if-none-match": `"${hash}"` },
    });
    expect(unchanged.status).toBe(304);
    expect(unchanged.body).toBe("");

    // Another tenant's agents do not see it; nor does a request without a flow of that name.
    const stranger = await agentApi.issueCertificate({ tenant: `${tenant}-other`, fleet: true });
    expect((await agentApi.get(path, { certificate: stranger })).status).toBe(404);
    expect((await agentApi.get("/c2/api/flows/not-a-hash/content", { certificate: fleet })).status).toBe(404);

    const ack = await agentApi.post(
      "/c2/api/acknowledge",
      cppAckOf(cppAgent, delivered?.identifier as string, "FULLY_APPLIED"),
      { certificate: fleet },
    );
    expect(ack.status).toBe(200);
    const operation = await consoleApi.request("GET", `/api/v1/operations/${delivered?.identifier}`, {
      token: operator,
    });
    expect(operation.json()).toMatchObject({ state: "done", ackState: "FULLY_APPLIED" });
  });
});
