import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { expect, inject } from "vitest";
import { DynamoSelectionJobStore } from "../../functions/adapters/dynamodb/selection-job-store.js";
import { AgentRoutes } from "../../functions/core/c2/routes.js";
import type { JsonObject } from "../../functions/core/json.js";
import { binaryOf } from "../../functions/core/manifests/canonical.js";
import { makeDynamoDbClient } from "../../functions/runtime/aws-clients/dynamodb.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { example } from "../common/c2-examples.js";
import type { AgentApiClient, AgentApiUnderTest } from "./agent-api-harness.js";
import type { ConsoleApiUnderTest } from "./console-api-harness.js";
import { deliveredTransferDebug, uploadBundle } from "./debug-bundles.js";
import { untilTrue } from "./until.js";

/** What a seeded tenant holds, by the ids a test needs. */
export interface SeededTenant {
  tenant: string;
  adminToken: string;
  agentIds: string[];
  className: string;
  /** The hash the tenant's agents report (shared here; real agents' differ). */
  manifestHash: string;
  /** The binary they run: a build of the tenant's own, so that no two tenants share one. */
  manifestId: string;
  certificateSerial: string;
  /** A DESCRIBE MANIFEST queued for the last agent, which no test heartbeats again. */
  operationId: string;
  /**
   * A DESCRIBE MANIFEST the second agent acknowledged, whose result (what the Java agent's acknowledgement
   * brings beside the manifest) the console serves.
   */
  resultOperationId: string;
  /** A TRANSFER DEBUG the second agent answered with a bundle, which the console lists and serves. */
  bundleOperationId: string;
  /** A flow version of the class, which its agents' manifest can run. */
  flowHash: string;
  /**
   * The version's rollout to the class, under way: its agents' manifest lists no UPDATE CONFIGURATION, so
   * it passed them all over and sent none of them anything.
   */
  rolloutId: string;
}

/** A MiNiFi Java flow.json whose one processor the Java example manifest lists. */
export const javaFlow = (name: string) => ({
  encodingVersion: { majorVersion: 2, minorVersion: 0 },
  maxTimerDrivenThreadCount: 1,
  controllerServices: [],
  rootGroup: {
    identifier: "root",
    name,
    processors: [
      {
        identifier: "generate",
        name: "Generate",
        type: "org.apache.nifi.processors.standard.GenerateFlowFile",
        bundle: { group: "org.apache.nifi", artifact: "nifi-standard-nar", version: "2.3.0" },
      },
    ],
    controllerServices: [],
    processGroups: [],
  },
});

/** What a Java agent of these tests runs beyond the example's: the flow id it reports, operations it adds. */
export interface JavaAgentRun {
  flowId?: string;
  /** Listed in its manifest after the example's and TRANSFER DEBUG. */
  operations?: JsonObject[];
}

/** The Java example's light heartbeat as the agent sends it, reporting `run.flowId` when given. */
export const heartbeatOf = (
  agentId: string,
  agentClass: string,
  hash: string,
  run: JavaAgentRun = {},
): JsonObject => {
  const heartbeat = example("java-2.3.0/heartbeat-light.json");
  const agentInfo = heartbeat.agentInfo as JsonObject;
  agentInfo.identifier = agentId;
  agentInfo.agentClass = agentClass;
  agentInfo.agentManifestHash = hash;
  heartbeat.agentId = agentId;
  heartbeat.agentClass = agentClass;
  if (run.flowId !== undefined) (heartbeat.flowInfo as JsonObject).flowId = run.flowId;
  return heartbeat;
};

/**
 * The Java example's manifest as a build of its own, named by `hash`: agents reporting one hash run one
 * build, and seeded tenants, each with a hash of its own, never share a binary. It lists TRANSFER DEBUG too,
 * as an agent with the library's operation handlers does.
 */
function manifestOf(hash: string, operations: JsonObject[] = []): JsonObject {
  const manifest = (example("java-2.3.0/ack-describe-manifest.json").agentInfo as JsonObject)
    .agentManifest as JsonObject;
  return {
    ...manifest,
    buildInfo: { ...(manifest.buildInfo as JsonObject), revision: hash },
    supportedOperations: [
      ...(manifest.supportedOperations as JsonObject[]),
      { type: "TRANSFER", properties: { DEBUG: {} } },
      ...operations,
    ],
  };
}

/** The binary of the agents `heartbeat` registers with this hash. */
const manifestIdOf = (hash: string): string => binaryOf(manifestOf(hash)).manifestId;

/** One heartbeat through the agent API with the tenant's fleet certificate; answers the DESCRIBE it gets. */
export async function heartbeat(
  agentApi: AgentApiClient,
  certificate: string,
  agentId: string,
  agentClass: string,
  hash: string,
  run: JavaAgentRun = {},
): Promise<number> {
  const response = await agentApi.post(
    AgentRoutes.heartbeat.path,
    heartbeatOf(agentId, agentClass, hash, run),
    { certificate },
  );
  if (response.status !== 200) return response.status;
  const operations = response.json().requestedOperations as { identifier: string; operation: string }[];
  const describe = operations.find((operation) => operation.operation === "DESCRIBE");
  if (describe) {
    const ack = example("java-2.3.0/ack-describe-manifest.json");
    ack.operationId = describe.identifier;
    const agentInfo = ack.agentInfo as JsonObject;
    agentInfo.identifier = agentId;
    agentInfo.agentManifestHash = hash;
    agentInfo.agentManifest = manifestOf(hash, run.operations);
    expect((await agentApi.post(AgentRoutes.acknowledge.path, ack, { certificate })).status).toBe(200);
  }
  return response.status;
}

/**
 * A tenant as the agent API and the console leave it after some use: three agents of one class that
 * heartbeated (so registry, hot state and a binary's manifest exist), the class described, an agent certificate,
 * an operation queued and one answered, a flow version published to the class and rolled out.
 */
export async function seedTenant(
  agentApi: AgentApiUnderTest,
  consoleApi: ConsoleApiUnderTest,
  tenant: string,
): Promise<SeededTenant> {
  const fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  const className = `${tenant}-pumps`;
  const manifestHash = `${tenant}-manifest-1`;
  const agentIds = [1, 2, 3].map((index) => `${tenant}-agent-${index}`);
  const adminToken = await consoleApi.token({ tenant, role: "admin" });
  for (const agentId of agentIds) {
    // On a busy machine the agent API may fail to record a heartbeat and answer 200 all the same (the agent
    // heartbeats again): heartbeat until the console knows the agent and its binary.
    await untilTrue(`${agentId} registered with its manifest`, async () => {
      expect(await heartbeat(agentApi, fleet, agentId, className, manifestHash)).toBe(200);
      const agent = await consoleApi.request("GET", `/api/v1/agents/${agentId}`, { token: adminToken });
      return agent.status === 200 && agent.json().manifestId === manifestIdOf(manifestHash);
    });
  }
  const described = await consoleApi.request("PUT", `/api/v1/classes/${className}`, {
    token: adminToken,
    // Long enough that no agent goes offline while a test runs.
    body: { description: `Pumps of ${tenant}`, heartbeatIntervalSeconds: 600 },
  });
  expect(described.status, described.body).toBe(200);
  const issued = await consoleApi.request("POST", "/api/v1/certificates", {
    token: adminToken,
    body: { kind: "agent", agentId: agentIds[0], generateKey: true },
  });
  expect(issued.status, issued.body).toBe(201);
  const queued = await consoleApi.request("POST", "/api/v1/operations", {
    token: adminToken,
    body: { agentId: agentIds[2], operation: "DESCRIBE", operand: "MANIFEST" },
  });
  expect(queued.status, queued.body).toBe(201);
  const answered = await consoleApi.request("POST", "/api/v1/operations", {
    token: adminToken,
    body: { agentId: agentIds[1], operation: "DESCRIBE", operand: "MANIFEST" },
  });
  expect(answered.status, answered.body).toBe(201);
  const bundle = await deliveredTransferDebug(consoleApi, adminToken, agentIds[1] as string, async () =>
    expect(await heartbeat(agentApi, fleet, agentIds[1] as string, className, manifestHash)).toBe(200),
  );
  const uploaded = await uploadBundle(agentApi, bundle.uploadPath, gzipSync(`logs of ${tenant}`), fleet);
  expect(uploaded.status, uploaded.body).toBe(201);
  const { flowHash, rolloutId } = await rollOut(consoleApi, adminToken, className, javaFlow(tenant));
  return {
    tenant,
    adminToken,
    agentIds,
    className,
    manifestHash,
    manifestId: manifestIdOf(manifestHash),
    certificateSerial: issued.json().serial as string,
    operationId: (queued.json().items as { operationId: string }[])[0]?.operationId as string,
    resultOperationId: (answered.json().items as { operationId: string }[])[0]?.operationId as string,
    bundleOperationId: bundle.operationId,
    flowHash,
    rolloutId,
  };
}

/** Publishes a new flow version to the class; answers its hash. */
export async function publishFlow(
  consoleApi: ConsoleApiUnderTest,
  token: string,
  className: string,
  flow: unknown,
): Promise<string> {
  const flows = `/api/v1/classes/${encodeURIComponent(className)}/flows`;
  const published = await consoleApi.request("POST", flows, { token, body: flow });
  expect(published.status, published.body).toBe(201);
  return published.json().hash as string;
}

/**
 * Publishes a flow version to the class and starts its rollout with the default plan, to the whole class
 * or to the target (`group` or `selector`, `continuous`) given.
 */
export async function rollOut(
  consoleApi: ConsoleApiUnderTest,
  token: string,
  className: string,
  flow: unknown,
  target: Record<string, unknown> = {},
): Promise<{ flowHash: string; rolloutId: string }> {
  const flowHash = await publishFlow(consoleApi, token, className, flow);
  const started = await consoleApi.request("POST", "/api/v1/rollouts", {
    token,
    body: { className, flowHash, ...target },
  });
  expect(started.status, started.body).toBe(201);
  return { flowHash, rolloutId: started.json().rolloutId as string };
}

/**
 * A continuous rollout to a selector that picks none of the class's agents, brought to `following` (its
 * class passed once): a pause, and a resume, which looks at once, move it on without the sweeper.
 */
export async function followingRollout(
  consoleApi: ConsoleApiUnderTest,
  token: string,
  className: string,
  flow: unknown,
): Promise<string> {
  const target = { selector: { labels: ["follows=nothing-yet"] }, continuous: true };
  const { rolloutId } = await rollOut(consoleApi, token, className, flow, target);
  for (const action of ["pause", "resume"]) {
    const acted = await consoleApi.request("POST", `/api/v1/rollouts/${rolloutId}/${action}`, { token });
    expect(acted.status, acted.body).toBe(200);
  }
  const following = await consoleApi.request("GET", `/api/v1/rollouts/${rolloutId}`, { token });
  expect(following.json().state).toBe("following");
  return rolloutId;
}

/** Puts an issued certificate beside the agent harness's others, so `post` can present it by name. */
export function installCertificate(
  agentApi: AgentApiUnderTest,
  name: string,
  issued: Record<string, unknown>,
): string {
  writeFileSync(path.join(agentApi.certsDir, `${name}.pem`), issued.certificatePem as string);
  writeFileSync(path.join(agentApi.certsDir, `${name}.key`), issued.privateKeyPem as string, { mode: 0o600 });
  return name;
}

/**
 * A selection job of the tenant's class, written to the table, done: what a request by selector that ran out
 * of its time leaves, once the sweeper finished it. A running one would be every sweeper run's, which other
 * test files make on the same table.
 */
export async function seedSelection(tenant: SeededTenant): Promise<string> {
  const env = inject("beaconEnv");
  const documents = DynamoDBDocumentClient.from(makeDynamoDbClient(env));
  const selectionId = `sel-${String(Date.now()).padStart(13, "0")}-${randomUUID()}`;
  try {
    await new DynamoSelectionJobStore(documents, env[EnvNames.tableName] as string).create({
      tenant: tenant.tenant,
      selectionId,
      request: { operation: "DESCRIBE", operand: "MANIFEST", selector: { agentClass: tenant.className } },
      createdBy: `${tenant.tenant}-admin`,
      createdAt: Date.now(),
      updatedAt: Date.now(),
      state: "done",
      created: 1,
      skippedCount: 0,
      skipped: [],
    });
  } finally {
    documents.destroy();
  }
  return selectionId;
}
