/**
 * The Artillery processor of the C2 scenarios. Every virtual user is one MiNiFi agent
 * (simulated-agent.ts) talking to the agent API over mutual TLS with a client certificate.
 *
 * Variables: the scenario's own (`javaShare`, `gzipShare`) and those `npm run loadtest` passes with
 * --variables (`runId`, `javaManifestHash`, `certsDir`, `certificate`, `examplesDir`).
 *
 * run-scenario.ts bundles this file into one ES module for Artillery. Async hooks are awaited; a hook
 * that throws fails its virtual user and counts as an error in the report (errors.<message>), which is
 * how these hooks assert on replies.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { C2Operation } from "../functions/core/c2/model.js";
import { asArray, asObject, asString, type JsonObject } from "../functions/core/json.js";
import { sampleGeneratorDelay } from "./generator-delay.js";
import {
  createAgent,
  type Dialect,
  describeAcknowledgement,
  isDescribeManifest,
  nextHeartbeat,
  ownManifestHash,
  type SimulatedAgent,
} from "./simulated-agent.js";

/** The parts of Artillery's hook arguments these hooks use (Artillery 2.0 ships no types). */
interface VirtualUser {
  vars: Record<string, unknown>;
}

interface MetricEvents {
  emit(type: "counter" | "histogram", name: string, value: number): void;
}

/** Options for `got`, which Artillery's HTTP engine sends every request with. */
interface RequestParams {
  headers?: Record<string, string>;
  body?: Buffer | string;
  https?: Record<string, unknown>;
}

interface Response {
  statusCode: number;
  body: string;
  /** got's timings; firstByte is what Artillery reports as http.response_time. */
  timings: { phases: { firstByte?: number } };
}

/** The request headers each agent sends with every C2 message (PROTOCOL.md, Transport). */
const DIALECT_HEADERS: Record<Dialect, Record<string, string>> = {
  cpp: { "content-type": "application/json" },
  java: {
    "content-type": "application/json; charset=utf-8",
    "accept-encoding": "gzip",
    "user-agent": "okhttp/4.12.0",
  },
};

/** TLS material in the form got takes it, read once per certificate rather than once per request. */
const clientCertificates = new Map<string, Record<string, Buffer>>();

/** Scenario-level beforeRequest: mutual TLS. Beacon's gateway trusts the CA and reads the tenant off the certificate. */
export async function useClientCertificate(request: RequestParams, user: VirtualUser): Promise<void> {
  const certsDir = variable(user, "certsDir");
  const name = variable(user, "certificate");
  const cacheKey = path.join(certsDir, name);
  let tls = clientCertificates.get(cacheKey);
  if (!tls) {
    tls = {
      certificateAuthority: readFileSync(path.join(certsDir, "ca.pem")),
      certificate: readFileSync(path.join(certsDir, `${name}.pem`)),
      key: readFileSync(path.join(certsDir, `${name}.key`)),
    };
    clientCertificates.set(cacheKey, tls);
  }
  // A new object: Artillery may share the one it built from config.tls between requests.
  request.https = { ...request.https, ...tls };
}

/**
 * beforeScenario: the virtual user becomes a new agent of the dialect and encoding its shares pick. In the
 * callback form: Artillery wraps a scenario step in util.promisify, and an async one, returning a Promise
 * there, makes Node 22 warn (DEP0174) in every Artillery process.
 */
export function startAgent(user: VirtualUser, events: MetricEvents, done: () => void): void {
  const dialect: Dialect = Math.random() < Number(user.vars.javaShare ?? 0) ? "java" : "cpp";
  user.vars.agent = createAgent({
    // The run id keeps each run's agents new to Beacon, so every run registers its whole fleet.
    id: `lt-${variable(user, "runId")}-${randomBytes(6).toString("hex")}`,
    dialect,
    gzip: Math.random() < Number(user.vars.gzipShare ?? 0),
    // A fleet of one class: Java agents of one run share a manifest hash that is new to Beacon, so they get
    // DESCRIBE; C++ agents keep their example's. New agents of the registration profile have each their own.
    manifestHash:
      Number(user.vars.manifestHashPerAgent ?? 0) === 1
        ? ownManifestHash(dialect)
        : dialect === "java"
          ? variable(user, "javaManifestHash")
          : undefined,
    now: Date.now(),
  });
  events.emit("counter", `beacon.agents.${dialect}`, 1);
  done();
}

/** beforeRequest of POST /c2/api/heartbeat. */
export async function prepareHeartbeat(
  request: RequestParams,
  user: VirtualUser,
  events: MetricEvents,
): Promise<void> {
  const agent = agentOf(user);
  const heartbeat = nextHeartbeat(agent, variable(user, "examplesDir"), Date.now());
  setBody(request, agent, heartbeat);
  events.emit("counter", `beacon.heartbeats.${agent.dialect}`, 1);
  sampleGeneratorDelay((name, value) => events.emit("histogram", name, value));
  if (asObject(heartbeat.agentInfo)?.agentManifest !== undefined) {
    events.emit("counter", "beacon.heartbeats.with_manifest", 1);
  }
}

/**
 * afterResponse of POST /c2/api/heartbeat: 200 with a JSON `requestedOperations` array, and at most
 * one DESCRIBE MANIFEST in the agent's life, which it then owes an acknowledgement.
 */
export async function readHeartbeatReply(
  _request: RequestParams,
  response: Response,
  user: VirtualUser,
  events: MetricEvents,
): Promise<void> {
  if (response.statusCode !== 200) throw new Error(`heartbeat answered ${response.statusCode}`);
  const agent = agentOf(user);
  // First sight (registration, for C++ with a ~900 KB manifest) apart from the steady heartbeats after it.
  const firstByte = response.timings.phases.firstByte;
  if (firstByte !== undefined) {
    const kind = agent.heartbeatsSent === 1 ? "first_heartbeat" : "steady_heartbeat";
    events.emit("histogram", `beacon.response_time.${kind}`, firstByte);
  }
  for (const operation of requestedOperations(response.body)) {
    if (!isDescribeManifest(operation)) {
      // The simulated agents perform DESCRIBE only; others are left unacknowledged, as by an agent without a handler.
      events.emit("counter", "beacon.operations.unhandled", 1);
      continue;
    }
    events.emit("counter", "beacon.describe_manifest.received", 1);
    agent.describesReceived++;
    if (agent.describesReceived > 1) throw new Error("DESCRIBE MANIFEST asked twice of one agent");
    agent.pendingDescribe = operation;
  }
}

/** ifTrue of POST /c2/api/acknowledge: Artillery passes the virtual user's variables. */
export function hasPendingDescribe(vars: Record<string, unknown>): boolean {
  return (vars.agent as SimulatedAgent | undefined)?.pendingDescribe !== undefined;
}

/** beforeRequest of POST /c2/api/acknowledge: the manifest, in the agent's dialect. */
export async function prepareDescribeAcknowledgement(
  request: RequestParams,
  user: VirtualUser,
): Promise<void> {
  const agent = agentOf(user);
  const operation = agent.pendingDescribe;
  if (!operation) throw new Error("no DESCRIBE MANIFEST to acknowledge");
  setBody(request, agent, describeAcknowledgement(agent, operation, variable(user, "examplesDir")));
}

/** afterResponse of POST /c2/api/acknowledge. Agents ignore the body; the status is what Beacon promises. */
export async function readDescribeAcknowledgementReply(
  _request: RequestParams,
  response: Response,
  user: VirtualUser,
  events: MetricEvents,
): Promise<void> {
  if (response.statusCode !== 200) throw new Error(`acknowledgement answered ${response.statusCode}`);
  agentOf(user).pendingDescribe = undefined;
  events.emit("counter", "beacon.describe_manifest.acknowledged", 1);
}

/** Encodes a message as the agent's dialect does: C++ pretty-prints, Java is compact; either may gzip. */
function setBody(request: RequestParams, agent: SimulatedAgent, message: JsonObject): void {
  const json = agent.dialect === "cpp" ? JSON.stringify(message, null, 4) : JSON.stringify(message);
  const headers = { ...request.headers, ...DIALECT_HEADERS[agent.dialect] };
  if (agent.gzip) {
    headers["content-encoding"] = "gzip";
    // Java streams its gzip body chunked, without Content-Length; got leaves the length out when told so.
    if (agent.dialect === "java") headers["transfer-encoding"] = "chunked";
  }
  request.headers = headers;
  // A Buffer, not a string or `json`: Artillery would scan a string body for {{ }} templates.
  request.body = agent.gzip ? gzipSync(json) : Buffer.from(json);
}

function requestedOperations(body: string): C2Operation[] {
  let reply: JsonObject | undefined;
  try {
    reply = asObject(JSON.parse(body));
  } catch {
    throw new Error("heartbeat reply is not JSON");
  }
  if (!Array.isArray(reply?.requestedOperations)) {
    throw new Error("heartbeat reply has no requestedOperations array");
  }
  return asArray(reply.requestedOperations).map((value) => {
    const operation = asObject(value);
    const identifier = asString(operation?.identifier);
    const name = asString(operation?.operation);
    if (identifier === undefined || name === undefined) {
      throw new Error("requested operation without identifier or operation");
    }
    return { identifier, operation: name, operand: asString(operation?.operand) };
  });
}

function agentOf(user: VirtualUser): SimulatedAgent {
  const agent = user.vars.agent as SimulatedAgent | undefined;
  if (!agent) throw new Error("the scenario must start with beforeScenario: startAgent");
  return agent;
}

function variable(user: VirtualUser, name: string): string {
  const value = user.vars[name];
  if (typeof value !== "string" || value === "") {
    throw new Error(`variable ${name} is not set: run the scenario with npm run loadtest`);
  }
  return value;
}
