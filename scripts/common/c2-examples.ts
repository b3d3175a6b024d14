import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "../../functions/core/json.js";

/**
 * The real C2 payloads of schemas/c2/examples (see its README), and the C++ agent's heartbeat and
 * acknowledgement built from them: what the simulated agents of `npm run agents` send, and the tests too.
 */
const examplesDir = fileURLToPath(new URL("../../schemas/c2/examples/", import.meta.url));

export const exampleText = (name: string): string => readFileSync(`${examplesDir}${name}`, "utf8");
export const example = (name: string): JsonObject => JSON.parse(exampleText(name)) as JsonObject;

/** The C++ agent's example heartbeat as agent `agentId` of `agentClass`: full (with its manifest) or light. */
export function cppHeartbeatOf(agentId: string, agentClass: string, full = false): JsonObject {
  const heartbeat = full
    ? (JSON.parse(
        exampleText("cpp/heartbeat-full.json").replace("9628acfe-b9fe-11ef-a0c0-10f60a596f64", agentId),
      ) as JsonObject)
    : example("cpp/heartbeat-light.json");
  const agentInfo = heartbeat.agentInfo as JsonObject;
  agentInfo.identifier = agentId;
  agentInfo.agentClass = agentClass;
  return heartbeat;
}

/** The C++ agent's acknowledgement of an operation, in its own shape (`operation` and `identifier` included). */
export function cppAckOf(
  agentId: string,
  operationId: string,
  state: string,
  details: { details?: string; failureCause?: string } = {},
): JsonObject {
  return {
    operation: "acknowledge",
    identifier: randomUUID(),
    operationId,
    operationState: { state, ...details },
    agentInfo: { identifier: agentId },
  };
}

/** The DESCRIBE operands whose answer the C++ agent puts in its acknowledgement. */
export type CppDescribed = "CONFIGURATION" | "METRICS" | "JSTACK" | "CORECOMPONENTSTATE";

/**
 * What the C++ agent (`C2Agent::handle_describe`) answers a DESCRIBE with, beside its acknowledgement's own
 * fields: each answer a nested payload under its label, whose entries the JSON serializer writes as
 * `{name: value}`, every value a string. CONFIGURATION lists every configured property whose key does not
 * contain `pass`, here with two the agent still sends that Beacon redacts (a private key's location and a
 * deployment's own API token); METRICS the metrics node under `metrics` (or the `metricsClass` asked for);
 * JSTACK one payload per thread, labelled with its name, of its stack lines (each line both key and value);
 * CORECOMPONENTSTATE each component's state map under its UUID, one of them holding an OAuth token.
 */
const CPP_DESCRIBE_ANSWERS: Record<CppDescribed, JsonObject> = {
  CONFIGURATION: {
    configuration_options: {
      "nifi.c2.enable": "true",
      "nifi.c2.rest.url": "https://agents.beacon.test:8443/c2/api/heartbeat",
      "nifi.c2.rest.url.ack": "https://agents.beacon.test:8443/c2/api/acknowledge",
      "nifi.c2.agent.heartbeat.period": "30000",
      "nifi.c2.agent.class": "pumps",
      "nifi.security.client.certificate": "/opt/minifi/conf/agent.crt",
      "nifi.security.client.private.key": "/opt/minifi/conf/agent.key",
      "nifi.c2.rest.api.token": "eyJhbGciOiJIUzI1NiJ9.c2-agent.c2lnbmF0dXJl",
      "nifi.flowfile.repository.directory.default": "/opt/minifi/flowfile_repository",
    },
  },
  METRICS: {
    metrics: {
      RepositoryMetrics: {
        flowfile: { running: "true", full: "false", size: "0", maxSize: "0", entryCount: "0" },
        provenance: { running: "true", full: "false", size: "15872", maxSize: "0", entryCount: "42" },
      },
      QueueMetrics: {
        "GenerateFlowFile/success/LogAttribute": {
          datasize: "0",
          datasizemax: "10485760",
          queued: "0",
          queuedmax: "10000",
        },
      },
      DeviceInfoNode: { systemInfo: { vCores: "4", physicalMem: "16777216000", machineArch: "x86_64" } },
    },
  },
  JSTACK: {
    "Timer-Driven-Thread-1": {
      "#0 0x7f3e2b1c5e2d in __pthread_clockjoin_ex": "#0 0x7f3e2b1c5e2d in __pthread_clockjoin_ex",
      "#1 minifi::utils::ThreadPool::run_tasks()": "#1 minifi::utils::ThreadPool::run_tasks()",
    },
    "C2-Agent-Thread": {
      "#0 0x7f3e2b1c0f38 in nanosleep": "#0 0x7f3e2b1c0f38 in nanosleep",
      "#1 minifi::c2::C2Agent::produce()": "#1 minifi::c2::C2Agent::produce()",
    },
  },
  CORECOMPONENTSTATE: {
    corecomponentstate: {
      "5128e3c8-015a-1000-79ca-83af40ec1990": { "file.position": "1048576", "file.name": "app.log" },
      "4fe2d51d-076a-49b0-88de-5cf5adf52b8f": {
        "oauth.access.token": "ya29.a0-state-token",
        "last.run": "1732480000",
      },
    },
  },
};

export const isCppDescribed = (operand: string): operand is CppDescribed =>
  Object.hasOwn(CPP_DESCRIBE_ANSWERS, operand);

/** The C++ agent's acknowledgement of a DESCRIBE, in its own shape, its answer in it (CPP_DESCRIBE_ANSWERS). */
export function cppDescribeAckOf(agentId: string, operationId: string, operand: CppDescribed): JsonObject {
  return {
    ...cppAckOf(agentId, operationId, "FULLY_APPLIED", { details: "" }),
    ...structuredClone(CPP_DESCRIBE_ANSWERS[operand]),
  };
}

/** What the C++ example's agent reports of itself alone: its id, its flow's id and its flow's component UUIDs. */
const CPP_EXAMPLE_AGENT = {
  agentId: "9628acfe-b9fe-11ef-a0c0-10f60a596f64",
  flowId: "96273342-b9fe-11ef-a0ad-10f60a596f64",
  componentIds: ["5128e3c8-015a-1000-79ca-83af40ec1990", "4fe2d51d-076a-49b0-88de-5cf5adf52b8f"],
};

let cppFullExample: JsonObject | undefined;

/** An agent as the real ones vary: its heartbeats, its manifest hash, and its answer to DESCRIBE MANIFEST. */
export interface VariedAgent {
  agentId: string;
  manifestHash: string;
  /** A heartbeat without the manifest. */
  light(): JsonObject;
  /** A heartbeat with the manifest (C++ sends one after each start, Java by default every time). */
  full(): JsonObject;
  /** The acknowledgement of a DESCRIBE MANIFEST, the manifest in it. */
  describeAck(operationId: string): JsonObject;
}

/** A varied agent whose full heartbeat is its light one with its manifest, as both agents send it. */
function variedAgent(
  agentId: string,
  manifestHash: string,
  light: () => JsonObject,
  ownManifest: JsonObject,
  describeAck: (operationId: string) => JsonObject,
): VariedAgent {
  const full = () => {
    const heartbeat = light();
    (heartbeat.agentInfo as JsonObject).agentManifest = ownManifest;
    return heartbeat;
  };
  return { agentId, manifestHash, light, full, describeAck };
}

/**
 * A varied agent's manifest hash, shaped as the agent's (C++ upper-case hex SHA-512, Java lower-case): over
 * the example agent's hash, standing for the build, and the agent's own supportedOperations, which is all
 * that differs (hashing the ~750 KB whole again for every agent of a herd would only cost time).
 */
const manifestHashOf = (exampleMessage: JsonObject, supportedOperations: unknown, upperCase: boolean) => {
  const hex = createHash("sha512")
    .update(String((exampleMessage.agentInfo as JsonObject).agentManifestHash))
    .update(JSON.stringify(supportedOperations))
    .digest("hex");
  return upperCase ? hex.toUpperCase() : hex;
};

/**
 * Another C++ agent of the example's build, varied the way real agents vary: its own id, flow id and flow
 * component UUIDs, which its manifest's supportedOperations carries (the START/STOP operands, the UPDATE
 * PROPERTIES values of `nifi.c2.agent.identifier` and `nifi.c2.flow.id`). So its manifest hash is its own,
 * while every bundle and component definition, the binary, is the example's. The ~900 KB of bundles are
 * shared between the agents built here, not copied. Its heartbeat period is the example's "30 sec" unless
 * `heartbeatPeriod` is given; its build's version the example's unless `buildVersion` is (another binary).
 */
export function cppAgentOf(
  agentId: string,
  agentClass: string,
  heartbeatPeriod?: string,
  buildVersion?: string,
): VariedAgent {
  cppFullExample ??= example("cpp/heartbeat-full.json");
  const flowId = randomUUID();
  const componentIds = CPP_EXAMPLE_AGENT.componentIds.map(() => randomUUID());
  const ownValues = (text: string) =>
    CPP_EXAMPLE_AGENT.componentIds.reduce(
      (replaced, exampleId, index) => replaced.replaceAll(exampleId, componentIds[index] as string),
      text.replaceAll(CPP_EXAMPLE_AGENT.agentId, agentId).replaceAll(CPP_EXAMPLE_AGENT.flowId, flowId),
    );
  const { agentManifest, ...agentInfo } = cppFullExample.agentInfo as JsonObject;
  const manifest = agentManifest as JsonObject;
  const supportedOperations = JSON.parse(
    ownValues(JSON.stringify(manifest.supportedOperations)),
  ) as JsonObject[];
  const update = supportedOperations.find((entry) => entry.type === "update")?.properties as JsonObject;
  const updatable = (update.properties as JsonObject).availableProperties as JsonObject[];
  const period = updatable.find((property) => property.propertyName === "nifi.c2.agent.heartbeat.period");
  if (period && heartbeatPeriod !== undefined) period.propertyValue = heartbeatPeriod;
  updatable.push(
    { propertyName: "nifi.c2.agent.identifier", validator: "VALID", propertyValue: agentId },
    { propertyName: "nifi.c2.flow.id", validator: "VALID", propertyValue: flowId },
  );
  const buildInfo = {
    ...(manifest.buildInfo as JsonObject),
    version: buildVersion ?? (manifest.buildInfo as JsonObject).version,
  };
  const ownManifest = { ...manifest, buildInfo, supportedOperations };
  const manifestHash = manifestHashOf(cppFullExample, { buildInfo, supportedOperations }, true);
  const { deviceInfo, flowInfo, resourceInfo, operation } = cppFullExample;
  const ownText = ownValues(JSON.stringify({ operation, agentInfo, deviceInfo, flowInfo, resourceInfo }));
  const ownAgentInfo = { agentClass, agentManifestHash: manifestHash };
  // A fresh copy each time (a few KB): a caller may change what it reports, its flow for one.
  const light = (): JsonObject => {
    const heartbeat = JSON.parse(ownText) as JsonObject;
    Object.assign(heartbeat.agentInfo as JsonObject, ownAgentInfo);
    return heartbeat;
  };
  return variedAgent(agentId, manifestHash, light, ownManifest, (operationId) => ({
    operation: "acknowledge",
    identifier: randomUUID(),
    operationId,
    operationState: { state: "FULLY_APPLIED" },
    agentInfo: { ...(light().agentInfo as JsonObject), agentManifest: ownManifest },
  }));
}

/**
 * Another Java agent of the example's build, varied the way real agents vary: its manifest lists UPDATE
 * PROPERTIES with the current values of its bootstrap.conf, `c2.agent.identifier` among them, so its
 * manifest hash is its own while its bundles are the example's. It heartbeats every `heartbeatPeriod` ms.
 */
export function javaAgentOf(agentId: string, agentClass: string, heartbeatPeriod = "5000"): VariedAgent {
  const ack = example("java-2.3.0/ack-describe-manifest.json");
  const manifest = (ack.agentInfo as JsonObject).agentManifest as JsonObject;
  const availableProperties = [
    { propertyName: "c2.agent.identifier", propertyValue: agentId, validator: "VALID" },
    { propertyName: "c2.agent.class", propertyValue: agentClass, validator: "VALID" },
    {
      propertyName: "c2.agent.heartbeat.period",
      propertyValue: heartbeatPeriod,
      validator: "LONG_VALIDATOR",
    },
  ];
  const ownManifest = {
    ...manifest,
    supportedOperations: [
      ...(manifest.supportedOperations as JsonObject[]),
      { type: "UPDATE", properties: { PROPERTIES: { availableProperties } } },
    ],
  };
  const manifestHash = manifestHashOf(ack, ownManifest.supportedOperations, false);
  const agentInfo = { identifier: agentId, agentClass, agentManifestHash: manifestHash };
  const light = (): JsonObject => {
    const heartbeat = example("java-2.3.0/heartbeat-light.json");
    Object.assign(heartbeat.agentInfo as JsonObject, agentInfo);
    return { ...heartbeat, agentId, agentClass };
  };
  return variedAgent(agentId, manifestHash, light, ownManifest, (operationId) => ({
    ...ack,
    operationId,
    agentInfo: { ...(ack.agentInfo as JsonObject), ...agentInfo, agentManifest: ownManifest },
  }));
}
