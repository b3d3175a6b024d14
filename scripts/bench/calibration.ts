/**
 * How fast this machine is at the work Beacon's benchmarks are made of, so that their figures can be compared
 * with figures taken on another machine: the CPU of a fixed number of mutual-TLS handshakes with the dev CA's
 * certificates (what a MiNiFi C++ agent's every heartbeat costs the ingress), of parsing a real MiNiFi C++
 * manifest (what a new agent's first heartbeat costs the handler) and of SHA-256 over a fixed size (what
 * storing a manifest once per build costs). Every bench prints it beside its figures with the ratio to the
 * reference machine recorded in reference-machine.json; `npm run bench:calibrate -- --write` makes this machine
 * the reference. Beside them, what work costs just after the process slept: on a machine whose idle cores lose
 * their caches (a virtual machine inside another), a request handled one at a time pays that at every step.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { connect, createServer } from "node:tls";
import { fileURLToPath } from "node:url";
import { parseCommandLine } from "../common/command-line.mjs";
import { ensureDevCertificates } from "../local/certs.js";
import { clientTls } from "./agent-client.js";
import { median } from "./median.js";
import { cpuMsSince } from "./stack.js";

export interface Calibration {
  /** CPU ms per mutual-TLS handshake, both sides in this process (TLS 1.3, the dev CA's ECDSA P-256 keys). */
  handshakeCpuMs: number;
  /** CPU ms per JSON.parse of the C++ agent's full heartbeat fixture, its manifest included. */
  manifestParseCpuMs: number;
  /** CPU ms per MiB hashed with SHA-256. */
  sha256CpuMsPerMiB: number;
}

export const calibrationFigures = ["handshakeCpuMs", "manifestParseCpuMs", "sha256CpuMsPerMiB"] as const;

export interface Machine {
  cpu: string;
  cores: number;
  node: string;
}

/** The machine a bench runs on, as its output names it. */
export const thisMachine = (): Machine => ({
  cpu: cpus()[0]?.model ?? "unknown CPU",
  cores: cpus().length,
  node: process.version,
});

export interface CalibratedMachine {
  machine: Machine;
  calibration: Calibration;
  /**
   * How many times a light heartbeat's parse, serialisation and hash take just after the process slept 1 ms as
   * one after another. Not compared with the reference, which was recorded before it was measured.
   */
  wakeAfterIdle?: number;
  /** The 1-minute load average when it was taken: a busy machine's figures are higher. */
  loadAverage1m: number;
  date: string;
}

const HANDSHAKES = 50;
const PARSES = 20;
const HASHED_MIB = 16;
/** Each figure is the fastest of this many runs: the machine's other work only ever slows a run down. */
const RUNS = 5;
/** Pieces of work timed after a sleep each, and one after another. */
const WAKES = 200;
const IDLE_MS = 1;
const MANIFEST_FIXTURE = new URL("../../schemas/c2/examples/cpp/heartbeat-full.json", import.meta.url);
const LIGHT_HEARTBEAT_FIXTURE = new URL(
  "../../schemas/c2/examples/cpp/heartbeat-light.json",
  import.meta.url,
);
export const referenceFile = new URL("reference-machine.json", import.meta.url);

/** Each figure of `current` over the reference's, and their geometric mean: above 1, this machine is slower. */
export function calibrationRatios(
  current: Calibration,
  reference: Calibration,
): Record<(typeof calibrationFigures)[number] | "overall", number> {
  const ratios = Object.fromEntries(
    calibrationFigures.map((figure) => [figure, current[figure] / reference[figure]]),
  ) as Record<(typeof calibrationFigures)[number], number>;
  const overall = calibrationFigures.reduce((product, figure) => product * ratios[figure], 1) ** (1 / 3);
  return { ...ratios, overall };
}

const machineName = (machine: Machine) => `${machine.cores} × ${machine.cpu}, Node ${machine.node}`;

/** One line for a bench's output: this machine's calibration, and how it compares with the reference. */
export function formatCalibration(current: CalibratedMachine, reference: CalibratedMachine): string {
  const ratios = calibrationRatios(current.calibration, reference.calibration);
  const { calibration } = current;
  const times = (ratio: number) => `×${ratio.toFixed(2)}`;
  return (
    `calibration: ${calibration.handshakeCpuMs.toFixed(2)} ms CPU per mutual-TLS handshake ` +
    `(${times(ratios.handshakeCpuMs)}), ${calibration.manifestParseCpuMs.toFixed(2)} ms per C++ manifest parse ` +
    `(${times(ratios.manifestParseCpuMs)}), ${calibration.sha256CpuMsPerMiB.toFixed(2)} ms per MiB of SHA-256 ` +
    `(${times(ratios.sha256CpuMsPerMiB)}); load average ${current.loadAverage1m.toFixed(1)}; ` +
    `${times(ratios.overall)} the reference machine (${machineName(reference.machine)}, ` +
    `load average ${reference.loadAverage1m.toFixed(1)}, ${reference.date})` +
    nodeMismatch(current.machine, reference.machine) +
    (current.wakeAfterIdle === undefined
      ? ""
      : `; work just after ${IDLE_MS} ms idle takes ${times(current.wakeAfterIdle)} as long as back to back`)
  );
}

const nodeMajor = (machine: Machine) => machine.node.split(".")[0];

/** TLS and JSON costs change between Node versions (OpenSSL, V8) far more than between like machines. */
function nodeMismatch(current: Machine, reference: Machine): string {
  if (nodeMajor(current) === nodeMajor(reference)) return "";
  return (
    `; Node ${current.node} here, ${reference.node} in the reference: ratios across Node versions ` +
    "measure Node as much as the machine"
  );
}

async function fastestOf(runs: number, run: () => Promise<number> | number): Promise<number> {
  let fastest = Number.POSITIVE_INFINITY;
  for (let index = 0; index < runs; index++) fastest = Math.min(fastest, await run());
  return fastest;
}

/** `count` full mutual-TLS handshakes one after another against a server in this process: CPU ms each. */
async function handshakeCpuMs(certsDir: string, count: number): Promise<number> {
  const certificates = await ensureDevCertificates(certsDir);
  const server = createServer({
    cert: readFileSync(certificates.server.certPath),
    key: readFileSync(certificates.server.keyPath),
    ca: certificates.caPem,
    requestCert: true,
    rejectUnauthorized: true,
  });
  server.on("secureConnection", (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const tls = clientTls(certsDir, "dev-agent-1");
  try {
    const before = process.cpuUsage();
    for (let index = 0; index < count; index++)
      await new Promise<void>((resolve, reject) => {
        const socket = connect({ host: "127.0.0.1", port, servername: "localhost", ...tls });
        socket.once("error", reject);
        socket.once("close", () => resolve());
        socket.resume();
      });
    return cpuMsSince(before) / count;
  } finally {
    server.close();
  }
}

function manifestParseCpuMs(text: string, count: number): number {
  const before = process.cpuUsage();
  for (let index = 0; index < count; index++) JSON.parse(text);
  return cpuMsSince(before) / count;
}

function sha256CpuMsPerMiB(mebibytes: number): number {
  const block = Buffer.alloc(1024 * 1024, 0x5a);
  const before = process.cpuUsage();
  const hash = createHash("sha256");
  for (let index = 0; index < mebibytes; index++) hash.update(block);
  hash.digest();
  return cpuMsSince(before) / mebibytes;
}

/** The median wall-clock time of `work` run `count` times, each after sleeping `idleMs` (0: back to back). */
async function medianMs(work: () => void, count: number, idleMs: number): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    if (idleMs > 0) await sleep(idleMs);
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** The time of a light heartbeat's parse, serialisation and hash after 1 ms idle, over back to back. */
async function wakeAfterIdle(heartbeat: string): Promise<number> {
  const work = () => {
    const text = JSON.stringify(JSON.parse(heartbeat));
    createHash("sha256").update(text).digest("hex");
  };
  const backToBack = () => medianMs(work, WAKES * 10, 0);
  await backToBack();
  return (await medianMs(work, WAKES, IDLE_MS)) / (await backToBack());
}

/** Measures this machine: a few seconds of CPU. */
export async function calibrate(): Promise<CalibratedMachine> {
  const certsDir = mkdtempSync(path.join(tmpdir(), "beacon-calibration-"));
  try {
    const manifest = readFileSync(MANIFEST_FIXTURE, "utf8");
    const calibration: Calibration = {
      handshakeCpuMs: await fastestOf(RUNS, () => handshakeCpuMs(certsDir, HANDSHAKES)),
      manifestParseCpuMs: await fastestOf(RUNS, () => manifestParseCpuMs(manifest, PARSES)),
      sha256CpuMsPerMiB: await fastestOf(RUNS, () => sha256CpuMsPerMiB(HASHED_MIB)),
    };
    return {
      machine: thisMachine(),
      calibration,
      wakeAfterIdle: await wakeAfterIdle(readFileSync(LIGHT_HEARTBEAT_FIXTURE, "utf8")),
      loadAverage1m: loadavg()[0] ?? 0,
      date: new Date().toISOString().slice(0, 10),
    };
  } finally {
    rmSync(certsDir, { recursive: true, force: true });
  }
}

export function readReference(file: URL = referenceFile): CalibratedMachine {
  const { about: _about, ...reference } = JSON.parse(readFileSync(file, "utf8")) as CalibratedMachine & {
    about: string;
  };
  return reference;
}

/** Calibrates this machine and gives the line a bench prints beside its figures. */
export async function calibrationLine(): Promise<string> {
  return formatCalibration(await calibrate(), readReference());
}

const USAGE = `Usage: npm run bench:calibrate -- [--write]

How fast this machine is at the benchmarks' work (mutual-TLS handshakes, a manifest's JSON parse, SHA-256),
against the reference machine of scripts/bench/reference-machine.json.
  --write  record this machine as the reference`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseCommandLine(USAGE, { options: { write: { type: "boolean", default: false } } });
  const current = await calibrate();
  if (values.write) {
    const about =
      "The reference machine of the benchmarks' calibration (scripts/bench/calibration.ts): every bench prints its " +
      "own machine's calibration and the ratio to this one. Written by npm run bench:calibrate -- --write.";
    writeFileSync(referenceFile, `${JSON.stringify({ about, ...current }, null, 2)}\n`);
    console.log(`recorded ${fileURLToPath(referenceFile)}`);
  }
  console.log(`machine: ${machineName(current.machine)}`);
  console.log(formatCalibration(current, readReference()));
}
