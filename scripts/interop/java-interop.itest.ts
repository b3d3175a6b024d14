/**
 * Interop with the real Apache NiFi MiNiFi Java C2 client (org.apache.nifi:c2-client-http 2.3.0): the
 * library's own HTTP client, heartbeat factory and DESCRIBE MANIFEST, UPDATE CONFIGURATION, UPDATE
 * PROPERTIES, UPDATE ASSET, SYNC RESOURCE, START/STOP FLOW and TRANSFER DEBUG handlers talk to the real agent-api handler
 * behind the real mutual-TLS gateway, plain and with the library's gzip request compression, with the dev
 * fleet certificate (as docs/agents.md configures MiNiFi Java) and with agent certificates; flow versions,
 * assets, resource sets and operations come from the real console-api handler. The library downloads flows,
 * assets and resources from Beacon itself; the driver writes them where MiNiFi Java does and keeps its disk
 * between runs where a case needs it, as an agent does across restarts.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { Upload } from "@aws-sdk/lib-storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoAgentRegistry } from "../../functions/adapters/dynamodb/agent-registry.js";
import { DynamoAssetCatalog } from "../../functions/adapters/dynamodb/asset-catalog.js";
import { DynamoManifestStore } from "../../functions/adapters/dynamodb/manifest-store.js";
import {
  assetKey,
  CONTENT_TYPE_METADATA,
  S3AssetContent,
} from "../../functions/adapters/s3/asset-content.js";
import { makeDynamoDbClient } from "../../functions/runtime/aws-clients/dynamodb.js";
import { makeS3Client } from "../../functions/runtime/aws-clients/s3.js";
import { sweeperConfig } from "../../functions/shared/config.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { composeSweeper } from "../../functions/sweeper/composition.js";
import {
  addComponent,
  connect,
  emptyFlow,
  serialiseFlow,
  setAutoTerminated,
  setProperty,
} from "../../web/src/designer/flow-model.js";
import { untarGz } from "../common/debug-bundle-form.js";
import { type AgentApiUnderTest, startAgentApi } from "../test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../test-support/console-api-harness.js";
import { javaFlow } from "../test-support/console-seed.js";
import { downloadBundle } from "../test-support/debug-bundles.js";
import { untilTrue } from "../test-support/until.js";
import {
  type AssetStep,
  buildJavaDriver,
  type C2Urls,
  type Compression,
  type DebugStep,
  type DriverStep,
  type HeartbeatStep,
  type JavaDriverOptions,
  type PropertiesStep,
  type ResourceStep,
  runJavaDriver,
  type SyncStep,
  type UnhandledStep,
} from "./java-client.js";
import {
  acks,
  driverRollout,
  driverTakesRollout,
  expectFlowApplied,
  heartbeats,
  sweeperLooksAt,
} from "./java-rollout.js";

/** A cold build resolves the library and Maven's plugins into ~/.m2 first. */
const BUILD_TIMEOUT_MS = 11 * 60_000;
/** The run of the driver that downloads 100 MiB: its JVM, two heartbeats, the download at the library's pace. */
const LARGE_ASSET_RUN_MS = 180_000;
/**
 * How much the agent API's process may grow while it serves a 100 MiB asset. A body held whole would hold all
 * 100 MiB at once; a streamed one holds a few chunks, but the chunks it has sent stay resident until V8
 * collects them, which it does after about 64 MiB of such allocations: on a fast machine the process grows by
 * tens of MiB before the collection (+37.5 MiB measured on an idle 2-core machine, +2 MiB under load).
 */
const LARGE_ASSET_GROWTH_BOUND_MIB = 80;

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

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** What the driver's manifest lists: one entry per handler it has, as the agent derives it. */
const SUPPORTED = [
  { type: "DESCRIBE", operands: ["MANIFEST"] },
  { type: "START", operands: ["FLOW"] },
  { type: "STOP", operands: ["FLOW"] },
  { type: "SYNC", operands: ["RESOURCE"] },
  { type: "TRANSFER", operands: ["DEBUG"] },
  { type: "UPDATE", operands: ["ASSET", "CONFIGURATION", "PROPERTIES"] },
];

/**
 * docs/agents.md configures MiNiFi Java with the dev fleet certificate, whose tenant is `dev`: the library's
 * acknowledgements then name no agent, and only the operation id leads Beacon to the operation.
 */
const DEV_FLEET = { certificate: "dev-fleet", tenant: "dev" };

/** The state directories of the agents that keep their disk, dropped after the file's tests. */
const stateDirs: string[] = [];

afterAll(() => {
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A Java agent of the dev fleet certificate's tenant that keeps its disk between the driver's runs, as a real one does across restarts; its
 * first run registers it and its manifest, which lists UPDATE ASSET and SYNC RESOURCE.
 */
async function registeredAgent(
  name: string,
  c2Urls: C2Urls = "path-base",
  agentClass = `interop-${name}-${run}`,
) {
  const stateDir = mkdtempSync(path.join(tmpdir(), "beacon-java-agent-"));
  stateDirs.push(stateDir);
  const agentId = `java-${name}-${run}`;
  const options: JavaDriverOptions = {
    url: api.url,
    certsDir: api.certsDir,
    certificate: DEV_FLEET.certificate,
    agentId,
    agentClass,
    manifestHash: randomBytes(64).toString("hex"),
    compression: "gzip",
    c2Urls,
    stateDir,
  };
  const steps = await runJavaDriver(options);
  expect(steps[0]).toMatchObject({ step: "client", c2Urls });
  expect(acks(steps)).toMatchObject([{ operation: "DESCRIBE", state: "FULLY_APPLIED" }]);
  return { options, agentId, assetDir: path.join(stateDir, "asset") };
}

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
          { type: "SYNC", properties: { RESOURCE: {} } },
          {
            type: "UPDATE",
            // UPDATE PROPERTIES lists the properties it may change, with their current values.
            properties: {
              ASSET: {},
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
      const [first] = heartbeats(steps);
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
      expectFlowApplied(steps, {
        operationId,
        path: `/c2/api/flows/${flowHash}/content`,
        flowBytes: Buffer.byteLength(JSON.stringify(javaFlow(updateAgent))),
        flowSha256: flowHash,
        flowId: flowHash,
      });

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

    it("uploads a debug bundle with the library's TRANSFER DEBUG handler: done once acknowledged and stored, the gzip tar it made listed and downloadable", async () => {
      const debugAgent = `${agentId}-debug`;
      const { options, token } = await registeredWithFlow(debugAgent, `interop-debug-${agentId}`);
      const queued = await consoleApi.request("POST", "/api/v1/operations", {
        token,
        body: { agentId: debugAgent, operation: "TRANSFER", operand: "DEBUG" },
      });
      expect(queued.status, queued.body).toBe(201);
      const operationId = (queued.json().items as { operationId: string }[])[0]?.operationId as string;

      const steps = await runJavaDriver(options);
      const debug = steps.find((step): step is DebugStep => step.step === "debug");
      // One POST of the form to the target Beacon sent, which the intake took.
      expect(debug).toMatchObject({
        operationId,
        args: { target: `${api.url}/c2/debug-bundles/${encodeURIComponent(operationId)}` },
        http: { path: `/c2/debug-bundles/${encodeURIComponent(operationId)}`, status: 201 },
        state: "FULLY_APPLIED",
      });
      expect(acks(steps).find((ack) => ack.operationId === operationId)).toMatchObject({
        state: "FULLY_APPLIED",
        http: { status: 200 },
      });
      const operation = await consoleApi.request("GET", `/api/v1/operations/${operationId}`, { token });
      expect(operation.json()).toMatchObject({
        state: "done",
        confirmedBy: "bundle",
        ackState: "FULLY_APPLIED",
      });

      const listed = await consoleApi.request("GET", "/api/v1/debug-bundles?limit=100", { token });
      expect(listed.json().items).toEqual(
        expect.arrayContaining([expect.objectContaining({ operationId, agentId: debugAgent })]),
      );
      const files = untarGz((await downloadBundle(consoleApi, token, operationId)).bytes);
      expect(files.map((file) => file.name).sort()).toEqual(["bootstrap.conf", "minifi-app.log"]);
      const text = (name: string) =>
        Buffer.from(files.find((file) => file.name === name)?.bytes ?? []).toString("utf8");
      // The library's filter kept the secret-looking line out of the bundle.
      expect(text("bootstrap.conf")).toContain("c2.agent.heartbeat.period=");
      expect(text("bootstrap.conf")).not.toContain("password");
      expect(text("minifi-app.log")).toContain(`Started MiNiFi as ${debugAgent}`);
    });

    it("takes a flow version published to its class through a rollout, which completes once it is healthy", async () => {
      const agentClass = `interop-rollout-${agentId}`;
      const { options, token, flowHash } = await registeredWithFlow(`${agentId}-rollout`, agentClass);
      const started = await consoleApi.request("POST", "/api/v1/rollouts", {
        token,
        body: driverRollout(agentClass, flowHash),
      });
      expect(started.status, started.body).toBe(201);
      const rolloutId = started.json().rolloutId as string;
      expect(started.json()).toMatchObject({
        state: "canary",
        batches: 1,
        counts: { selected: 1, updating: 1 },
      });

      await driverTakesRollout(options, api.env, { tenant, rolloutId, flowHash });
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

describe("assets and resource sets with the NiFi 2.3.0 Java C2 client as docs/agents.md configures it (dev fleet certificate, c2.rest.path.base)", () => {
  const { tenant } = DEV_FLEET;
  let token: string;

  beforeAll(async () => {
    token = await consoleApi.token({ tenant, role: "operator" });
  });

  /** Bytes uploaded as an asset through the console; returns its id, the bytes' SHA-256. */
  async function uploadAsset(name: string, bytes: Buffer): Promise<string> {
    const stored = await consoleApi.request("POST", `/api/v1/assets?name=${name}`, {
      token,
      body: bytes,
      headers: { "content-type": "application/octet-stream" },
    });
    expect(stored.status, stored.body).toBe(201);
    expect(stored.json().assetId).toBe(sha256(bytes));
    return stored.json().assetId as string;
  }

  async function queue(body: Record<string, unknown>): Promise<string> {
    const created = await consoleApi.request("POST", "/api/v1/operations", { token, body });
    expect(created.status, created.body).toBe(201);
    return (created.json().items as { operationId: string }[])[0]?.operationId as string;
  }

  const operationOf = async (operationId: string) =>
    (await consoleApi.request("GET", `/api/v1/operations/${operationId}`, { token })).json();

  const stepsOf = <T extends DriverStep>(steps: DriverStep[], name: T["step"]) =>
    steps.filter((step): step is T => step.step === name);

  it("UPDATE ASSET: the library downloads the asset over mutual TLS into the asset directory and its ack closes the operation done", async () => {
    const { options, agentId, assetDir } = await registeredAgent("asset");
    const model = randomBytes(96 * 1024);
    const assetId = await uploadAsset("pump-model.onnx", model);
    const operationId = await queue({ agentId, operation: "UPDATE", operand: "ASSET", assetId });

    const steps = await runJavaDriver(options);
    const [first, second] = heartbeats(steps);
    const contentPath = `/c2/api/assets/${assetId}/content`;
    expect(first?.operations).toEqual([
      {
        identifier: operationId,
        operation: "UPDATE",
        operand: "ASSET",
        args: { file: "pump-model.onnx", url: `${api.url}${contentPath}`, forceDownload: "false" },
      },
    ]);
    expect(stepsOf<AssetStep>(steps, "asset")).toEqual([
      {
        step: "asset",
        operationId,
        args: expect.any(Object),
        http: expect.objectContaining({ path: contentPath, status: 200 }),
        file: "pump-model.onnx",
        bytes: model.length,
        sha256: assetId,
        state: "FULLY_APPLIED",
      },
    ]);
    expect(readFileSync(path.join(assetDir, "pump-model.onnx")).equals(model)).toBe(true);
    expect(acks(steps)).toEqual([
      expect.objectContaining({
        operationId,
        state: "FULLY_APPLIED",
        details: "Successfully update asset",
        http: expect.objectContaining({ status: 200 }),
      }),
    ]);
    expect(second).toMatchObject({ parsed: true, operations: [] });
    expect(await operationOf(operationId)).toMatchObject({
      state: "done",
      ackState: "FULLY_APPLIED",
      confirmedBy: "ack",
    });

    // The agent keeps a file it holds unless told to force: the library answers NO_OPERATION, which is done.
    const again = await queue({ agentId, operation: "UPDATE", operand: "ASSET", assetId });
    const kept = await runJavaDriver(options);
    expect(stepsOf<AssetStep>(kept, "asset")).toMatchObject([
      { operationId: again, http: null, file: null, state: "NO_OPERATION" },
    ]);
    expect(await operationOf(again)).toMatchObject({ state: "done", ackState: "NO_OPERATION" });
  });

  it("UPDATE ASSET of an asset deleted before the agent fetched it: Beacon answers 404, the library acks NOT_APPLIED and the operation fails", async () => {
    const { options, agentId, assetDir } = await registeredAgent("gone");
    const assetId = await uploadAsset("short-lived.bin", randomBytes(4096));
    const operationId = await queue({ agentId, operation: "UPDATE", operand: "ASSET", assetId });
    const deleted = await consoleApi.request("DELETE", `/api/v1/assets/${assetId}`, { token });
    expect(deleted.status, deleted.body).toBe(200);

    const steps = await runJavaDriver(options);
    expect(stepsOf<AssetStep>(steps, "asset")).toMatchObject([
      {
        operationId,
        http: { path: `/c2/api/assets/${assetId}/content`, status: 404 },
        file: null,
        state: "NOT_APPLIED",
      },
    ]);
    expect(existsSync(path.join(assetDir, "short-lived.bin"))).toBe(false);
    expect(acks(steps)).toMatchObject([
      { operationId, state: "NOT_APPLIED", details: "Update asset retrieval resulted in empty content" },
    ]);
    expect(await operationOf(operationId)).toMatchObject({ state: "failed", ackState: "NOT_APPLIED" });
  });

  it("SYNC RESOURCE of a class's resource set: every item downloaded, the new global hash reported, dropped items deleted", async () => {
    const { options, agentId, assetDir } = await registeredAgent("sync");
    const agentClass = options.agentClass;
    const labels = Buffer.from(`pump labels ${run}\n`);
    const model = randomBytes(128 * 1024);
    const thresholds = Buffer.from(`{"pump": 42, "run": "${run}"}`);
    const [labelsId, modelId, thresholdsId] = [
      await uploadAsset("labels.txt", labels),
      await uploadAsset("pump-model.onnx", model),
      await uploadAsset("thresholds.json", thresholds),
    ];
    const setResources = async (items: { assetId: string; path?: string }[]) => {
      const response = await consoleApi.request("PUT", `/api/v1/classes/${agentClass}/resources`, {
        token,
        body: { items },
      });
      expect([200, 201], response.body).toContain(response.status);
      return response.json() as { digest: string; operations: { operationId: string; agentId: string }[] };
    };

    const first = await setResources([{ assetId: labelsId, path: "models" }, { assetId: modelId }]);
    expect(first.operations).toMatchObject([{ agentId }]);
    const operationId = first.operations[0]?.operationId as string;

    const steps = await runJavaDriver(options);
    const [before, after] = heartbeats(steps);
    expect(before?.resourcesHash).toBeNull();
    expect(before?.operations).toMatchObject([
      { identifier: operationId, operation: "SYNC", operand: "RESOURCE" },
    ]);
    const downloads = stepsOf<ResourceStep>(steps, "resource").sort((a, b) => a.name.localeCompare(b.name));
    expect(downloads).toEqual([
      expect.objectContaining({
        resourceId: labelsId,
        action: "downloaded",
        file: "repository/models/labels.txt",
        bytes: labels.length,
        sha256: labelsId,
        http: expect.objectContaining({ path: `/c2/api/assets/${labelsId}/content`, status: 200 }),
      }),
      expect.objectContaining({
        resourceId: modelId,
        action: "downloaded",
        file: "repository/pump-model.onnx",
        bytes: model.length,
        sha256: modelId,
        http: expect.objectContaining({ path: `/c2/api/assets/${modelId}/content`, status: 200 }),
      }),
    ]);
    expect(readFileSync(path.join(assetDir, "repository", "pump-model.onnx")).equals(model)).toBe(true);
    expect(stepsOf<SyncStep>(steps, "sync")).toMatchObject([
      { operationId, state: "FULLY_APPLIED", resourcesHash: first.digest },
    ]);
    expect(acks(steps)).toMatchObject([{ operationId, state: "FULLY_APPLIED", http: { status: 200 } }]);
    // The library's heartbeat factory reports the global hash the synchronisation saved.
    expect(after).toMatchObject({ parsed: true, operations: [], resourcesHash: first.digest });
    expect(await operationOf(operationId)).toMatchObject({
      state: "done",
      ackState: "FULLY_APPLIED",
      confirmedBy: "ack",
    });
    const agent = await consoleApi.request("GET", `/api/v1/agents/${agentId}`, { token });
    expect(agent.json()).toMatchObject({ agentId, resourceHash: first.digest });

    // A new set: the agent deletes what it no longer lists, keeps what it holds and downloads the rest.
    const second = await setResources([{ assetId: modelId }, { assetId: thresholdsId, path: "config" }]);
    const resync = second.operations[0]?.operationId as string;
    const resynced = await runJavaDriver(options);
    expect(
      stepsOf<ResourceStep>(resynced, "resource").map(({ resourceId, action, file, sha256 }) => ({
        resourceId,
        action,
        file,
        sha256,
      })),
    ).toEqual(
      expect.arrayContaining([
        { resourceId: labelsId, action: "deleted", file: "repository/models/labels.txt", sha256: null },
        {
          resourceId: thresholdsId,
          action: "downloaded",
          file: "repository/config/thresholds.json",
          sha256: thresholdsId,
        },
      ]),
    );
    expect(stepsOf<ResourceStep>(resynced, "resource")).toHaveLength(2);
    expect(existsSync(path.join(assetDir, "repository", "models", "labels.txt"))).toBe(false);
    expect(heartbeats(resynced)[1]).toMatchObject({ resourcesHash: second.digest });
    expect(await operationOf(resync)).toMatchObject({ state: "done", ackState: "FULLY_APPLIED" });

    // The agent reports the set's digest, so setting the same set again sends it nothing.
    const unchanged = await setResources([{ assetId: modelId }, { assetId: thresholdsId, path: "config" }]);
    expect(unchanged).toMatchObject({ digest: second.digest, operations: [] });
  });

  /** The bucket and the catalog the agent API and the console read assets from. */
  function largeAssetStores() {
    const s3 = makeS3Client(api.env);
    return {
      s3,
      content: new S3AssetContent(s3, api.env[EnvNames.assetBucket] as string),
      catalog: new DynamoAssetCatalog(
        DynamoDBDocumentClient.from(makeDynamoDbClient(api.env)),
        api.env.BEACON_TABLE_NAME as string,
      ),
    };
  }

  /**
   * An asset of `sizeBytes` random bytes, written as the presigned upload leaves one: its bytes in the bucket,
   * sent in parts from a file (the test never holds them whole, so that the memory measured is the download's),
   * then its catalog record. Returns its id.
   */
  async function storedLargeAsset(name: string, sizeBytes: number): Promise<string> {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "beacon-large-asset-")), name);
    const hash = createHash("sha256");
    const out = createWriteStream(file);
    const CHUNK = 1024 * 1024;
    for (let written = 0; written < sizeBytes; written += CHUNK) {
      const chunk = randomBytes(Math.min(CHUNK, sizeBytes - written));
      hash.update(chunk);
      if (!out.write(chunk)) await new Promise<void>((drained) => out.once("drain", () => drained()));
    }
    await new Promise<void>((closed, failed) =>
      out.end((error?: Error | null) => (error ? failed(error) : closed())),
    );
    const assetId = hash.digest("hex");
    const { s3, catalog } = largeAssetStores();
    await new Upload({
      client: s3,
      params: {
        Bucket: api.env[EnvNames.assetBucket],
        Key: assetKey(tenant, assetId),
        Body: createReadStream(file),
        Metadata: { [CONTENT_TYPE_METADATA]: "application/octet-stream" },
      },
    }).done();
    rmSync(path.dirname(file), { recursive: true, force: true });
    await catalog.add(tenant, {
      assetId,
      name,
      sizeBytes,
      contentType: "application/octet-stream",
      createdAt: Date.now(),
      createdBy: "java-interop",
    });
    return assetId;
  }

  /** The highest resident set size of this process (the agent API's, behind the gateway) until `stop`. */
  function peakResidentSet(): { stop(): number } {
    let peak = process.memoryUsage.rss();
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 20);
    return {
      stop() {
        clearInterval(sampler);
        return Math.max(peak, process.memoryUsage.rss());
      },
    };
  }

  it(
    "SYNC RESOURCE of a 100 MB asset: streamed from the bucket to the library over mutual TLS, its digest the listed one, the agent API's memory flat",
    async () => {
      const { options, assetDir } = await registeredAgent("large");
      const sizeBytes = 100 * 1024 * 1024;
      const assetId = await storedLargeAsset("pump-weights.bin", sizeBytes);
      const set = await consoleApi.request("PUT", `/api/v1/classes/${options.agentClass}/resources`, {
        token,
        body: { items: [{ assetId }] },
      });
      expect(set.status, set.body).toBe(201);
      const [{ operationId }] = set.json().operations as [{ operationId: string }];

      const idle = process.memoryUsage.rss();
      const memory = peakResidentSet();
      const began = performance.now();
      const steps = await runJavaDriver({ ...options, timeoutMs: LARGE_ASSET_RUN_MS });
      const seconds = (performance.now() - began) / 1000;
      const peak = memory.stop();

      const [download] = stepsOf<ResourceStep>(steps, "resource");
      expect(download).toMatchObject({
        resourceId: assetId,
        action: "downloaded",
        file: "repository/pump-weights.bin",
        bytes: sizeBytes,
        sha256: assetId,
        http: expect.objectContaining({ path: `/c2/api/assets/${assetId}/content`, status: 200 }),
      });
      expect(stepsOf<SyncStep>(steps, "sync")).toMatchObject([{ operationId, state: "FULLY_APPLIED" }]);
      expect(await operationOf(operationId)).toMatchObject({ state: "done", ackState: "FULLY_APPLIED" });
      const growthMiB = (peak - idle) / 2 ** 20;
      console.info(
        `100 MiB asset: the driver's run (a JVM's start, two heartbeats, the download, its ack) took ` +
          `${seconds.toFixed(1)} s; the agent API's process: ${(idle / 2 ** 20).toFixed(0)} MiB idle, ` +
          `${(peak / 2 ** 20).toFixed(0)} MiB at its peak (+${growthMiB.toFixed(1)} MiB)`,
      );
      // Streamed, a download holds a few chunks at a time: far less than the asset, whatever the collector does.
      expect(growthMiB).toBeLessThan(LARGE_ASSET_GROWTH_BOUND_MIB);
      // The 100 MiB go: out of the class's set, then deleted with their record.
      rmSync(path.join(assetDir, "repository", "pump-weights.bin"), { force: true });
      const cleared = await consoleApi.request("PUT", `/api/v1/classes/${options.agentClass}/resources`, {
        token,
        body: { items: [] },
      });
      expect([200, 201], cleared.body).toContain(cleared.status);
      // Removed as it was stored: the console's API describes assets of its own upload's limit.
      const { catalog, content } = largeAssetStores();
      expect(await catalog.remove(tenant, assetId)).toBe("removed");
      await content.remove(tenant, assetId);
    },
    LARGE_ASSET_RUN_MS + 60_000,
  );

  it("SYNC RESOURCE to an agent configured with c2.rest.url: the library resolves no resource URL, so the agent sends no ack", async () => {
    const { options } = await registeredAgent("rest-url", "rest-url");
    const assetId = await uploadAsset("labels.txt", Buffer.from(`rest-url labels ${run}\n`));
    const set = await consoleApi.request("PUT", `/api/v1/classes/${options.agentClass}/resources`, {
      token,
      body: { items: [{ assetId }] },
    });
    expect(set.status, set.body).toBe(201);
    const [{ operationId }] = set.json().operations as [{ operationId: string }];

    const steps = await runJavaDriver(options);
    expect(stepsOf<UnhandledStep>(steps, "unhandled")).toMatchObject([
      {
        operationId,
        operation: "SYNC",
        operand: "RESOURCE",
        error: expect.stringContaining("Relative C2 urls are not supported with this configuration"),
      },
    ]);
    expect(acks(steps)).toEqual([]);
    expect(heartbeats(steps)[1]).toMatchObject({ operations: [], resourcesHash: null });
    expect(await operationOf(operationId)).toMatchObject({ state: "delivered" });
  });
});

describe("a flow built in the web console's designer, with the NiFi 2.3.0 Java C2 client (dev fleet certificate)", () => {
  it("is published in MiNiFi Java's flow.json, rolled out, and taken by the library's UPDATE CONFIGURATION handler to done", {
    timeout: 300_000,
  }, async () => {
    const { tenant } = DEV_FLEET;
    const token = await consoleApi.token({ tenant, role: "operator" });
    const agentClass = `interop-designed-${run}`;
    const options: JavaDriverOptions = {
      url: api.url,
      certsDir: api.certsDir,
      certificate: DEV_FLEET.certificate,
      agentId: `java-designed-${run}`,
      agentClass,
      manifestHash: randomBytes(64).toString("hex"),
      compression: "gzip",
    };
    // Runs of the driver register the agent and, asked for it, its manifest; a cold stack may let the very
    // first heartbeat time out, so the agent runs until it has acknowledged DESCRIBE MANIFEST.
    await untilTrue(
      "the driver's agent to register with its manifest",
      async () => acks(await runJavaDriver(options)).some((ack) => ack.operation === "DESCRIBE"),
      180_000,
    );

    // The designer's own edits and serializer, as the page runs them: GenerateFlowFile → LogAttribute.
    let ids = 0;
    const newId = () => `designed-${++ids}`;
    const empty = emptyFlow("nifi-json", agentClass);
    const generate = addComponent(
      empty,
      { kind: "processor", type: "org.apache.nifi.processors.standard.GenerateFlowFile" },
      newId,
    );
    const log = addComponent(
      setProperty(generate.flow, generate.id, "Custom Text", "designed in Beacon"),
      { kind: "processor", type: "org.apache.nifi.processors.standard.LogAttribute" },
      newId,
    );
    const connected = connect(log.flow, { id: generate.id, relationships: ["success"] }, log.id, newId);
    const { text, contentType } = serialiseFlow(setAutoTerminated(connected.flow, log.id, "success", true));
    expect(contentType).toBe("application/json");

    const published = await consoleApi.request("POST", `/api/v1/classes/${agentClass}/flows`, {
      token,
      body: Buffer.from(text),
      headers: { "content-type": contentType },
    });
    expect(published.status, published.body).toBe(201);
    expect(published.json()).toMatchObject({
      format: "nifi-json",
      processorTypes: [
        "org.apache.nifi.processors.standard.GenerateFlowFile",
        "org.apache.nifi.processors.standard.LogAttribute",
      ],
    });
    const flowHash = published.json().hash as string;
    expect(flowHash).toBe(sha256(Buffer.from(text)));

    const started = await consoleApi.request("POST", "/api/v1/rollouts", {
      token,
      body: driverRollout(agentClass, flowHash),
    });
    expect(started.status, started.body).toBe(201);
    const rolloutId = started.json().rolloutId as string;
    await driverTakesRollout(options, api.env, { tenant, rolloutId, flowHash });
    const rollout = await consoleApi.request("GET", `/api/v1/rollouts/${rolloutId}`, { token });
    expect(rollout.json()).toMatchObject({ state: "completed", counts: { selected: 1, healthy: 1 } });
    // The update operation the rollout sent is done by the library's acknowledgement.
    const operations = await consoleApi.request("GET", `/api/v1/operations?agentId=${options.agentId}`, {
      token,
    });
    expect(
      (operations.json().items as { operand: string; state: string }[]).filter(
        (operation) => operation.operand === "CONFIGURATION",
      ),
    ).toMatchObject([{ state: "done" }]);
  });
});

/** Four runs of the driver, each a JVM of its own. */
const PINNING_TIMEOUT_MS = 300_000;

describe("pinning with the NiFi 2.3.0 Java C2 client (dev fleet certificate)", () => {
  it(
    "a pinned agent keeps its version through a rollout and a catch-up, and takes the class's once unpinned",
    async () => {
      const { tenant } = DEV_FLEET;
      const token = await consoleApi.token({ tenant, role: "operator" });
      const agentClass = `interop-pinning-${run}`;
      const { options, agentId } = await registeredAgent("pinned", "path-base", agentClass);
      const call = async (method: string, route: string, body?: Record<string, unknown>) => {
        const response = await consoleApi.request(method, `/api/v1${route}`, { token, body });
        expect(response.status, response.body).toBeLessThan(300);
        return response.json();
      };
      const publish = async (name: string) =>
        (await call("POST", `/classes/${agentClass}/flows`, javaFlow(name))).hash as string;
      /** A run of the driver: the UPDATE CONFIGURATION of `flowId` its first heartbeat brings, applied, if any. */
      const runTaking = async (flowId: string | undefined, reported: string) => {
        const steps = heartbeats(await runJavaDriver(options));
        expect(steps[0]?.operations).toMatchObject(
          flowId === undefined ? [] : [{ operation: "UPDATE", operand: "CONFIGURATION", args: { flowId } }],
        );
        expect(steps.at(-1)).toMatchObject({ operations: [], flowId: reported });
      };

      // Pinned to a version it does not run: the library's handler applies the one update the pin sends.
      const first = await publish(`pinning-first-${run}`);
      expect(await call("PUT", `/agents/${agentId}/pin`, { flowHash: first })).toMatchObject({
        pinnedFlow: { flowHash: first, pinnedBy: `${tenant}-operator` },
        operation: { operation: "UPDATE", operand: "CONFIGURATION" },
      });
      await runTaking(first, first);

      // A rollout of another version passes it over; the class's target moves, catch-up leaves it be.
      const second = await publish(`pinning-second-${run}`);
      const { rolloutId } = await call("POST", "/rollouts", driverRollout(agentClass, second));
      await sweeperLooksAt(api.env, { tenant, rolloutId: rolloutId as string });
      expect(await call("GET", `/rollouts/${rolloutId}`)).toMatchObject({
        state: "completed",
        counts: { selected: 0, skipped: 1 },
      });
      expect((await call("GET", `/classes/${agentClass}`)).flow).toMatchObject({
        target: second,
        accepted: [second],
      });
      await runTaking(undefined, first);

      // Unpinned, catch-up brings it to the class's target.
      await call("DELETE", `/agents/${agentId}/pin`);
      await runTaking(second, second);
    },
    PINNING_TIMEOUT_MS,
  );
});

/** The maintenance window that opens at `opensAt` (a whole minute) in `timeZone`, as PUT /classes takes it. */
function windowOpeningAt(opensAt: number, timeZone: string, durationMinutes: number) {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    weekday: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(opensAt);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((found) => found.type === type)?.value;
  return {
    days: [part("weekday")?.toLowerCase()],
    start: `${part("hour")}:${part("minute")}`,
    durationMinutes,
  };
}

const MINUTE_MS = 60_000;
/** Six runs of the driver and the sweeper's looks between them. */
const WINDOWS_TIMEOUT_MS = 300_000;

describe("maintenance windows with the NiFi 2.3.0 Java C2 client (agent certificates, a tenant whose clocks are UTC+05:45)", () => {
  const tenant = `w-${run}`;
  // Not a whole hour from UTC: a window read in UTC, or in the machine's zone, would be open at the wrong time.
  const timeZone = "Asia/Kathmandu";
  let token: string;

  beforeAll(async () => {
    const admin = await consoleApi.token({ tenant, role: "admin" });
    const settings = await consoleApi.request("PUT", "/api/v1/settings", {
      token: admin,
      body: { timeZone },
    });
    expect(settings.status, settings.body).toBe(200);
    token = await consoleApi.token({ tenant, role: "operator" });
  });

  const call = async (method: string, route: string, body?: Record<string, unknown>) => {
    const response = await consoleApi.request(method, `/api/v1${route}`, { token, body });
    expect(response.status, response.body).toBeLessThan(300);
    return response.json();
  };

  /** An agent of a class of its own, registered by a first run of the driver. */
  async function classAgent(name: string) {
    const agentId = `java-${name}-${run}`;
    const options: JavaDriverOptions = {
      url: api.url,
      certsDir: api.certsDir,
      certificate: await api.issueCertificate({ tenant, agentId }),
      agentId,
      agentClass: `interop-${name}-${run}`,
      manifestHash: randomBytes(64).toString("hex"),
      compression: "gzip",
    };
    expect(acks(await runJavaDriver(options))).toMatchObject([
      { operation: "DESCRIBE", state: "FULLY_APPLIED" },
    ]);
    return { options, agentId };
  }

  /** The class's one window: opening an hour from now (closed), or one that opened ten minutes ago (open). */
  const windows = {
    closed: (opensAt: number) => [windowOpeningAt(opensAt, timeZone, 30)],
    open: () => [
      windowOpeningAt(Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS - 10 * MINUTE_MS, timeZone, 120),
    ],
  };
  const nextHour = () => Math.ceil(Date.now() / MINUTE_MS) * MINUTE_MS + 60 * MINUTE_MS;

  it(
    "a rollout held outside its class's window sends nothing; inside it the library's handler applies it to done",
    async () => {
      const { options, agentId } = await classAgent("windowed");
      const agentClass = options.agentClass;
      const flowHash = (await call("POST", `/classes/${agentClass}/flows`, javaFlow(agentId))).hash as string;
      const opensAt = nextHour();
      await call("PUT", `/classes/${agentClass}`, { maintenanceWindows: windows.closed(opensAt) });

      const rolloutId = (await call("POST", "/rollouts", driverRollout(agentClass, flowHash)))
        .rolloutId as string;
      const waiting = {
        state: "canary",
        waitingForWindow: new Date(opensAt).toISOString(),
        counts: { updating: 0, healthy: 0 },
      };
      expect(await call("GET", `/rollouts/${rolloutId}`)).toMatchObject(waiting);

      // While the window is closed, the sweeper's looks start no batch and heartbeat after heartbeat gets nothing.
      const closedHeartbeats: HeartbeatStep[] = [];
      for (let driverRun = 0; driverRun < 2; driverRun++) {
        await sweeperLooksAt(api.env, { tenant, rolloutId });
        closedHeartbeats.push(...heartbeats(await runJavaDriver(options)));
      }
      expect(closedHeartbeats).toHaveLength(4);
      for (const heartbeat of closedHeartbeats)
        expect(heartbeat).toMatchObject({ parsed: true, operations: [], flowId: null });
      expect(await call("GET", `/rollouts/${rolloutId}`)).toMatchObject(waiting);
      expect(await call("GET", `/operations?agentId=${agentId}&state=queued`)).toMatchObject({ items: [] });

      // The window opens: the sweeper's next look starts the batch, and the library's handler applies it.
      await call("PUT", `/classes/${agentClass}`, { maintenanceWindows: windows.open() });
      await sweeperLooksAt(api.env, { tenant, rolloutId });
      await driverTakesRollout(options, api.env, { tenant, rolloutId, flowHash });
      const rollout = await call("GET", `/rollouts/${rolloutId}`);
      expect(rollout).toMatchObject({ state: "completed", counts: { selected: 1, healthy: 1, failed: 0 } });
      expect(rollout).not.toHaveProperty("waitingForWindow");
      const items = (await call("GET", `/operations?agentId=${agentId}`)).items as { operation: string }[];
      expect(items.filter((operation) => operation.operation === "UPDATE")).toMatchObject([
        { operand: "CONFIGURATION", state: "done", ackState: "FULLY_APPLIED", confirmedBy: "ack" },
      ]);
      expect((await call("GET", `/classes/${agentClass}`)).flow).toMatchObject({
        target: flowHash,
        accepted: [flowHash],
      });
    },
    WINDOWS_TIMEOUT_MS,
  );

  it(
    "an operation held for the window reaches no heartbeat while it is closed, and the library applies it once it opens",
    async () => {
      const { options, agentId } = await classAgent("held");
      const opensAt = nextHour();
      await call("PUT", `/classes/${options.agentClass}`, { maintenanceWindows: windows.closed(opensAt) });
      const created = await call("POST", "/operations", {
        agentId,
        operation: "UPDATE",
        operand: "PROPERTIES",
        args: { "c2.agent.heartbeat.period": "1000" },
        outsideWindow: "wait",
      });
      const [{ operationId }] = created.items as [{ operationId: string }];
      expect(created.items).toMatchObject([{ state: "queued", notBefore: new Date(opensAt).toISOString() }]);

      const sweeper = composeSweeper(sweeperConfig(api.env));
      try {
        // While the window is closed, the sweeper's run leaves it held and heartbeat after heartbeat gets nothing.
        await sweeper.sweepTimeouts();
        const closedHeartbeats = heartbeats(await runJavaDriver(options));
        expect(closedHeartbeats).toHaveLength(2);
        for (const heartbeat of closedHeartbeats)
          expect(heartbeat).toMatchObject({ parsed: true, operations: [] });

        // The window opens by a change of it: the held operation follows, and the sweeper's next run releases it.
        const changed = Date.now();
        await call("PUT", `/classes/${options.agentClass}`, { maintenanceWindows: windows.open() });
        const released = Date.parse((await call("GET", `/operations/${operationId}`)).notBefore as string);
        expect(released).toBeGreaterThanOrEqual(changed);
        expect(released).toBeLessThan(opensAt);
        expect((await sweeper.sweepTimeouts()).released).toBeGreaterThan(0);
      } finally {
        await sweeper.close();
      }
      const steps = await runJavaDriver(options);
      expect(heartbeats(steps)[0]?.operations).toMatchObject([
        { identifier: operationId, operation: "UPDATE", operand: "PROPERTIES" },
      ]);
      expect(steps.find((step): step is PropertiesStep => step.step === "properties")).toMatchObject({
        operationId,
        values: { "c2.agent.heartbeat.period": "1000" },
      });
      expect(await call("GET", `/operations/${operationId}`)).toMatchObject({
        state: "done",
        ackState: "FULLY_APPLIED",
      });
    },
    WINDOWS_TIMEOUT_MS,
  );
});
