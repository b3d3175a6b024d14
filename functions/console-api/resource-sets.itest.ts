/**
 * A class's resource set end to end on the local stack: set through the console, pushed to a C++ agent (the
 * real C++ heartbeat fixture) as SYNC RESOURCE in its object form, the asset downloaded over mutual TLS, the
 * operation closed by the heartbeat that reports the set's digest, and an UPDATE CONFIGURATION of a flow that
 * names the asset ordered after the SYNC RESOURCE with dependsOn.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleText } from "../../scripts/common/c2-examples.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import type { JsonObject } from "../core/json.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let operator: string;
let fleet: string;
const className = "pumps";

function cppHeartbeat(agentId: string, resourceHash?: string): JsonObject {
  const heartbeat = JSON.parse(
    exampleText("cpp/heartbeat-full.json").replace("9628acfe-b9fe-11ef-a0c0-10f60a596f64", agentId),
  ) as JsonObject;
  (heartbeat.agentInfo as JsonObject).agentClass = className;
  if (resourceHash !== undefined) heartbeat.resourceInfo = { hash: resourceHash };
  return heartbeat;
}

const heartbeat = async (agentId: string, resourceHash?: string) => {
  const reply = await agentApi.post("/c2/api/heartbeat", cppHeartbeat(agentId, resourceHash), {
    certificate: fleet,
  });
  expect(reply.status, reply.body).toBe(200);
  return (reply.json().requestedOperations ?? []) as JsonObject[];
};

const operationOf = async (operationId: string) =>
  (await consoleApi.request("GET", `/api/v1/operations/${operationId}`, { token: operator })).json();

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  tenant = `sets-${randomUUID().slice(0, 8)}`;
  operator = await consoleApi.token({ tenant, role: "operator" });
  fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  for (const agentId of ["cpp-1", "cpp-2"]) await heartbeat(agentId);
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

describe("a class's resource set", () => {
  it("reaches its agents with SYNC RESOURCE, their downloads, and the heartbeat that reports its digest", async () => {
    const model = randomBytes(64 * 1024);
    const stored = await consoleApi.request("POST", "/api/v1/assets?name=pump-model.onnx", {
      token: operator,
      body: model,
      headers: { "content-type": "application/octet-stream" },
    });
    expect(stored.status, stored.body).toBe(201);
    const assetId = stored.json().assetId as string;

    const set = await consoleApi.request("PUT", `/api/v1/classes/${className}/resources`, {
      token: operator,
      body: { items: [{ assetId, path: "models" }] },
    });
    expect(set.status, set.body).toBe(201);
    const { digest, operations } = set.json() as { digest: string; operations: { agentId: string }[] };
    expect(operations.map((operation) => operation.agentId).sort()).toEqual(["cpp-1", "cpp-2"]);

    const [sync] = await heartbeat("cpp-1");
    const url = `${agentApi.url}/c2/api/assets/${assetId}/content`;
    expect(sync).toMatchObject({
      operation: "SYNC",
      operand: "RESOURCE",
      args: {
        globalHash: { digest, hashType: "SHA-256" },
        resourceList: [
          {
            resourceId: assetId,
            resourceName: "pump-model.onnx",
            resourceType: "ASSET",
            resourcePath: "models",
            digest: assetId,
            hashType: "SHA-256",
            url,
          },
        ],
      },
    });
    const download = await agentApi.get(new URL(url).pathname, { certificate: fleet });
    expect(download.status).toBe(200);
    expect(download.bytes.equals(model)).toBe(true);

    // The agent's ack is lost (agents never resend one); its heartbeats report the set's digest.
    await heartbeat("cpp-1", digest);
    expect(await operationOf(sync?.identifier as string)).toMatchObject({ state: "done" });
  });

  it("comes before an UPDATE CONFIGURATION of a flow naming its assets, which depends on its SYNC RESOURCE", async () => {
    const labels = await consoleApi.request("POST", "/api/v1/assets?name=labels.txt", {
      token: operator,
      body: Buffer.from(`${tenant} labels`),
      headers: { "content-type": "text/plain" },
    });
    const assetId = labels.json().assetId as string;
    const flow = {
      "Flow Controller": { name: "pumps" },
      Processors: [
        {
          name: "classify",
          class: "org.apache.nifi.minifi.processors.LogAttribute",
          Properties: { "Labels File": `@{asset-id:${assetId}}` },
        },
      ],
      Connections: [],
    };
    const published = await consoleApi.request("POST", `/api/v1/classes/${className}/flows`, {
      token: operator,
      body: flow,
    });
    expect(published.status, published.body).toBe(201);
    expect(published.json().assetIds).toEqual([assetId]);
    const update = { selector: { class: className }, operation: "UPDATE", operand: "CONFIGURATION" };
    const refused = await consoleApi.request("POST", "/api/v1/operations", {
      token: operator,
      body: { ...update, flowHash: published.json().hash },
    });
    expect(refused.status).toBe(409);
    expect((refused.json().error as { message: string }).message).toContain(assetId);

    const set = await consoleApi.request("PUT", `/api/v1/classes/${className}/resources`, {
      token: operator,
      body: { items: [{ assetId }] },
    });
    expect(set.status, set.body).toBe(200);
    const created = await consoleApi.request("POST", "/api/v1/operations", {
      token: operator,
      body: { ...update, flowHash: published.json().hash },
    });
    expect(created.status, created.body).toBe(201);
    const items = created.json().items as { agentId: string; operation: string; dependsOn?: string[] }[];
    const syncs = set.json().operations as { agentId: string; operationId: string }[];
    for (const agentId of ["cpp-1", "cpp-2"]) {
      const sync = syncs.find((operation) => operation.agentId === agentId);
      expect(
        items.find((item) => item.agentId === agentId && item.operation === "UPDATE")?.dependsOn,
      ).toEqual([sync?.operationId]);
    }
    // The agent is sent the SYNC RESOURCE first (with the first set's, still queued), and the update only once
    // its heartbeats report the set's digest.
    const first = await heartbeat("cpp-2");
    expect(first.length).toBeGreaterThan(0);
    expect(first.filter((operation) => operation.operation !== "SYNC")).toEqual([]);
    const { digest } = set.json() as { digest: string };
    const after = [...(await heartbeat("cpp-2", digest)), ...(await heartbeat("cpp-2", digest))];
    expect(after.map((operation) => [operation.operation, operation.operand])).toEqual([
      ["UPDATE", "CONFIGURATION"],
    ]);
  });
});
