import { spawn } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pythonTool } from "../../scripts/build/python-tool.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import {
  followingRollout,
  heartbeat,
  javaFlow,
  rollOut,
  type SeededTenant,
  seedSelection,
  seedTenant,
} from "../../scripts/test-support/console-seed.js";
import { consoleOperations, openApiDocument } from "../shared/console-openapi.js";

const openApiPath = fileURLToPath(new URL("../../schemas/console/openapi.json", import.meta.url));
/** Test cases per operation and phase: with 45 operations the run stays within a couple of minutes. */
const MAX_EXAMPLES = 50;
const EXAMPLE_AGENT_ID = (
  openApiDocument.paths["/api/v1/operations"].post.requestBody.content["application/json"].example as {
    agentId: string;
  }
).agentId;
/** The flow version the document's flow routes name in their examples: its upload example, published. */
const { paths, components } = openApiDocument;
const EXAMPLE_FLOW =
  paths["/api/v1/classes/{className}/flows"].post.requestBody.content["application/json"].example;
const EXAMPLE_FLOW_CLASS = components.parameters.FlowClassName.example;
const EXAMPLE_PARAMETER = components.parameters.ParameterName.example;
/** The parameter the delete routes remove, so that the reads keep the document's example one. */
const DELETED_PARAMETER = "deleted-by-schemathesis";
/** The agent the pin route pins to the version it runs. */
const PINNED_AGENT_ID = "pinned-by-schemathesis";
/** Fixed, so a failure found once is found again. */
const SEED = 20261121;

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: SeededTenant;
let reportDir: string;
let schemathesis: string;
/** The rollout each rollout route is sent to: ids the document cannot give examples of, as a rollout makes its own. */
let rolloutIds: Record<string, string>;
/** An adoption of the flow the document's adoption example names, which its read is sent to. */
let adoptionId: string;
/** An asset of its own for the delete route, so that the reads keep the document's example asset. */
let deletedAssetId: string;
/** The subscription the subscription routes are sent to (one to a receiver on this machine), and one to delete. */
let subscriptionIds: Record<string, string>;

beforeAll(async () => {
  schemathesis = pythonTool("schemathesis", "st");
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  tenant = await seedTenant(agentApi, consoleApi, `st-${randomUUID().slice(0, 6)}`);
  // The agent the document's example operation request names, so that its examples phase can succeed.
  const fleet = await agentApi.issueCertificate({ tenant: tenant.tenant, fleet: true });
  expect(await heartbeat(agentApi, fleet, EXAMPLE_AGENT_ID, tenant.className, tenant.manifestHash)).toBe(200);
  const published = await consoleApi.request("POST", `/api/v1/classes/${EXAMPLE_FLOW_CLASS}/flows`, {
    token: tenant.adminToken,
    body: EXAMPLE_FLOW,
  });
  expect(published.json().hash).toBe(components.parameters.FlowHash.example);
  // An agent of the example class running the flow the adoption example names, and an adoption of it.
  const adoption =
    paths["/api/v1/classes/{className}/adoptions"].post.requestBody.content["application/json"].example;
  const source = await heartbeat(
    agentApi,
    fleet,
    "adoption-source-1",
    EXAMPLE_FLOW_CLASS,
    tenant.manifestHash,
    {
      flowId: adoption.flowId,
    },
  );
  expect(source).toBe(200);
  const adopted = await consoleApi.request("POST", `/api/v1/classes/${EXAMPLE_FLOW_CLASS}/adoptions`, {
    token: tenant.adminToken,
    body: adoption,
  });
  expect(adopted.status, adopted.body).toBe(201);
  adoptionId = adopted.json().adoptionId as string;
  // The asset the document's asset routes name: its upload example, stored.
  const assetUpload = paths["/api/v1/assets"].post;
  const stored = await consoleApi.request(
    "POST",
    `/api/v1/assets?name=${components.parameters.AssetName.example}`,
    {
      token: tenant.adminToken,
      body: Buffer.from(assetUpload.requestBody.content["application/octet-stream"].example),
      headers: { "content-type": "application/octet-stream" },
    },
  );
  expect(stored.json().assetId).toBe(components.parameters.AssetId.example);
  const deletable = await consoleApi.request("POST", "/api/v1/assets?name=deleted-by-schemathesis.bin", {
    token: tenant.adminToken,
    body: Buffer.from(`${tenant.tenant} deletable`),
    headers: { "content-type": "application/octet-stream" },
  });
  deletedAssetId = deletable.json().assetId as string;
  // The example class's resource set, which its reads name, holds the example asset.
  const resources = await consoleApi.request("PUT", `/api/v1/classes/${EXAMPLE_FLOW_CLASS}/resources`, {
    token: tenant.adminToken,
    body: paths["/api/v1/classes/{className}/resources"].put.requestBody.content["application/json"].example,
  });
  expect(resources.status, resources.body).toBe(201);
  // The example parameter set for the example class and the example agent, and one of each to delete.
  const parameterValue =
    paths["/api/v1/classes/{className}/parameters/{name}"].put.requestBody.content["application/json"]
      .example;
  for (const holder of [`classes/${EXAMPLE_FLOW_CLASS}`, `agents/${EXAMPLE_AGENT_ID}`]) {
    for (const name of [EXAMPLE_PARAMETER, DELETED_PARAMETER]) {
      const valued = await consoleApi.request("PUT", `/api/v1/${holder}/parameters/${name}`, {
        token: tenant.adminToken,
        body: parameterValue,
      });
      expect(valued.status, valued.body).toBe(201);
    }
  }
  // Each action gets a rollout its first request can carry out; the reads get the seeded one.
  const fresh = async (label: string) => {
    const className = `${tenant.className}-${label}`;
    return (await rollOut(consoleApi, tenant.adminToken, className, javaFlow(className))).rolloutId;
  };
  const [pause, resume, abort] = await Promise.all([fresh("pause"), fresh("resume"), fresh("abort")]);
  const finishClass = `${tenant.className}-finish`;
  const finish = await followingRollout(consoleApi, tenant.adminToken, finishClass, javaFlow(finishClass));
  const paused = await consoleApi.request("POST", `/api/v1/rollouts/${resume}/pause`, {
    token: tenant.adminToken,
  });
  expect(paused.json().state).toBe("paused");
  // Rollouts awaiting approval, created by another operator than the one whose token the run carries.
  const creator = await consoleApi.token({ tenant: tenant.tenant, role: "operator", subject: "st-creator" });
  const awaiting = async (label: string) => {
    const className = `${tenant.className}-${label}`;
    const gated = await consoleApi.request("PUT", `/api/v1/classes/${className}`, {
      token: tenant.adminToken,
      body: { requireApproval: true },
    });
    expect(gated.status, gated.body).toBe(201);
    const waiting = await rollOut(consoleApi, creator, className, javaFlow(className));
    return waiting.rolloutId;
  };
  const [approve, refuse] = await Promise.all([awaiting("approve"), awaiting("refuse")]);
  rolloutIds = {
    getRollout: tenant.rolloutId,
    listRolloutAgents: tenant.rolloutId,
    pauseRollout: pause,
    resumeRollout: resume,
    abortRollout: abort,
    finishRollout: finish,
    approveRollout: approve,
    refuseRollout: refuse,
  };
  // An agent of the example class running its example version, which a pin without a version keeps it on.
  const pinnable = await heartbeat(
    agentApi,
    fleet,
    PINNED_AGENT_ID,
    EXAMPLE_FLOW_CLASS,
    tenant.manifestHash,
    {
      flowId: components.parameters.FlowHash.example,
    },
  );
  expect(pinnable).toBe(200);
  const receiver = await consoleApi.startReceiver();
  const subscribe = async () => {
    const created = await consoleApi.request("POST", "/api/v1/webhooks", {
      token: tenant.adminToken,
      body: { url: receiver.url, eventTypes: ["agent.*"] },
    });
    expect(created.status, created.body).toBe(201);
    return created.json().subscriptionId as string;
  };
  const [kept, deleted] = [await subscribe(), await subscribe()];
  subscriptionIds = {
    getSubscription: kept,
    testSubscription: kept,
    enableSubscription: kept,
    listWebhookDeliveries: kept,
    deleteSubscription: deleted,
  };
  reportDir = mkdtempSync(path.join(tmpdir(), "beacon-schemathesis-"));
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
  if (reportDir) rmSync(reportDir, { recursive: true, force: true });
});

/** Response status codes per operation, from Schemathesis's event stream. */
function statusesByOperation(events: string): Map<string, number[]> {
  const statuses = new Map<string, number[]>();
  for (const line of events.split("\n").filter(Boolean)) {
    const finished = (JSON.parse(line) as { ScenarioFinished?: ScenarioFinished }).ScenarioFinished;
    if (!finished) continue;
    const { label, interactions = {} } = finished.recorder;
    const codes = statuses.get(label) ?? [];
    for (const interaction of Object.values(interactions)) {
      if (interaction.response) codes.push(interaction.response.status_code);
    }
    statuses.set(label, codes);
  }
  return statuses;
}

interface ScenarioFinished {
  recorder: { label: string; interactions?: Record<string, { response?: { status_code: number } }> };
}

/** Runs the CLI without blocking the event loop: the console it tests answers from this process. */
function run(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // Schemathesis keeps a cache in its working directory: the report folder, not the repository.
    const child = spawn(command, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (exitCode) => resolve({ exitCode, output }));
  });
}

const SCHEMATHESIS_TIMEOUT_MS = 15 * 60_000;

/** An upload in parts of bytes of its own, started by the tenant, its one part sent or not: its id. */
async function startedUpload(partSent: boolean): Promise<string> {
  const bytes = `schemathesis-${randomUUID()}`;
  const started = await consoleApi.request("POST", "/api/v1/assets/uploads", {
    token: tenant.adminToken,
    body: {
      name: "schemathesis.bin",
      sizeBytes: Buffer.byteLength(bytes),
      sha256: createHash("sha256").update(bytes).digest("hex"),
      contentType: "application/octet-stream",
    },
  });
  expect(started.status, started.body).toBe(201);
  const { uploadId, parts } = started.json() as { uploadId: string; parts: { url: string }[] };
  if (partSent) {
    const put = await fetch(parts[0]?.url as string, { method: "PUT", body: bytes });
    expect(put.status, await put.text()).toBe(200);
  }
  return uploadId;
}

describe("Schemathesis against the OpenAPI document, on the local stack", () => {
  it(
    "finds no 5xx and no response that breaks the document",
    async () => {
      const ndjson = path.join(reportDir, "events.ndjson");
      const config = path.join(reportDir, "schemathesis.toml");
      /** Operation, path parameter, value. */
      const parameters: [string, string, string][] = [
        ...Object.entries(rolloutIds).map(([operationId, id]): [string, string, string] => [
          operationId,
          "rolloutId",
          id,
        ]),
        ["deleteAsset", "assetId", deletedAssetId],
        // Upload ids are made by starting an upload: one to abort, one with its bytes sent to complete, one to sign.
        ["abortAssetUpload", "uploadId", await startedUpload(false)],
        ["completeAssetUpload", "uploadId", await startedUpload(true)],
        ["signAssetUploadParts", "uploadId", await startedUpload(false)],
        ["getOperationSelection", "selectionId", await seedSelection(tenant)],
        ["getAdoption", "adoptionId", adoptionId],
        // The example operation is queued, without a result: the seeded one that has one.
        ["getOperationResult", "operationId", tenant.resultOperationId],
        // The example operation has no bundle either: the seeded TRANSFER DEBUG that has one.
        ["getDebugBundle", "operationId", tenant.bundleOperationId],
        ["downloadDebugBundle", "operationId", tenant.bundleOperationId],
        // The agent routes of parameters name the example agent, which has values.
        ...["listAgentParameters", "getAgentParameter", "putAgentParameter", "deleteAgentParameter"].map(
          (operationId): [string, string, string] => [operationId, "agentId", EXAMPLE_AGENT_ID],
        ),
        ["pinAgent", "agentId", PINNED_AGENT_ID],
        ["deleteClassParameter", "name", DELETED_PARAMETER],
        ["deleteAgentParameter", "name", DELETED_PARAMETER],
        ...Object.entries(subscriptionIds).map(([operationId, id]): [string, string, string] => [
          operationId,
          "subscriptionId",
          id,
        ]),
      ];
      const byOperation = new Map<string, string[]>();
      for (const [operationId, name, value] of parameters)
        byOperation.set(operationId, [...(byOperation.get(operationId) ?? []), `${name} = "${value}"`]);
      writeFileSync(
        config,
        [...byOperation]
          .map(
            ([operationId, values]) =>
              `[[operations]]\ninclude-operation-id = "${operationId}"\nparameters = { ${values.join(", ")} }\n`,
          )
          .join("\n"),
      );
      const { exitCode, output } = await run(
        schemathesis,
        [
          "--config-file",
          config,
          "run",
          openApiPath,
          "--url",
          consoleApi.url,
          "--header",
          `Authorization: Bearer ${tenant.adminToken}`,
          "--checks",
          "not_a_server_error,response_schema_conformance",
          "--phases",
          "examples,coverage,fuzzing",
          "--max-examples",
          String(MAX_EXAMPLES),
          "--seed",
          String(SEED),
          // One worker: Hypothesis describes its strategies by parsing source, which Python 3.11 cannot do in threads.
          "--workers",
          "1",
          "--request-timeout",
          "10",
          "--report",
          "ndjson",
          "--report-ndjson-path",
          ndjson,
        ],
        reportDir,
      );
      expect(exitCode, output).toBe(0);
      // A run refused at the door or on an empty tenant would pass too: every operation must have succeeded.
      const statuses = statusesByOperation(readFileSync(ndjson, "utf8"));
      // A bundle's download succeeds as a redirect to its bytes.
      const success = (code: number) => (code >= 200 && code < 300) || code === 302;
      const succeeded = [...statuses].filter(([, codes]) => codes.some(success));
      const labels = new Set(succeeded.map(([operation]) => operation));
      const neverSucceeded = [...statuses.keys()].filter((operation) => !labels.has(operation));
      expect(neverSucceeded, "operations without a 2xx").toEqual([]);
      expect(succeeded).toHaveLength(consoleOperations.length);
      const requests = [...statuses.values()].reduce((total, codes) => total + codes.length, 0);
      console.log(
        `schemathesis: ${/(\d+) generated, \d+ passed/.exec(output)?.[0] ?? "?"}, ${requests} requests`,
      );
      // Bounded by the examples per operation, not by time: on a machine busy with other suites the same
      // requests take several times as long.
    },
    SCHEMATHESIS_TIMEOUT_MS,
  );
});
