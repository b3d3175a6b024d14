/**
 * A simulated MiNiFi agent for the load tests: its identity, the state that changes from one heartbeat
 * to the next, and the C2 messages it sends, built from the real example payloads in
 * `schemas/c2/examples` so that Beacon parses what agents really send.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { C2Operation } from "../functions/core/c2/model.js";
import { asArray, asNumber, asObject, type JsonObject } from "../functions/core/json.js";

/**
 * C++ registers with a full heartbeat (its manifest inline, ~900 KB pretty-printed), as it does after
 * every start; Java registers with a light heartbeat and sends its manifest in the DESCRIBE ack.
 */
export type Dialect = "cpp" | "java";

export interface SimulatedAgent {
  id: string;
  dialect: Dialect;
  /** Gzip request bodies: C++ sends them with Content-Length, Java chunked. */
  gzip: boolean;
  deviceId: string;
  ipAddress: string;
  /** Replaces the example's hash; undefined keeps it (the C++ example's hash matches its manifest). */
  manifestHash: string | undefined;
  startedAt: number;
  heartbeatsSent: number;
  /** The DESCRIBE MANIFEST received and not yet acknowledged. */
  pendingDescribe: C2Operation | undefined;
  describesReceived: number;
  /** Depth of each connection queue, by queue id, walked up and down between heartbeats. */
  queueDepths: Map<string, number>;
  /** Flow files processed since start, so that processor counters only grow. */
  processed: number;
  lastBulletinId: number;
}

export interface AgentOptions {
  id: string;
  dialect: Dialect;
  gzip: boolean;
  manifestHash: string | undefined;
  now: number;
}

/** Example files per dialect: what registers the agent, what it sends afterwards, how it answers DESCRIBE. */
const EXAMPLE_FILES: Record<Dialect, { registration: string; heartbeat: string; describeAck: string }> = {
  cpp: {
    registration: "cpp/heartbeat-full.json",
    heartbeat: "cpp/heartbeat-light.json",
    describeAck: "cpp/ack-describe-manifest.json",
  },
  java: {
    registration: "java-2.3.0/heartbeat-light.json",
    heartbeat: "java-2.3.0/heartbeat-light.json",
    describeAck: "java-2.3.0/ack-describe-manifest.json",
  },
};

/** Share of heartbeats that report new processor bulletins (agents mostly run quietly). */
const BULLETIN_CHANCE = 0.05;
/** Largest step of a queue's depth between two heartbeats, in flow files. */
const QUEUE_STEP = 5;
const DEFAULT_BYTES_PER_FLOW_FILE = 10;

const examples = new Map<string, JsonObject>();

/** Parsed once per process: a virtual user must not pay for reading ~900 KB of JSON. */
function example(examplesDir: string, name: string): JsonObject {
  const file = path.join(examplesDir, name);
  let parsed = examples.get(file);
  if (!parsed) {
    parsed = JSON.parse(readFileSync(file, "utf8")) as JsonObject;
    examples.set(file, parsed);
  }
  return parsed;
}

/**
 * A manifest hash of the agent's own, shaped as its dialect reports it: a SHA-512 in hex, upper-case
 * from C++, lower-case from Java. Agents of one build differ in theirs (functions/core/manifests/canonical.ts).
 */
export function ownManifestHash(dialect: Dialect): string {
  const hex = randomBytes(64).toString("hex");
  return dialect === "cpp" ? hex.toUpperCase() : hex;
}

export function createAgent(options: AgentOptions): SimulatedAgent {
  const address = randomBytes(3);
  return {
    ...options,
    deviceId: randomBytes(8).readBigUInt64BE().toString(),
    // 10.0.0.0/8, so that agents look like a private fleet behind their gateways.
    ipAddress: `10.${address[0]}.${address[1]}.${address[2]}`,
    startedAt: options.now,
    heartbeatsSent: 0,
    pendingDescribe: undefined,
    describesReceived: 0,
    queueDepths: new Map(),
    processed: 0,
    lastBulletinId: 0,
  };
}

/** The agent's next heartbeat; the first one is its registration. */
export function nextHeartbeat(agent: SimulatedAgent, examplesDir: string, now: number): JsonObject {
  const files = EXAMPLE_FILES[agent.dialect];
  const template = example(examplesDir, agent.heartbeatsSent === 0 ? files.registration : files.heartbeat);
  // Everything but the manifest is cloned and changed; the manifest is shared, never copied.
  const templateAgentInfo: JsonObject = asObject(template.agentInfo) ?? {};
  const { agentManifest, ...changingAgentInfo } = templateAgentInfo;
  const heartbeat: JsonObject & { agentInfo: JsonObject } = structuredClone({
    ...template,
    agentInfo: changingAgentInfo,
  });
  const agentInfo = heartbeat.agentInfo;
  agentInfo.identifier = agent.id;
  if (agent.manifestHash !== undefined) agentInfo.agentManifestHash = agent.manifestHash;
  if (agentManifest !== undefined) agentInfo.agentManifest = agentManifest;
  updateDevice(agent, asObject(heartbeat.deviceInfo));
  updateStatus(agent, asObject(agentInfo.status), now);
  updateFlow(agent, asObject(heartbeat.flowInfo), now);
  if (agent.dialect === "java") {
    // The Java agent stamps each heartbeat and repeats its ids at the top level.
    heartbeat.created = now;
    heartbeat.agentId = agent.id;
    heartbeat.deviceId = agent.deviceId;
  }
  agent.heartbeatsSent++;
  return heartbeat;
}

/** The DESCRIBE MANIFEST acknowledgement, carrying the manifest as the agent's dialect sends it. */
export function describeAcknowledgement(
  agent: SimulatedAgent,
  operation: C2Operation,
  examplesDir: string,
): JsonObject {
  const template = example(examplesDir, EXAMPLE_FILES[agent.dialect].describeAck);
  const templateAgentInfo = asObject(template.agentInfo) ?? {};
  const acknowledgement: JsonObject = {
    ...template,
    operationId: operation.identifier,
    agentInfo: {
      ...templateAgentInfo,
      identifier: agent.id,
      agentManifestHash: agent.manifestHash ?? templateAgentInfo.agentManifestHash,
    },
  };
  // The C++ agent repeats the operation id as the ack's own identifier.
  if ("identifier" in template) acknowledgement.identifier = operation.identifier;
  const templateDeviceInfo = asObject(template.deviceInfo);
  if (templateDeviceInfo) {
    const deviceInfo = structuredClone(templateDeviceInfo);
    updateDevice(agent, deviceInfo);
    acknowledgement.deviceInfo = deviceInfo;
  }
  return acknowledgement;
}

export const isDescribeManifest = (operation: C2Operation): boolean =>
  operation.operation.toUpperCase() === "DESCRIBE" && operation.operand?.toUpperCase() === "MANIFEST";

function updateDevice(agent: SimulatedAgent, deviceInfo: JsonObject | undefined): void {
  if (!deviceInfo) return;
  deviceInfo.identifier = agent.deviceId;
  const networkInfo = asObject(deviceInfo.networkInfo);
  if (networkInfo) {
    networkInfo.hostname = agent.id;
    networkInfo.ipAddress = agent.ipAddress;
  }
  const systemInfo = asObject(deviceInfo.systemInfo);
  if (systemInfo) {
    systemInfo.cpuLoadAverage = round(randomBetween(0.05, 2.5), 3);
    if ("cpuUtilization" in systemInfo) systemInfo.cpuUtilization = round(randomBetween(0.01, 0.6), 4);
    vary(systemInfo, "memoryUsage", 0.1);
  }
}

function updateStatus(agent: SimulatedAgent, status: JsonObject | undefined, now: number): void {
  if (!status) return;
  status.uptime = (asNumber(status.uptime) ?? 0) + (now - agent.startedAt);
  const resourceConsumption = asObject(status.resourceConsumption);
  if (resourceConsumption) {
    vary(resourceConsumption, "memoryUsage", 0.1);
    if ("cpuUtilization" in resourceConsumption) {
      resourceConsumption.cpuUtilization = round(randomBetween(0.01, 0.5), 4);
    }
  }
}

function updateFlow(agent: SimulatedAgent, flowInfo: JsonObject | undefined, now: number): void {
  if (!flowInfo) return;
  let queued = 0;
  for (const [queueId, value] of Object.entries(asObject(flowInfo.queues) ?? {})) {
    const queue = asObject(value);
    if (queue) queued += walkQueue(agent, queueId, queue);
  }
  agent.processed += Math.floor(randomBetween(0, 20));
  for (const processorStatus of asArray(flowInfo.processorStatuses)) {
    const counters = asObject(processorStatus);
    if (!counters) continue;
    counters.flowFilesOut = agent.processed;
    counters.bytesOut = agent.processed * DEFAULT_BYTES_PER_FLOW_FILE;
    counters.bytesWritten = agent.processed * DEFAULT_BYTES_PER_FLOW_FILE;
    counters.invocations = agent.processed;
  }
  flowInfo.processorBulletins = Math.random() < BULLETIN_CHANCE ? [bulletin(agent, queued, now)] : [];
}

/** Moves the queue's depth by a few flow files, within its bounds, and reports it; returns the depth. */
function walkQueue(agent: SimulatedAgent, queueId: string, queue: JsonObject): number {
  const templateSize = asNumber(queue.size) ?? 0;
  const sizeMax = asNumber(queue.sizeMax) || 10_000;
  const bytesPerFlowFile =
    templateSize > 0 ? (asNumber(queue.dataSize) ?? 0) / templateSize : DEFAULT_BYTES_PER_FLOW_FILE;
  const previous = agent.queueDepths.get(queueId) ?? templateSize;
  const depth = Math.min(sizeMax, Math.max(0, previous + Math.round(randomBetween(-QUEUE_STEP, QUEUE_STEP))));
  agent.queueDepths.set(queueId, depth);
  const dataSize = Math.round(depth * bytesPerFlowFile);
  queue.size = depth;
  queue.dataSize = dataSize;
  if ("sizeUtilization" in queue) queue.sizeUtilization = depth / sizeMax;
  const dataSizeMax = asNumber(queue.dataSizeMax);
  if ("dataSizeUtilization" in queue && dataSizeMax) queue.dataSizeUtilization = dataSize / dataSizeMax;
  return depth;
}

function bulletin(agent: SimulatedAgent, queued: number, now: number): JsonObject {
  agent.lastBulletinId++;
  return {
    id: agent.lastBulletinId,
    timestamp: now,
    level: "WARN",
    category: "Log Message",
    message: `Back pressure: ${queued} flow files queued`,
    groupId: "root",
    groupName: "MiNiFi Flow",
    groupPath: "MiNiFi Flow",
    sourceId: "load-test-source",
    sourceName: "PutRemote",
  };
}

/** Moves a numeric field by up to ±share of its value. */
function vary(object: JsonObject, key: string, share: number): void {
  const value = asNumber(object[key]);
  if (value !== undefined) object[key] = Math.round(value * (1 + randomBetween(-share, share)));
}

const randomBetween = (low: number, high: number): number => low + Math.random() * (high - low);

const round = (value: number, digits: number): number => Number(value.toFixed(digits));
