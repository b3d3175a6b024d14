import { randomUUID } from "node:crypto";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { example } from "../../scripts/common/c2-examples.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeatOf } from "../../scripts/test-support/console-seed.js";
import { Keys } from "../adapters/dynamodb/keys.js";
import { AgentRoutes } from "../core/c2/routes.js";
import type { JsonObject } from "../core/json.js";
import { makeDocumentClient } from "../runtime/aws-clients/dynamodb.js";
import { consoleOperations } from "../shared/console-openapi.js";
import { EnvNames } from "../shared/env-names.js";

/**
 * What agents send that is not what agents should send (nulls, numbers and objects where text goes, entries
 * of the wrong kind, texts of a megabyte, deep nesting, fields missing or unknown) never makes the agent's
 * views unreadable: each heartbeat and acknowledgement through the real agent API is answered 200, and
 * every console route that shows the agent answers 200 with what the API document promises.
 */

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let fleet: string;
let token: string;
let unique = 0;

/** Fixed, so that a failure comes back on the next run; fast-check also reports it with the failing case. */
const SEED = 20_240_601;
/** Each run is a few agent requests and a dozen console reads, and may carry a megabyte: few runs suffice. */
const RUNS = 12;

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  tenant = `malformed-${randomUUID().slice(0, 8)}`;
  fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  token = await consoleApi.token({ tenant, role: "viewer" });
}, 120_000);

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

/** A text of up to a megabyte: the agent API takes bodies of 16 MiB. */
const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 1_000_000 }).map((length) => "x".repeat(length)) },
);
/**
 * JSON nested deeper than anything an agent sends, within the agent API's 64 levels wherever it lands: two
 * levels a step, below the heartbeat's own few.
 */
const nested = fc
  .tuple(fc.integer({ min: 1, max: 24 }), fc.jsonValue({ maxDepth: 2 }))
  .map(([depth, leaf]) =>
    Array.from({ length: depth }).reduce<unknown>((inner) => ({ deep: [inner] }), leaf),
  );
/** Anything where a value goes. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.double(),
  fc.boolean(),
  text,
  fc.jsonValue({ maxDepth: 3 }),
  nested,
);
/** An object whose fields are anything, some of them named as agents name theirs. */
const fieldsOf = (names: string[]) =>
  fc
    .tuple(fc.dictionary(fc.constantFrom(...names), junk), fc.dictionary(fc.string(), junk, { maxKeys: 3 }))
    .map(([named, extra]) => ({ ...extra, ...named }));
const listOf = (names: string[]) => fc.array(fc.oneof(junk, fieldsOf(names)), { maxLength: 12 });
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

const operationEntry = fc.oneof(
  junk,
  fieldsOf(["type", "properties"]),
  fc.record({ type: fc.string({ minLength: 1 }), properties: junk }),
);

/** A Java manifest with its fields replaced by anything, and a supportedOperations list of anything. */
const malformedManifest = fc
  .record(
    {
      agentType: junk,
      version: junk,
      buildInfo: junk,
      bundles: fc.oneof(junk, listOf(["group", "artifact", "version", "componentManifest"])),
      schedulingDefaults: junk,
      supportedOperations: fc.oneof(junk, fc.array(operationEntry, { maxLength: 15 })),
    },
    { requiredKeys: ["supportedOperations"] },
  )
  .map((fields) => ({ ...javaManifest(), ...fields }));

const heartbeatParts = fc.record({
  deviceInfo: maybe(
    fc.record(
      {
        identifier: fc.option(fc.string({ maxLength: 300 })),
        systemInfo: fieldsOf(["operatingSystem", "machineArch", "vCores", "physicalMem", "cpuUtilization"]),
        networkInfo: fieldsOf(["hostname", "ipAddress"]),
        extra: junk,
      },
      { requiredKeys: [] },
    ),
  ),
  status: maybe(
    fc.record(
      {
        uptime: junk,
        repositories: fc.dictionary(
          fc.oneof(fc.string(), text),
          fc.oneof(junk, fieldsOf(["size", "maxSize", "full", "running"])),
        ),
      },
      { requiredKeys: [] },
    ),
  ),
  flowInfo: maybe(
    fc.record(
      {
        flowId: fc.option(fc.string({ maxLength: 256 })),
        runStatus: fc.option(fc.oneof(fc.string(), text)),
        queues: fc.dictionary(
          fc.oneof(fc.string(), text),
          fc.oneof(junk, fieldsOf(["name", "size", "sizeMax"])),
        ),
        processorBulletins: listOf(["id", "level", "message", "category", "sourceName", "timestamp"]),
        processorStatuses: listOf(["id", "runStatus"]),
        versionedFlowSnapshotURI: junk,
        flowUri: junk,
      },
      { requiredKeys: [] },
    ),
  ),
  resourceInfo: maybe(fieldsOf(["hash"])),
  configurationChecksums: maybe(junk),
  extra: maybe(junk),
  /** The manifest in the heartbeat itself, or only in the DESCRIBE MANIFEST acknowledgement Beacon asks for. */
  manifestInHeartbeat: fc.boolean(),
  manifest: malformedManifest,
});

function javaManifest(): JsonObject {
  return structuredClone(
    (example("java-2.3.0/ack-describe-manifest.json").agentInfo as JsonObject).agentManifest as JsonObject,
  );
}

type HeartbeatParts = typeof heartbeatParts extends fc.Arbitrary<infer Parts> ? Parts : never;

function heartbeatWith(agentId: string, className: string, parts: HeartbeatParts): JsonObject {
  const heartbeat = heartbeatOf(agentId, className, `malformed-${unique}`);
  const agentInfo = heartbeat.agentInfo as JsonObject;
  const sections: JsonObject = {
    deviceInfo: parts.deviceInfo,
    flowInfo: parts.flowInfo,
    resourceInfo: parts.resourceInfo,
    configurationChecksums: parts.configurationChecksums,
    extra: parts.extra,
  };
  for (const [name, value] of Object.entries(sections)) if (value !== undefined) heartbeat[name] = value;
  if (parts.status !== undefined) agentInfo.status = parts.status;
  if (parts.manifestInHeartbeat) agentInfo.agentManifest = parts.manifest;
  return heartbeat;
}

const byOperationId = new Map(consoleOperations.map((operation) => [operation.operationId, operation]));

/** A console read, which must answer 200 with what the document promises for it. */
async function read(operationId: string, path: Record<string, string>, query = "") {
  const operation = byOperationId.get(operationId);
  if (!operation) throw new Error(`no operation ${operationId}`);
  const url = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(path[name] ?? ""));
  const response = await consoleApi.request("GET", `${url}${query}`, { token });
  expect(response.status, `${operationId}: ${response.body.slice(0, 500)}`).toBe(200);
  const body = response.headers.get("content-type")?.includes("json") ? response.json() : response.body;
  await expect(operation.assertResponse(200, body), operationId).resolves.toBeUndefined();
  return body as JsonObject;
}

/** Every view of the agent: its detail, the lists and class views that show it, its manifest, its history. */
async function readEveryView(agentId: string) {
  const agent = await read("getAgent", { agentId });
  const className = agent.agentClass as string;
  const q = (name: string, value: string) => `?${name}=${encodeURIComponent(value)}`;
  await read("listAgents", {}, q("class", className));
  await read("listAgents", {}, q("q", agentId));
  await read("listAgentEvents", { agentId });
  await read("listOperations", {}, q("agentId", agentId));
  await read("getClass", { className });
  await read("listClasses", {});
  await read("listRunningFlows", { className });
  await read("getFleetSummary", {});
  await read("getFleetHistory", {}, q("class", className));
  await read("listManifests", {});
  if (typeof agent.manifestId === "string") {
    await read("getManifest", { manifestId: agent.manifestId });
    await read("getManifestContent", { manifestId: agent.manifestId });
  }
  return agent;
}

/** Sends the heartbeat, answering the DESCRIBE MANIFEST Beacon asks for with `manifest`. */
async function heartbeatAndDescribe(heartbeat: JsonObject, manifest: JsonObject) {
  const response = await agentApi.post(AgentRoutes.heartbeat.path, heartbeat, { certificate: fleet });
  expect(response.status, response.body.slice(0, 500)).toBe(200);
  const operations = response.json().requestedOperations as { identifier: string; operation: string }[];
  const describe = operations.find((operation) => operation.operation === "DESCRIBE");
  if (!describe) return;
  const ack = example("java-2.3.0/ack-describe-manifest.json");
  ack.operationId = describe.identifier;
  const agentInfo = ack.agentInfo as JsonObject;
  const heartbeatInfo = heartbeat.agentInfo as JsonObject;
  agentInfo.identifier = heartbeatInfo.identifier;
  agentInfo.agentManifestHash = heartbeatInfo.agentManifestHash;
  agentInfo.agentManifest = manifest;
  const acknowledged = await agentApi.post(AgentRoutes.acknowledge.path, ack, { certificate: fleet });
  expect(acknowledged.status, acknowledged.body.slice(0, 500)).toBe(200);
  expect(acknowledged.json()).toBeTypeOf("object");
}

describe("malformed agent data", () => {
  it("is answered 200 where it arrives, and every view of its agent reads back as the document promises", async () => {
    await fc.assert(
      fc.asyncProperty(heartbeatParts, async (parts) => {
        const agentId = `${tenant}-agent-${++unique}`;
        await heartbeatAndDescribe(heartbeatWith(agentId, `${tenant}-pumps`, parts), parts.manifest);
        const agent = await readEveryView(agentId);
        // The manifest was learnt, from the heartbeat or the acknowledgement: its operations are shown.
        expect(agent.manifestId).toBeTypeOf("string");
        expect(agent.supportedOperations).toBeInstanceOf(Array);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  }, 180_000);

  it("reads back an agent whose manifest was stored before its entries were checked", async () => {
    const agentId = `${tenant}-agent-stored-before`;
    const manifest = { ...javaManifest(), supportedOperations: [{ type: "DESCRIBE" }] };
    await heartbeatAndDescribe(heartbeatOf(agentId, `${tenant}-pumps`, "stored-before"), manifest);
    const documents = makeDocumentClient(inject("beaconEnv"));
    try {
      const stored = [null, 2, { properties: {} }, "START", { type: 7 }, { type: "DESCRIBE" }];
      await documents.send(
        new UpdateCommand({
          TableName: inject("beaconEnv")[EnvNames.tableName] as string,
          Key: Keys.agent(tenant, agentId),
          UpdateExpression: "SET #manifest.supportedOperations = :stored",
          ExpressionAttributeNames: { "#manifest": "manifest" },
          ExpressionAttributeValues: { ":stored": JSON.stringify(stored) },
          ConditionExpression: "attribute_exists(#manifest)",
        }),
      );
    } finally {
      documents.destroy();
    }
    const agent = await readEveryView(agentId);
    expect(agent.supportedOperations).toEqual([{ type: "DESCRIBE" }]);
  });
});
