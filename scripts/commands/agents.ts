/**
 * `npm run agents`: a small fleet of simulated MiNiFi C++ agents against the local stack, to watch the
 * control loop work without real agents. Each agent heartbeats over mutual TLS with the dev fleet
 * certificate (its manifest in the first heartbeat; one build, each agent with a manifest hash of its own,
 * as real agents have), carries out what Beacon asks as the C++ agent would
 * (an UPDATE CONFIGURATION is downloaded from its `location` over mutual TLS and checked against its
 * `flowId`; SYNC RESOURCE and UPDATE ASSET files likewise, each against its digest), acknowledges, and
 * reports the flow it runs and the last resource set's digest (`resourceInfo.hash`) in its next heartbeat.
 * It answers DESCRIBE CONFIGURATION, METRICS, JSTACK and CORECOMPONENTSTATE with the C++ agent's answers of
 * scripts/common/c2-examples.ts, which the console then serves as the operation's result, and TRANSFER DEBUG with a
 * gzip tar of its manifest, configuration and log, uploaded to the operation's target as the C++ agent does.
 *
 *   npm run agents -- --class demo --count 20 [--interval 5] [--beats 10] [--failing 2 --refuse <flow hash prefix>]
 *                     [--build 0.15.0]
 *
 * `--beats N`: each agent heartbeats N times and then goes silent, as agents that lose power or network do; the
 * command ends with them.
 *
 * `--build V`: the agents' manifest states build version V instead of the example's: another binary of MiNiFi
 * C++, as a fleet part-way through an upgrade of the agents themselves runs.
 *
 * `--failing N --refuse P`: the first N agents refuse (NOT_APPLIED) the flow whose hash starts with P, as
 * an agent missing a processor that flow needs would; they take any other flow, so a rollback works.
 *
 * `--error-bulletins`, `--back-pressure`, `--fail-operations N`: what an agent needing attention sends, in
 * the C++ agent's shapes (cpp/heartbeat-light.json): an ERROR bulletin raised at each heartbeat in
 * `flowInfo.processorBulletins`, its flow's queue at its object limit (`size` = `sizeMax`) in
 * `flowInfo.queues`, and NOT_APPLIED for the next N operations it is asked to carry out. Started again
 * without them (same `--prefix`), the agents are healthy: the bulletins age out, the queue drains.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import path from "node:path";
import { syncDigestOf } from "../../functions/core/assets/location.js";
import type { C2Operation } from "../../functions/core/c2/model.js";
import { AgentRoutes } from "../../functions/core/c2/routes.js";
import { isFlowHash } from "../../functions/core/flows/flow-hash.js";
import { asArray, asObject, asString, type JsonObject } from "../../functions/core/json.js";
import {
  cppAckOf,
  cppAgentOf,
  cppDescribeAckOf,
  isCppDescribed,
  type VariedAgent,
} from "../common/c2-examples.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { bundleForm, tarGz } from "../common/debug-bundle-form.js";

const USAGE = `Usage: npm run agents -- [--class <class>] [--count <n>] [--interval <seconds>] [--beats <n>]
         [--failing <n> --refuse <flow hash prefix>] [--prefix <agent id prefix>] [--url <agent API>]
         [--certs <folder>] [--certificate <name>] [--build <version>] [--error-bulletins]
         [--back-pressure] [--fail-operations <n>]

Simulated MiNiFi C++ agents heartbeating the local stack (npm start) over mutual TLS until Ctrl-C.
  --class        their agent class (default demo)
  --count        how many (default 10)
  --interval     seconds between heartbeats, at least 1 (default 5)
  --beats        heartbeat this many times, then go silent; the command ends with them (default 0: forever)
  --failing      the first n agents refuse (NOT_APPLIED) the flow whose hash starts with --refuse
  --prefix       agent ids are <prefix><n> (default <class>-agent-)
  --url          the agent API (default https://127.0.0.1:$BEACON_AGENT_PORT, else 8443)
  --certs        the folder of ca.pem and the client certificate (default .beacon/certs)
  --certificate  the client certificate's name in it (default dev-fleet)
  --build        the MiNiFi C++ build version their manifest states (default the example's, 1.0.0)
  --error-bulletins  each heartbeat carries an ERROR bulletin raised then
  --back-pressure    each heartbeat reports the flow's queue at its limit
  --fail-operations  the agents refuse (NOT_APPLIED) the next n operations they are asked for (default 0)`;

const { values } = parseCommandLine(USAGE, {
  options: {
    class: { type: "string", default: "demo" },
    count: { type: "string", default: "10" },
    interval: { type: "string", default: "5" },
    beats: { type: "string", default: "0" },
    failing: { type: "string", default: "0" },
    refuse: { type: "string", default: "" },
    prefix: { type: "string" },
    url: { type: "string", default: `https://127.0.0.1:${process.env.BEACON_AGENT_PORT ?? "8443"}` },
    certs: { type: "string", default: path.join(".beacon", "certs") },
    certificate: { type: "string", default: "dev-fleet" },
    build: { type: "string" },
    "error-bulletins": { type: "boolean", default: false },
    "back-pressure": { type: "boolean", default: false },
    "fail-operations": { type: "string", default: "0" },
  },
});
const agentClass = values.class as string;
const count = Number(values.count);
const intervalMs = Number(values.interval) * 1000;
const failing = Number(values.failing);
const beats = Number(values.beats);
const prefix = values.prefix ?? `${agentClass}-agent-`;
const refused = (values.refuse as string).toLowerCase();
const errorBulletins = values["error-bulletins"] === true;
const backPressure = values["back-pressure"] === true;
const failOperations = Number(values["fail-operations"]);
const valid = [count, intervalMs, failing, beats, failOperations].every(
  (value) => Number.isInteger(value) && value >= 0,
);
if (!valid || intervalMs === 0 || (failing > 0 && refused === "")) {
  exitWithUsage(
    USAGE,
    "--count, --interval, --beats, --failing and --fail-operations take whole numbers (interval at least 1); --failing needs --refuse",
  );
}

const tls = new Agent({
  keepAlive: true,
  ca: readFileSync(path.join(values.certs as string, "ca.pem")),
  cert: readFileSync(path.join(values.certs as string, `${values.certificate}.pem`)),
  key: readFileSync(path.join(values.certs as string, `${values.certificate}.key`)),
});

/** A request body: JSON (heartbeats, acknowledgements) or a form (a debug bundle). */
interface Payload {
  bytes: Buffer;
  contentType: string;
}

const json = (body: unknown): Payload => ({
  bytes: Buffer.from(JSON.stringify(body)),
  contentType: "application/json",
});

function send(
  url: URL,
  method: "GET" | "POST",
  body?: Payload,
): Promise<{ status: number; bytes: Buffer; etag?: string }> {
  const payload = body?.bytes;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method,
        agent: tls,
        headers: body ? { "content-type": body.contentType, "content-length": body.bytes.length } : {},
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            bytes: Buffer.concat(chunks),
            etag: response.headers.etag?.replaceAll('"', ""),
          }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

class SimulatedAgent {
  private flowId = "initial-flow";
  /** The last SYNC RESOURCE's digest, which the C++ agent reports as `resourceInfo.hash`. */
  private resourceHash: string | null = null;
  private manifestSent = false;
  private readonly agent: VariedAgent;
  /** How many more operations it refuses (--fail-operations). */
  private operationsToFail = failOperations;
  /** The id of its last ERROR bulletin (--error-bulletins), counting up as an agent's bulletin ids do. */
  private bulletinId = 0;

  constructor(
    readonly agentId: string,
    private readonly failing: boolean,
  ) {
    // Its manifest states the period it heartbeats at, as a real agent's does, which Beacon holds it to.
    this.agent = cppAgentOf(agentId, agentClass, `${intervalMs} ms`, values.build as string | undefined);
  }

  private heartbeat(): JsonObject {
    const heartbeat = this.manifestSent ? this.agent.light() : this.agent.full();
    const flowInfo = heartbeat.flowInfo as JsonObject;
    flowInfo.flowId = this.flowId;
    flowInfo.versionedFlowSnapshotURI = { bucketId: "default", flowId: this.flowId };
    flowInfo.processorBulletins = [];
    heartbeat.resourceInfo = { hash: this.resourceHash ?? "null" };
    if (errorBulletins) flowInfo.processorBulletins = [this.errorBulletin()];
    if (backPressure) {
      // The C++ agent's queue, at its object limit: what the heartbeat's reader flags as back pressure.
      for (const queue of Object.values(flowInfo.queues as JsonObject))
        Object.assign(queue as JsonObject, { size: 10_000, sizeMax: 10_000 });
    }
    return heartbeat;
  }

  /** An ERROR bulletin raised now, as the C++ agent lists it (cpp/heartbeat-light.json). */
  private errorBulletin(): JsonObject {
    this.bulletinId++;
    return {
      id: this.bulletinId,
      timestamp: Date.now(),
      level: "ERROR",
      category: "Log Message",
      message: "Error connecting to localhost:8776 due to Connection refused",
      groupId: "2438e3c8-015a-1000-79ca-83af40ec1990",
      groupName: "MiNiFi Flow",
      groupPath: "MiNiFi Flow",
      sourceId: "2438e3c8-015a-1000-79ca-83af40ec1991",
      sourceName: "GetTCP",
    };
  }

  /** What the agent bundles for TRANSFER DEBUG: its manifest, the flow it runs, and what it logged. */
  private debugBundle(): Payload {
    const agentInfo = this.agent.full().agentInfo as JsonObject;
    const text = (value: string) => Buffer.from(value, "utf8");
    const bundle = tarGz([
      { name: "manifest.json", bytes: text(JSON.stringify(agentInfo.agentManifest, null, 2)) },
      {
        name: "minifi.properties",
        bytes: text(`nifi.c2.agent.class=${agentClass}\nnifi.c2.flow.id=${this.flowId}\n`),
      },
      { name: "minifi-app.log", bytes: text(`${(logged.get(this.agentId) ?? []).join("\n")}\n`) },
    ]);
    const form = bundleForm(bundle);
    return { bytes: form.body, contentType: form.contentType };
  }

  async beat(): Promise<void> {
    const response = await send(
      new URL(AgentRoutes.heartbeat.path, values.url),
      "POST",
      json(this.heartbeat()),
    );
    if (response.status !== 200) return log(this.agentId, `heartbeat answered ${response.status}`);
    this.manifestSent = true;
    const reply = JSON.parse(response.bytes.toString("utf8")) as { requestedOperations?: C2Operation[] };
    for (const operation of reply.requestedOperations ?? []) await this.carryOut(operation);
  }

  private async carryOut(operation: C2Operation): Promise<void> {
    const name = `${operation.operation} ${operation.operand ?? ""}`.trim().toUpperCase();
    let state = "FULLY_APPLIED";
    let details: string | undefined;
    if (this.operationsToFail > 0) {
      this.operationsToFail--;
      state = "NOT_APPLIED";
      details = "The agent could not carry it out";
      log(this.agentId, `${name}: ${state} (--fail-operations)`);
    } else if (name === "UPDATE CONFIGURATION") {
      const flowId = asString(operation.args?.flowId) ?? "";
      const location = asString(operation.args?.location) ?? "";
      const download = await send(new URL(location), "GET");
      const hash = createHash("sha256").update(download.bytes).digest("hex");
      // A version's flow id is its bytes' hash; a rendering's (its parameter values in it) is not, and its
      // download's entity tag is.
      const expected = isFlowHash(flowId) ? flowId : download.etag;
      if (download.status !== 200 || hash !== expected) {
        state = "NOT_APPLIED";
        details = `download answered ${download.status}, sha-256 ${hash.slice(0, 12)}…`;
      } else if (this.failing && (flowId.startsWith(refused) || location.includes(`/flows/${refused}`))) {
        state = "NOT_APPLIED";
        details = "A processor the flow uses is not available";
      } else {
        this.flowId = flowId;
      }
      log(this.agentId, `${name} → flow ${flowId.slice(0, 12)}…: ${state}${details ? ` (${details})` : ""}`);
    } else if (name === "SYNC RESOURCE" || name === "UPDATE ASSET") {
      // Each file downloaded over mutual TLS and checked against its digest (its asset id), as agents do.
      const files: { url: string; digest?: string }[] =
        name === "SYNC RESOURCE"
          ? asArray(operation.args?.resourceList).map((resource) => ({
              url: asString(asObject(resource)?.url) ?? "",
              digest: asString(asObject(resource)?.digest),
            }))
          : [{ url: asString(operation.args?.url) ?? "" }];
      for (const file of files) {
        const download = await send(new URL(file.url), "GET");
        const hash = createHash("sha256").update(download.bytes).digest("hex");
        if (download.status !== 200 || (file.digest !== undefined && hash !== file.digest)) {
          state = "NOT_APPLIED";
          details = `download of ${file.url} answered ${download.status}, sha-256 ${hash.slice(0, 12)}…`;
        }
      }
      if (state === "FULLY_APPLIED" && name === "SYNC RESOURCE")
        this.resourceHash = syncDigestOf(operation.args) ?? null;
      log(this.agentId, `${name} (${files.length} file(s)): ${state}${details ? ` (${details})` : ""}`);
    } else if (name === "TRANSFER DEBUG") {
      // As the C++ agent: a gzip tar of its manifest, configuration and log, posted as the form part `file`.
      const upload = await send(new URL(asString(operation.args?.target) ?? ""), "POST", this.debugBundle());
      if (upload.status < 200 || upload.status > 299) {
        state = "NOT_APPLIED";
        details = `upload answered ${upload.status}`;
      }
      log(this.agentId, `${name}: ${state}${details ? ` (${details})` : ""}`);
    } else {
      log(this.agentId, `${name}: ${state}`);
    }
    // A DESCRIBE's answer comes in its acknowledgement, as the C++ agent sends it.
    const operand = (operation.operand ?? "").toUpperCase();
    const ack =
      state === "FULLY_APPLIED" && name.startsWith("DESCRIBE ") && isCppDescribed(operand)
        ? cppDescribeAckOf(this.agentId, operation.identifier, operand)
        : cppAckOf(this.agentId, operation.identifier, state, details ? { details } : {});
    await send(new URL(AgentRoutes.acknowledge.path, values.url), "POST", json(ack));
  }
}

/** The last lines each agent logged, which its debug bundle carries. */
const logged = new Map<string, string[]>();
const LOG_LINES_KEPT = 200;

function log(agentId: string, line: string) {
  const stamped = `${new Date().toISOString().slice(11, 19)} ${agentId}: ${line}`;
  console.log(stamped);
  const lines = logged.get(agentId) ?? [];
  lines.push(stamped);
  logged.set(agentId, lines.slice(-LOG_LINES_KEPT));
}

const agents = Array.from(
  { length: count },
  (_, index) => new SimulatedAgent(`${prefix}${String(index + 1).padStart(3, "0")}`, index < failing),
);
console.log(
  `${count} simulated agents of class ${agentClass} heartbeat every ${intervalMs / 1000} s against ${values.url}` +
    (failing > 0 ? `; the first ${failing} refuse flow ${refused}…` : "") +
    (errorBulletins ? "; they send ERROR bulletins" : "") +
    (backPressure ? "; their queue is at its limit" : "") +
    (failOperations > 0 ? `; they refuse the next ${failOperations} operation(s)` : "") +
    (beats > 0 ? `; they stop after ${beats} heartbeats.` : ". Ctrl-C stops them."),
);
let stopping = false;
process.on("SIGINT", () => {
  stopping = true;
});
process.on("SIGTERM", () => {
  stopping = true;
});
for (let beat = 1; !stopping; beat++) {
  const started = Date.now();
  await Promise.all(
    agents.map((agent) =>
      agent.beat().catch((error: Error) => log(agent.agentId, `failed: ${error.message}`)),
    ),
  );
  if (beat === beats) break;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - (Date.now() - started))));
}
if (beats > 0)
  console.log(`${count} simulated agents of class ${agentClass} stopped after ${beats} heartbeats`);
tls.destroy();
