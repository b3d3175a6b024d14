/**
 * Interop with the real Apache NiFi MiNiFi Java C2 client (org.apache.nifi:c2-client-http 2.3.0): the
 * library's own HTTP client, heartbeat factory and DESCRIBE MANIFEST, UPDATE CONFIGURATION, UPDATE
 * PROPERTIES and START/STOP FLOW handlers talk to the real agent-api handler behind the real mutual-TLS
 * gateway, plain and with the library's gzip request compression, with the dev fleet certificate (as the
 * README configures MiNiFi Java) and with agent certificates; flow versions and operations come from the
 * real console-api handler.
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
  type PropertiesStep,
  runJavaDriver,
  type UpdateStep,
} from "./java-client.js";

/** A cold build resolves the library and Maven's plugins into ~/.m2 first. */
const BUILD_TIMEOUT_MS = 11 * 60_000;

let api: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let manifests: DynamoManifestStore;
let registry: DynamoAgentRegistry;
/** Keeps this run's agents and classes apart from others' in the dev fleet certificate's tenant. */
const run = randomUUID().slice(0, 8);

beforeAll(async () => {
  await buildJavaDriver();
  api = await startAgentApi();
  consoleApi = await startConsoleApi(api);
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
  { type: "START", operands: ["FLOW"] },
  { type: "STOP", operands: ["FLOW"] },
  { type: "UPDATE", operands: ["CONFIGURATION", "PROPERTIES"] },
];

/**
 * The README configures MiNiFi Java with the dev fleet certificate, whose tenant is `dev`: the library's
 * acknowledgements then name no agent, and only the operation id leads Beacon to the operation.
 */
const DEV_FLEET = { certificate: "dev-fleet", tenant: "dev" };

describe.each<{ compression: Compression; credentials: "the dev fleet certificate" | "agent certificates" }>([
  { compression: "none", credentials: "the dev fleet certificate" },
  { compression: "gzip", credentials: "the dev fleet certificate" },
  { compression: "none", credentials: "agent certificates" },
  { compression: "gzip", credentials: "agent certificates" },
])(
  "the NiFi 2.3.0 Java C2 client with compression $compression and $credentials",
  ({ compression, credentials }) => {
    const fleet = credentials === "the dev fleet certificate";
    const tenant = fleet ? DEV_FLEET.tenant : `t-${run}`;
    const agentId = `java-${compression}-${fleet ? "fleet" : "agent"}-${run}`;
    const certificateFor = (driverAgent: string) =>
      fleet ? DEV_FLEET.certificate : api.issueCertificate({ tenant, agentId: driverAgent });

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
        certificate: await certificateFor(driverAgent),
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
      const certificate = await certificateFor(agentId);
      // Lower-case hex SHA-512 shape, as the Java agent computes it; fresh, so Beacon cannot know it yet.
      const manifestHash = randomBytes(64).toString("hex");

      const steps = await runJavaDriver({
        url: api.url,
        certsDir: api.certsDir,
        certificate,
        agentId,
        agentClass: `interop-java-${run}`,
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

      // An empty second reply alone could mean a DESCRIBE still pending; the stored manifest shows the ack
      // landed: the agent keeps its hash and its operations, the binary's content is stored once under its
      // identity.
      const agentManifest = (await registry.get(tenant, agentId))?.manifest;
      const stored = JSON.parse(
        (await manifests.read(tenant, agentManifest?.manifestId as string)) ?? "null",
      );
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
      expect(agentManifest).toMatchObject({
        hash: manifestHash,
        manifestId: expect.stringMatching(/^[0-9a-f]{64}$/),
        supportedOperations: expect.arrayContaining([
          { type: "DESCRIBE", properties: { MANIFEST: {} } },
          { type: "STOP", properties: { FLOW: {} } },
          {
            type: "UPDATE",
            // UPDATE PROPERTIES lists the properties it may change, with their current values.
            properties: {
              CONFIGURATION: {},
              PROPERTIES: {
                availableProperties: expect.arrayContaining([
                  { propertyName: "c2.agent.heartbeat.period", propertyValue: "5000", validator: "VALID" },
                ]),
              },
            },
          },
        ]),
      });
    });

    it("downloads the flow version an UPDATE CONFIGURATION names, acknowledges it and reports its flow id", async () => {
      const updateAgent = `${agentId}-update`;
      const { options, token, flowHash } = await registeredWithFlow(updateAgent, `interop-flows-${agentId}`);
      const created = await consoleApi.request("POST", "/api/v1/operations", {
        token,
        body: { agentId: updateAgent, operation: "UPDATE", operand: "CONFIGURATION", flowHash },
      });
      expect(created.status, created.body).toBe(201);
      const [{ operationId }] = created.json().items as { operationId: string }[] as [
        { operationId: string },
      ];

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
          args: { location, flowId: flowHash, persist: "true" },
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
      expect(operation.json()).toMatchObject({
        state: "done",
        ackState: "FULLY_APPLIED",
        confirmedBy: "ack",
      });
      // The heartbeat that reported the new flow id put it in the hot state the console reads.
      const agent = await consoleApi.request("GET", `/api/v1/agents/${updateAgent}`, { token });
      expect(agent.json()).toMatchObject({ agentId: updateAgent, flowId: flowHash });
    });

    it("applies UPDATE PROPERTIES and STOP FLOW with the library's handlers, each done by its acknowledgement", async () => {
      const flowAgent = `${agentId}-ops`;
      const { options, token } = await registeredWithFlow(flowAgent, `interop-ops-${agentId}`);
      const queue = async (body: Record<string, unknown>) => {
        const created = await consoleApi.request("POST", "/api/v1/operations", {
          token,
          body: { agentId: flowAgent, ...body },
        });
        expect(created.status, created.body).toBe(201);
        return (created.json().items as { operationId: string }[])[0]?.operationId as string;
      };
      const properties = await queue({
        operation: "UPDATE",
        operand: "PROPERTIES",
        args: { "c2.agent.heartbeat.period": "1000" },
      });
      const stop = await queue({ operation: "STOP", operand: "FLOW" });

      const steps = await runJavaDriver(options);
      const [first, second] = heartbeats(steps);
      expect(first).toMatchObject({ parsed: true, runStatus: "RUNNING" });
      expect(first?.operations.map((operation) => operation.identifier).sort()).toEqual(
        [properties, stop].sort(),
      );
      // The library's handlers built these acknowledgements: operation id and state, no agent named.
      expect(
        acks(steps).map(({ operationId, state, agentManifestHash }) => ({
          operationId,
          state,
          agentManifestHash,
        })),
      ).toEqual(
        expect.arrayContaining([
          { operationId: properties, state: "FULLY_APPLIED", agentManifestHash: null },
          { operationId: stop, state: "FULLY_APPLIED", agentManifestHash: null },
        ]),
      );
      for (const ack of acks(steps)) expect(ack.http.status).toBe(200);
      expect(steps.find((step): step is PropertiesStep => step.step === "properties")).toMatchObject({
        operationId: properties,
        values: { "c2.agent.heartbeat.period": "1000" },
      });
      expect(second).toMatchObject({ parsed: true, operations: [], runStatus: "STOPPED" });

      for (const operationId of [properties, stop]) {
        const operation = await consoleApi.request("GET", `/api/v1/operations/${operationId}`, { token });
        expect(operation.json()).toMatchObject({
          operationId,
          state: "done",
          ackState: "FULLY_APPLIED",
          confirmedBy: "ack",
        });
      }
      const agent = await consoleApi.request("GET", `/api/v1/agents/${flowAgent}`, { token });
      expect(agent.json()).toMatchObject({ agentId: flowAgent, runStatus: "STOPPED" });
    });

    it("takes a flow version published to its class through a rollout, which completes once it is healthy", async () => {
      const agentClass = `interop-rollout-${agentId}`;
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
  },
);
