import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import { readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:https";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { connect } from "node:tls";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { createCertificateAuthority, issueWithCa } from "../../functions/adapters/x509/issuer.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { cppHeartbeatOf } from "../common/c2-examples.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { agentTrust, DEV_AGENT_ID, ensureDevCertificates } from "../local/certs.js";
import { findFreePorts } from "../local/ports.js";
import { type AgentServiceProcess, startAgentServiceProcess } from "../test-support/agent-service-process.js";
import { type clientTls, postAsAgent } from "./agent-client.js";
import { calibrate, calibrationRatios, readReference } from "./calibration.js";
import { median } from "./median.js";
import { descendantsCpuMs } from "./process-cpu.js";
import { startBenchBackends } from "./stack.js";

const HEARTBEAT_PATH = "/c2/api/heartbeat";
const AGENT_CLASS = "gateways";
/** The name agents reach the service by; the leaf names it, and the loopback address the bench connects to. */
const AGENT_DOMAIN = "c2.beacon.example.com";
const STEADY_REPLY = '{"requestedOperations":[]}';
/** How long the service is watched doing nothing in each run, for the CPU it spends idle. */
const IDLE_SAMPLE_MS = 2_000;
/** Heartbeats of each kind before a run's first, so that the service's code is compiled and its caches warm. */
const WARM_UP = 50;

export interface ServiceHandshakeRun {
  /** The service's CPU ms per heartbeat on one kept-alive connection, and on a connection of its own each. */
  keptAliveCpuMs: number;
  newConnectionCpuMs: number;
  /** What a new connection adds: the handshake, the connection's accept and close, its certificate read. */
  handshakeCpuMs: number;
  /** The 1-minute load average at the run's end. */
  loadAverage1m: number;
  /** This machine's calibration, taken before the run, over the reference machine's: handshake and overall. */
  calibrationHandshake: number;
  calibrationOverall: number;
  tlsVersion: string;
}

export interface ServiceHandshakeFigures {
  heartbeats: number;
  runs: ServiceHandshakeRun[];
  /** Median and range of the runs' handshake CPU ms. */
  handshakeCpuMs: { median: number; min: number; max: number };
  keptAliveCpuMs: { median: number; min: number; max: number };
  /** The status line and headers of the service's answer to a steady heartbeat, as they go on the wire. */
  responseHeaderBytes: number;
  machine: string;
}

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: median(sorted), min: sorted[0] as number, max: sorted[sorted.length - 1] as number };
};

const serviceProcess = (commandLine: string) =>
  /functions\/agent-service\/main\.ts/.test(commandLine) ? "agent service" : undefined;

/** The agent service's process's CPU ms so far (it is this process's child). */
const serviceCpuMs = () => descendantsCpuMs(process.pid, serviceProcess).get("agent service") ?? 0;

/** The server identity behind the NLB: a leaf issued by a private root itself, sent alone. */
async function privateLeaf() {
  const serverRoot = await createCertificateAuthority("Beacon agents server root");
  const leaf = await issueWithCa(serverRoot, {
    subject: { commonName: AGENT_DOMAIN, organization: "Beacon" },
    usage: "serverAuth",
    dnsNames: [AGENT_DOMAIN],
    ipAddresses: ["127.0.0.1"],
  });
  const { asymmetricKeyType, asymmetricKeyDetails } = new X509Certificate(leaf.certPem).publicKey;
  if (asymmetricKeyType !== "ec" || asymmetricKeyDetails?.namedCurve !== "prime256v1")
    throw new Error("the service's leaf is not ECDSA P-256");
  return { ...leaf, rootPem: serverRoot.certPem };
}

/**
 * Starts backends and the agent service on them, registers the dev agent with its full C++ heartbeat, and
 * measures `runs` runs of `heartbeats` steady heartbeats each way.
 */
export async function measureServiceHandshakes(
  heartbeats: number,
  runs: number,
  log: (line: string) => void = console.log,
  /** The key exchange groups the agent offers (OpenSSL's list): X25519 first by default, as MiNiFi C++'s OpenSSL. */
  agentGroups?: string,
): Promise<ServiceHandshakeFigures> {
  const { stateDir, backends } = await startBenchBackends("service-handshakes", log);
  const [port, healthPort] = (await findFreePorts(2)) as number[];
  let service: AgentServiceProcess | undefined;
  try {
    const certsDir = path.join(stateDir, "certs");
    const certificates = await ensureDevCertificates(certsDir);
    const trust = await agentTrust(certsDir);
    const leaf = await privateLeaf();
    service = await startAgentServiceProcess(
      {
        ...backends.env,
        [EnvNames.agentApiUrl]: `https://${AGENT_DOMAIN}:${port}`,
        [EnvNames.agentCaBindings]: JSON.stringify(trust.bindings),
        [EnvNames.agentServicePort]: String(port),
        [EnvNames.agentServiceHealthPort]: String(healthPort),
        [EnvNames.agentServiceTlsCertificate]: leaf.certPem,
        [EnvNames.agentServiceTlsKey]: leaf.keyPem,
        [EnvNames.agentServiceCaBundle]: trust.bundlePem,
        POWERTOOLS_LOG_LEVEL: "ERROR",
        POWERTOOLS_SERVICE_NAME: "agent-api-service-handshakes",
        POWERTOOLS_METRICS_NAMESPACE: "Beacon",
      },
      `http://127.0.0.1:${healthPort}/health`,
    );
    const tls = {
      ca: Buffer.from(leaf.rootPem),
      cert: readFileSync(certificates.agent.certPath),
      key: readFileSync(certificates.agent.keyPath),
      ...(agentGroups ? { ecdhCurve: agentGroups } : {}),
    };
    return await measureOn(new URL(`https://127.0.0.1:${port}${HEARTBEAT_PATH}`), tls, heartbeats, runs, log);
  } finally {
    await service?.stop("SIGTERM");
    await backends.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

type AgentTls = ReturnType<typeof clientTls> & { ecdhCurve?: string };

/** One heartbeat, answered as a steady one: else the figures would not be a steady heartbeat's. */
async function steadyHeartbeat(url: URL, body: Buffer, agent: Agent | false, tls: AgentTls): Promise<void> {
  const reply = await postAsAgent(url, [body], { agent, tls, gzip: true });
  if (reply.status !== 200 || reply.body.toString() !== STEADY_REPLY)
    throw new Error(`a steady heartbeat was answered ${reply.status} ${reply.body.toString().slice(0, 200)}`);
}

/** Heartbeats sent one way before the other way's: the two alternate, so that a change of load falls on both. */
const BLOCK = 50;

/**
 * The service's CPU ms per heartbeat of `count` sent each way one after another, in alternating blocks, its idle
 * CPU rate subtracted.
 */
async function cpuPerHeartbeat(
  count: number,
  idlePerMs: number,
  ways: { keptAlive: () => Promise<void>; newConnection: () => Promise<void> },
): Promise<{ keptAlive: number; newConnection: number }> {
  const used = { keptAlive: 0, newConnection: 0 };
  for (let sent = 0; sent < count; sent += BLOCK)
    for (const way of ["keptAlive", "newConnection"] as const) {
      const before = serviceCpuMs();
      const started = performance.now();
      for (let index = sent; index < Math.min(count, sent + BLOCK); index++) await ways[way]();
      used[way] += serviceCpuMs() - before - idlePerMs * (performance.now() - started);
    }
  return { keptAlive: used.keptAlive / count, newConnection: used.newConnection / count };
}

async function measureOn(
  url: URL,
  tls: AgentTls,
  heartbeats: number,
  runs: number,
  log: (line: string) => void,
): Promise<ServiceHandshakeFigures> {
  const registration = await postAsAgent(
    url,
    [gzipSync(JSON.stringify(cppHeartbeatOf(DEV_AGENT_ID, AGENT_CLASS, true)))],
    { agent: false, tls, gzip: true },
  );
  if (registration.status !== 200) throw new Error(`the registration was answered ${registration.status}`);
  const light = gzipSync(JSON.stringify(cppHeartbeatOf(DEV_AGENT_ID, AGENT_CLASS)));
  const keptAlive = new Agent({ keepAlive: true, maxSockets: 1, ...tls });
  const responseHeaderBytes = await steadyResponseHeaderBytes(url, light, keptAlive);
  const newConnection = () => steadyHeartbeat(url, light, false, tls);
  const sameConnection = () => steadyHeartbeat(url, light, keptAlive, tls);
  const reference = readReference();
  const measured: ServiceHandshakeRun[] = [];
  try {
    for (let run = 1; run <= runs; run++) {
      const calibration = calibrationRatios((await calibrate()).calibration, reference.calibration);
      for (let index = 0; index < WARM_UP; index++) {
        await sameConnection();
        await newConnection();
      }
      const idleBefore = serviceCpuMs();
      const idleStarted = performance.now();
      await sleep(IDLE_SAMPLE_MS);
      const idlePerMs = (serviceCpuMs() - idleBefore) / (performance.now() - idleStarted);
      const { keptAlive: keptAliveCpuMs, newConnection: newConnectionCpuMs } = await cpuPerHeartbeat(
        heartbeats,
        idlePerMs,
        { keptAlive: sameConnection, newConnection },
      );
      const figures: ServiceHandshakeRun = {
        keptAliveCpuMs,
        newConnectionCpuMs,
        handshakeCpuMs: newConnectionCpuMs - keptAliveCpuMs,
        loadAverage1m: loadavg()[0] ?? 0,
        calibrationHandshake: calibration.handshakeCpuMs,
        calibrationOverall: calibration.overall,
        tlsVersion: await tlsVersionOf(url, tls),
      };
      log(formatRun(run, figures));
      measured.push(figures);
    }
  } finally {
    keptAlive.destroy();
  }
  const cpu = cpus();
  return {
    heartbeats,
    runs: measured,
    handshakeCpuMs: summary(measured.map((each) => each.handshakeCpuMs)),
    keptAliveCpuMs: summary(measured.map((each) => each.keptAliveCpuMs)),
    responseHeaderBytes,
    machine: `${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, Node ${process.version}`,
  };
}

/** The protocol a new connection to the service speaks. */
async function tlsVersionOf(url: URL, tls: AgentTls): Promise<string> {
  const socket = connect({ host: url.hostname, port: Number(url.port), ...tls });
  await once(socket, "secureConnect");
  const version = socket.getProtocol() ?? "";
  socket.end();
  return version;
}

/** The status line and headers of the service's answer to a steady heartbeat, counted as they are sent. */
async function steadyResponseHeaderBytes(url: URL, body: Buffer, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-encoding": "gzip",
          "content-length": body.length,
        },
      },
      (response) => {
        const { rawHeaders, statusCode, statusMessage, httpVersion } = response;
        let bytes = Buffer.byteLength(`HTTP/${httpVersion} ${statusCode} ${statusMessage}\r\n`) + 2;
        for (let index = 0; index < rawHeaders.length; index += 2)
          bytes += Buffer.byteLength(`${rawHeaders[index]}: ${rawHeaders[index + 1]}\r\n`);
        response.resume();
        response.on("end", () => resolve(bytes));
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

const formatRun = (run: number, figures: ServiceHandshakeRun) =>
  `run ${run}: agent service CPU ms per steady C++ heartbeat, kept alive ${figures.keptAliveCpuMs.toFixed(3)}, ` +
  `new connection each ${figures.newConnectionCpuMs.toFixed(3)}: handshake ${figures.handshakeCpuMs.toFixed(3)} ms ` +
  `(${figures.tlsVersion}); load average ${figures.loadAverage1m.toFixed(1)}; calibration ` +
  `×${figures.calibrationOverall.toFixed(2)} (handshake ×${figures.calibrationHandshake.toFixed(2)})`;

const range = ({ median, min, max }: { median: number; min: number; max: number }) =>
  `${median.toFixed(2)} ms (${min.toFixed(2)}–${max.toFixed(2)})`;

/** What a bench's reader and units.json are told of the figures. */
export const describeServiceHandshakes = (figures: ServiceHandshakeFigures) =>
  `median of ${figures.runs.length} runs of ${figures.heartbeats} heartbeats each way ${range(figures.handshakeCpuMs)}; ` +
  `runs at load average ${figures.runs.map((each) => each.loadAverage1m.toFixed(1)).join(", ")}, calibration ` +
  `${figures.runs.map((each) => `×${each.calibrationOverall.toFixed(2)} (handshake ×${each.calibrationHandshake.toFixed(2)})`).join(", ")}`;

const USAGE = `Usage: npm run bench:service-handshake -- [--heartbeats <n>] [--runs <n>]

The CPU a MiNiFi C++ agent's new connection per heartbeat costs the agent service terminating mutual TLS itself.
  --heartbeats  steady heartbeats each way in each run (default 500)
  --runs        runs, each with the machine's calibration and load average (default 5)
  --groups      the key exchange groups the agent offers, e.g. P-256 (default: Node's, X25519 first)`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseCommandLine(USAGE, {
    options: {
      heartbeats: { type: "string", default: "500" },
      runs: { type: "string", default: "5" },
      groups: { type: "string" },
    },
  });
  const [heartbeats, runs] = [Number(values.heartbeats), Number(values.runs)];
  if (!Number.isInteger(heartbeats) || heartbeats < 1 || !Number.isInteger(runs) || runs < 1)
    exitWithUsage(USAGE, "--heartbeats and --runs are whole numbers of at least 1");
  const figures = await measureServiceHandshakes(heartbeats, runs, console.log, values.groups);
  console.log(`machine: ${figures.machine}`);
  console.log(
    `agent service, one-tier private CA's ECDSA P-256 leaf: CPU per new connection ${describeServiceHandshakes(figures)}`,
  );
  console.log(
    `kept-alive steady heartbeat ${range(figures.keptAliveCpuMs)} of the service's CPU, one at a time; ` +
      `its answer's status line and headers ${figures.responseHeaderBytes} B`,
  );
}
