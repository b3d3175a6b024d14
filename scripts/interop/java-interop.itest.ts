/**
 * Interop with the real Apache NiFi MiNiFi Java C2 client (org.apache.nifi:c2-client-http 2.3.0): the
 * library's own HTTP client, heartbeat factory, DESCRIBE MANIFEST and UPDATE CONFIGURATION handlers talk to
 * the real agent-api handler behind the real mutual-TLS gateway, plain and with the library's gzip request
 * compression; flow versions and operations come from the real console-api handler.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoAgentRegistry } from "../../functions/adapters/dynamodb/agent-registry.js";
import { DynamoManifestStore } from "../../functions/adapters/dynamodb/manifest-store.js";
import { makeDynamoDbClient } from "../../functions/shared/aws-clients.js";
import { sweeperConfig } from "../../functions/shared/config.js";
import { composeSweeper } from "../../functions/sweeper/composition.js";
import { type AgentApiUnderTest, startAgentApi } from "../test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../test-support/console-api-harness.js";
import { javaFlow } from "../test-support/console-seed.js";
import {
  type AckStep,
  buildJavaDriver,
  type Compression,
  type DriverStep,
  type HeartbeatStep,
  type JavaDriverOptions,
  runJavaDriver,
  type UpdateStep,
} from "./java-client.js";

/** A cold build resolves the library and Maven's plugins into ~/.m2 first. */
const BUILD_TIMEOUT_MS = 11 * 60_000;

let api: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let manifests: DynamoManifestStore;
let registry: DynamoAgentRegistry;

beforeAll(async () => {
  await buildJavaDriver();
  api = await startAgentApi();
  consoleApi = await startConsoleApi(api);
  tenant = `t-${randomUUID().slice(0, 8)}`;
  const documents = DynamoDBDocumentClient.from(makeDynamoDbClient(api.env));
  manifests = new DynamoManifestStore(documents, api.env.BEACON_TABLE_NAME as string);
  registry = new DynamoAgentRegistry(documents, api.env.BEACON_TABLE_NAME as string);
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await consoleApi?.close();
  await api?.close();
});

function heartbeats(steps: DriverStep[]): HeartbeatStep[] {
  return steps.filter((step): step is HeartbeatStep => step.step === "heartbeat");
}

function acks(steps: DriverStep[]): AckStep[] {
  return steps.filter((step): step is AckStep => step.step === "ack");
}

/** What the driver's manifest lists: one entry per handler it has, as the agent derives it. */
const SUPPORTED = [
  { type: "DESCRIBE", operands: ["MANIFEST"] },
  { type: "UPDATE", operands: ["CONFIGURATION"] },
];

describe.each<{ compression: Compression; agentId: string }>([
  { compression: "none", agentId: "java-plain" },
  { compression: "gzip", agentId: "java-gzip" },
])("the NiFi 2.3.0 Java C2 client with compression $compression", ({ compression, agentId }) => {
  /**
   * A first run of the driver registers the agent and its manifest, which lists UPDATE CONFIGURATION;
   * then a flow version is published to its class. Returns the driver's options, an operator's token
   * and the version's hash.
   */
  async function registeredWithFlow(driverAgent: string, agentClass: string) {
    const token = await consoleApi.token({ tenant, role: "operator" });
    const options: JavaDriverOptions = {
      url: api.url,
      certsDir: api.certsDir,
      certificate: await api.issueCertificate({ tenant, agentId: driverAgent }),
      agentId: driverAgent,
      agentClass,
      manifestHash: randomBytes(64).toString("hex"),
      compression,
    };
    await runJavaDriver(options);
    const published = await consoleApi.request("POST", `/api/v1/classes/${agentClass}/flows`, {
      token,
      body: javaFlow(driverAgent),
    });
    expect(published.status, published.body).toBe(201);
    return { options, token, flowHash: published.json().hash as string };
  }

  it("is asked DESCRIBE MANIFEST, acknowledges with the manifest, then gets no operation", async () => {
    const certificate = await api.issueCertificate({ tenant, agentId });
    // Lower-case hex SHA-512 shape, as the Java agent computes it; fresh, so Beacon cannot know it yet.
    const manifestHash = randomBytes(64).toString("hex");

    const steps = await runJavaDriver({
      url: api.url,
      certsDir: api.certsDir,
      certificate,
      agentId,
      agentClass: "interop-java",
      manifestHash,
      compression,
    });

    expect(steps[0]).toMatchObject({ step: "client", library: "org.apache.nifi:c2-client-http:2.3.0" });
    const [first, second] = heartbeats(steps);
    const [ack] = acks(steps);

    // The library really sent what a Java agent sends: gzip bodies go chunked, with no Content-Length.
    const sentAs =
      compression === "gzip"
        ? { contentEncoding: "gzip", transferEncoding: "chunked", contentLength: null }
        : { contentEncoding: null, transferEncoding: null };
    for (const exchange of [first?.http, ack?.http, second?.http]) expect(exchange).toMatchObject(sentAs);

    expect(first).toMatchObject({
      agentId,
      agentManifestHash: manifestHash,
      manifestSent: false,
      parsed: true,
    });
    expect(first?.http.status).toBe(200);
    expect(first?.operations).toHaveLength(1);
    const [describeManifest] = first?.operations ?? [];
    expect(describeManifest).toMatchObject({ operation: "DESCRIBE", operand: "MANIFEST" });
    expect(describeManifest?.identifier).toEqual(expect.any(String));

    expect(acks(steps)).toHaveLength(1);
    expect(ack).toMatchObject({
      operationId: describeManifest?.identifier,
      operation: "DESCRIBE",
      operand: "MANIFEST",
      state: "FULLY_APPLIED",
      agentManifestHash: manifestHash,
      manifest: { agentType: "minifi-java", supportedOperations: SUPPORTED },
    });
    expect(ack?.http.status).toBe(200);

    expect(second).toMatchObject({ agentId, parsed: true, operations: [] });
    expect(second?.http.status).toBe(200);

    // An empty second reply alone could mean a DESCRIBE still pending; the stored manifest shows the ack landed:
    // the agent keeps its hash and its operations, the binary's content is stored once under its identity.
    const agentManifest = (await registry.get(tenant, agentId))?.manifest;
    expect(agentManifest).toMatchObject({
      hash: manifestHash,
      manifestId: expect.stringMatching(/^[0-9a-f]{64}$/),
      supportedOperations: expect.arrayContaining([
        { type: "DESCRIBE", properties: { MANIFEST: {} } },
        { type: "UPDATE", properties: { CONFIGURATION: {} } },
      ]),
    });
    const stored = JSON.parse((await manifests.read(tenant, agentManifest?.manifestId as string)) ?? "null");
    expect(stored).toMatchObject({
      agentType: "minifi-java",
      bundles: [
        {
          artifact: "nifi-standard-nar",
          componentManifest: {
            processors: [{ type: "org.apache.nifi.processors.standard.GenerateFlowFile" }],
          },
        },
      ],
    });
    expect(stored).not.toHaveProperty("supportedOperations");
  });

  it("downloads the flow version an UPDATE CONFIGURATION names, acknowledges it and reports its flow id", async () => {
    const updateAgent = `${agentId}-update`;
    const { options, token, flowHash } = await registeredWithFlow(
      updateAgent,
      `interop-flows-${compression}`,
    );
    const created = await consoleApi.request("POST", "/api/v1/operations", {
      token,
      body: { agentId: updateAgent, operation: "UPDATE", operand: "CONFIGURATION", flowHash },
    });
    expect(created.status, created.body).toBe(201);
    const [{ operationId }] = created.json().items as { operationId: string }[] as [{ operationId: string }];

    const steps = await runJavaDriver(options);
    const [first, second] = heartbeats(steps);
    const update = steps.find((step): step is UpdateStep => step.step === "update");
    const location = `${api.url}/c2/api/flows/${flowHash}/content`;
    expect(first).toMatchObject({ parsed: true, flowId: null });
    expect(first?.operations).toEqual([
      {
        identifier: operationId,
        operation: "UPDATE",
        operand: "CONFIGURATION",
        args: { location, flowId: flowHash },
      },
    ]);
    // The library's own handler fetched the flow over mutual TLS and handed the agent the very bytes published.
    expect(update).toMatchObject({
      operationId,
      http: { path: `/c2/api/flows/${flowHash}/content`, status: 200 },
      flowBytes: Buffer.byteLength(JSON.stringify(javaFlow(updateAgent))),
      flowSha256: flowHash,
      state: "FULLY_APPLIED",
    });
    expect(acks(steps)).toEqual([
      expect.objectContaining({
        operationId,
        state: "FULLY_APPLIED",
        http: expect.objectContaining({ status: 200 }),
      }),
    ]);
    expect(second).toMatchObject({ parsed: true, operations: [], flowId: flowHash });

    const operation = await consoleApi.request("GET", `/api/v1/operations/${operationId}`, { token });
    expect(operation.json()).toMatchObject({ state: "done", ackState: "FULLY_APPLIED" });
    // The heartbeat that reported the new flow id put it in the hot state the console reads.
    const agent = await consoleApi.request("GET", `/api/v1/agents/${updateAgent}`, { token });
    expect(agent.json()).toMatchObject({ agentId: updateAgent, flowId: flowHash });
  });

  it("takes a flow version published to its class through a rollout, which completes once it is healthy", async () => {
    const agentClass = `interop-rollout-${compression}`;
    const { options, token, flowHash } = await registeredWithFlow(`${agentId}-rollout`, agentClass);
    const started = await consoleApi.request("POST", "/api/v1/rollouts", {
      token,
      body: {
        className: agentClass,
        flowHash,
        plan: { canary: { count: 1 }, batchSize: 1, batchIntervalSeconds: 0, soakSeconds: 0 },
        // The driver's manifest offers the C2 handlers only, no processor types.
        allowIncompatible: true,
      },
    });
    expect(started.status, started.body).toBe(201);
    const rolloutId = started.json().rolloutId as string;
    expect(started.json()).toMatchObject({
      state: "canary",
      batches: 1,
      counts: { selected: 1, updating: 1 },
    });

    const steps = await runJavaDriver(options);
    const [first, second] = heartbeats(steps);
    expect(first?.operations).toMatchObject([
      { operation: "UPDATE", operand: "CONFIGURATION", args: { flowId: flowHash } },
    ]);
    expect(steps.find((step): step is UpdateStep => step.step === "update")).toMatchObject({
      flowSha256: flowHash,
      state: "FULLY_APPLIED",
    });
    expect(second).toMatchObject({ operations: [], flowId: flowHash });

    // The sweeper's looks: the agent soaks, is healthy (no soak asked), and the class is done.
    const sweeper = composeSweeper(sweeperConfig(api.env));
    try {
      for (let look = 0; look < 3; look++) await sweeper.rollouts.advance(tenant, rolloutId);
    } finally {
      await sweeper.close();
    }
    const rollout = await consoleApi.request("GET", `/api/v1/rollouts/${rolloutId}`, { token });
    expect(rollout.json()).toMatchObject({
      state: "completed",
      counts: { selected: 1, healthy: 1, failed: 0 },
    });
    const agentClassView = await consoleApi.request("GET", `/api/v1/classes/${agentClass}`, { token });
    expect(agentClassView.json()).toMatchObject({ flow: { target: flowHash, accepted: [flowHash] } });
  });
});
