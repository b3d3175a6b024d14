/**
 * The load side of `npm run bench:herd`, in a process of its own: a herd of agents of one build, each with
 * its own id and manifest hash (c2-examples.ts varies them as real agents vary), all starting within
 * `--arrival-seconds`, open-loop: agent i starts at i/N of the window whether or not the others were
 * answered. Each sends its first heartbeat, answers DESCRIBE MANIFEST when asked, then `--heartbeats` more,
 * `--period-seconds` apart. C++ agents send their manifest in the first heartbeat (gzipped, ~70 KB), then
 * light heartbeats, each over a new connection (as C++ does); Java agents send every heartbeat full (their
 * small manifest in it, the c2-client's default), each over a connection of its own that it keeps alive (as
 * each Java agent's HTTP client does): a herd of N Java agents opens N mutual-TLS connections. Every body is
 * built before the clock starts, and a few agents outside the herd heartbeat before it. Then `--new-agents` more
 * agents of the build send their first heartbeat over connections opened before (for C++ too): what a new
 * agent costs Beacon without its handshake. Prints `{"phase":"ready"}`, waits for a line, runs the herd, prints
 * `{"phase":"herded"}`, waits for a line, opens the new agents' connections, prints `{"phase":"connected"}`, waits
 * for a line, registers the new agents, prints `{"phase":"registered"}`, waits for a line and prints one JSON line
 * of results (`phase: "result"`).
 */
import { Agent } from "node:https";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { AgentRoutes } from "../../functions/core/c2/routes.js";
import type { JsonObject } from "../../functions/core/json.js";
import { cppAgentOf, javaAgentOf, type VariedAgent } from "../common/c2-examples.js";
import {
  type AgentReply,
  clientTls,
  describeManifestsAsked,
  latencySummary,
  postAsAgent,
} from "./agent-client.js";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    certs: { type: "string" },
    certificate: { type: "string", default: "dev-fleet" },
    agents: { type: "string", default: "10000" },
    dialect: { type: "string", default: "java" },
    "arrival-seconds": { type: "string", default: "60" },
    heartbeats: { type: "string", default: "2" },
    "period-seconds": { type: "string" },
    "new-agents": { type: "string", default: "200" },
  },
});
const agentCount = Number(values.agents);
const dialect = values.dialect === "cpp" ? "cpp" : "java";
const arrivalMs = Number(values["arrival-seconds"]) * 1000;
const laterHeartbeats = Number(values.heartbeats);
/** By default as long as the arrival window, so that the later heartbeats come at the rate agents arrived. */
const periodMs = Number(values["period-seconds"] ?? Math.max(1, Number(values["arrival-seconds"]))) * 1000;
const heartbeatUrl = new URL(AgentRoutes.heartbeat.path, values.url);
const ackUrl = new URL(AgentRoutes.acknowledge.path, values.url);
const tls = clientTls(values.certs as string, values.certificate as string);
/** An agent's connection: Java's client keeps one alive, its own; C++ opens one per request. */
const connectionOf = (): Agent | false =>
  dialect === "java" ? new Agent({ keepAlive: true, maxSockets: 1, ...tls }) : false;

/** Agents outside the herd that heartbeat before it arrives. */
const WARM_UP_AGENTS = 10;
/** The new agents registered after the herd share this many kept-alive connections, opened before they start. */
const NEW_AGENT_CONNECTIONS = 4;

type Kind = "firstHeartbeat" | "heartbeat" | "describeAck" | "newAgent";

interface HerdAgent {
  varied: VariedAgent;
  connection: Agent | false;
  first: Buffer[];
  later: Buffer[];
  gzipFirst: boolean;
}

const BUNDLES_PLACEHOLDER = "\u0000bundles";

/**
 * The C++ agent's first heartbeat, gzipped: its own parts compressed per agent, the ~900 KB of bundles that
 * every agent of the build shares compressed once, as gzip members one after another (which decompress to the
 * whole body, as one member would).
 */
function cppFirstBody(full: JsonObject, bundlesGzip: Buffer): Buffer[] {
  const agentInfo = full.agentInfo as JsonObject;
  const manifest = agentInfo.agentManifest as JsonObject;
  agentInfo.agentManifest = { ...manifest, bundles: BUNDLES_PLACEHOLDER };
  const [before, after] = JSON.stringify(full).split(JSON.stringify(BUNDLES_PLACEHOLDER)) as [string, string];
  return [gzipSync(before), bundlesGzip, gzipSync(after)];
}

let bundlesGzip: Buffer | undefined;

function herdOf(count: number, name = "herd"): HerdAgent[] {
  return Array.from({ length: count }, (_, index) => {
    const agentId = `${name}-${dialect}-${index}`;
    if (dialect === "java") {
      const varied = javaAgentOf(agentId, "herd");
      const full = Buffer.from(JSON.stringify(varied.full()));
      return { varied, connection: connectionOf(), first: [full], later: [full], gzipFirst: false };
    }
    const varied = cppAgentOf(agentId, "herd");
    const full = varied.full();
    const manifest = (full.agentInfo as JsonObject).agentManifest as JsonObject;
    bundlesGzip ??= gzipSync(JSON.stringify(manifest.bundles));
    return {
      varied,
      connection: connectionOf(),
      first: cppFirstBody(full, bundlesGzip),
      later: [Buffer.from(JSON.stringify(varied.light()))],
      gzipFirst: true,
    };
  });
}

const herd = herdOf(agentCount);
const newAgents = herdOf(Number(values["new-agents"]), "new");
const latencies: Record<Kind, number[]> = {
  firstHeartbeat: [],
  heartbeat: [],
  describeAck: [],
  newAgent: [],
};
const errors: Record<Kind, Record<string, number>> = {
  firstHeartbeat: {},
  heartbeat: {},
  describeAck: {},
  newAgent: {},
};
let describesAsked = 0;
/** How late the generator sent agents' first heartbeats, against their planned start. */
const lateness: number[] = [];

async function send(
  agent: HerdAgent,
  kind: Kind,
  url: URL,
  body: Buffer[],
  gzip = false,
): Promise<AgentReply | undefined> {
  try {
    const reply = await postAsAgent(url, body, { agent: agent.connection, tls, gzip });
    latencies[kind].push(reply.ms);
    if (reply.status !== 200) errors[kind][reply.status] = (errors[kind][reply.status] ?? 0) + 1;
    return reply;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "connection";
    errors[kind][code] = (errors[kind][code] ?? 0) + 1;
    return undefined;
  }
}

/** Answers each DESCRIBE MANIFEST a heartbeat's reply asks, as both agents do: with the manifest in the ack. */
async function answerDescribes(agent: HerdAgent, reply: AgentReply | undefined) {
  for (const identifier of reply ? describeManifestsAsked(reply) : []) {
    describesAsked++;
    const ack = Buffer.from(JSON.stringify(agent.varied.describeAck(identifier)));
    await send(agent, "describeAck", ackUrl, [ack]);
  }
}

async function runAgent(agent: HerdAgent, startAt: number) {
  await sleep(startAt - performance.now());
  lateness.push(performance.now() - startAt);
  await answerDescribes(
    agent,
    await send(agent, "firstHeartbeat", heartbeatUrl, agent.first, agent.gzipFirst),
  );
  for (let beat = 1; beat <= laterHeartbeats; beat++) {
    await sleep(startAt + beat * periodMs - performance.now());
    await answerDescribes(agent, await send(agent, "heartbeat", heartbeatUrl, agent.later));
  }
}

/**
 * The new agents' first heartbeats, over connections whose handshakes were made before: a new agent's cost
 * without its handshake, which the load balancer makes on AWS.
 */
async function registerNewAgents(connections: Agent[]) {
  let next = 0;
  await Promise.all(
    connections.map(async (connection) => {
      for (let agent = newAgents[next++]; agent; agent = newAgents[next++])
        await answerDescribes(
          agent,
          await send({ ...agent, connection }, "newAgent", heartbeatUrl, agent.first, agent.gzipFirst),
        );
    }),
  );
}

/** Lets the bench read its meters at a phase's edge: prints the phase and waits for a line. */
async function phase(name: string) {
  process.stdout.write(`${JSON.stringify({ phase: name })}\n`);
  await new Promise((resolve) => process.stdin.once("data", resolve));
}

// Beacon is running when a herd arrives: a few agents outside the herd heartbeat first (without a manifest, so
// that the herd's build stays new), which a fresh gateway and handler would otherwise meet with the herd.
await Promise.all(
  Array.from({ length: WARM_UP_AGENTS }, (_, index) =>
    postAsAgent(
      heartbeatUrl,
      [Buffer.from(JSON.stringify(javaAgentOf(`warm-up-${index}`, "warm-up").light()))],
      { agent: false, tls },
    ),
  ),
);
await phase("ready");

const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const cpuBefore = process.cpuUsage();
const started = performance.now();
await Promise.all(herd.map((agent, index) => runAgent(agent, started + (index * arrivalMs) / agentCount)));
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
loopDelay.disable();
for (const { connection } of herd) if (connection) connection.destroy();
await phase("herded");

const newAgentConnections = Array.from(
  { length: NEW_AGENT_CONNECTIONS },
  () => new Agent({ keepAlive: true, maxSockets: 1, ...tls }),
);
// Each connection's handshake, with a heartbeat of an agent Beacon knows, before the new agents' clock starts.
await Promise.all(
  newAgentConnections.map((connection) =>
    postAsAgent(heartbeatUrl, [Buffer.from(JSON.stringify(javaAgentOf("warm-up-0", "warm-up").light()))], {
      agent: connection,
      tls,
    }),
  ),
);
await phase("connected");
await registerNewAgents(newAgentConnections);
await phase("registered");
for (const connection of newAgentConnections) connection.destroy();

process.stdout.write(
  `${JSON.stringify({
    phase: "result",
    dialect,
    agents: agentCount,
    arrivalSeconds: arrivalMs / 1000,
    periodSeconds: periodMs / 1000,
    seconds,
    describesAsked,
    latencies: {
      firstHeartbeat: latencySummary(latencies.firstHeartbeat),
      heartbeat: latencySummary(latencies.heartbeat),
      describeAck: latencySummary(latencies.describeAck),
      newAgent: latencySummary(latencies.newAgent),
    },
    errors,
    generator: {
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      eventLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      eventLoopDelayMaxMs: loopDelay.max / 1e6,
      startLatenessMaxMs: Math.max(0, ...lateness),
    },
  })}\n`,
);
