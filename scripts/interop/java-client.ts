/**
 * Builds and runs the Java driver in ./java: a command-line program that talks to Beacon with the real
 * Apache NiFi C2 client library (org.apache.nifi:c2-client-http 2.3.0) and prints one JSON line per step.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

const PROJECT_DIR = fileURLToPath(new URL("./java/", import.meta.url));
const TARGET_DIR = path.join(PROJECT_DIR, "target");
const DRIVER_JAR = path.join(TARGET_DIR, "c2-client-driver.jar");
const BUILD_STAMP = path.join(TARGET_DIR, "beacon-build.stamp");
const JVM_DIR = "/usr/lib/jvm";
/** NiFi 2.x classes need Java 21 or later; the machine's default JDK is 17. */
const JDK_PATTERN = /temurin.*25/;
const MAVEN_ARGS = ["-B", "-q", "package"];
/** The first build downloads the library and Maven's plugins into ~/.m2; later ones take seconds. */
const BUILD_TIMEOUT_MS = 10 * 60_000;
/** Each of the driver's HTTP calls is bounded at 30 s by the library's own call timeout. */
const RUN_TIMEOUT_MS = 90_000;
const OUTPUT_TAIL_CHARS = 6_000;

export type Compression = "none" | "gzip";

/**
 * How the library is told Beacon's URLs: `path-base` (`c2.rest.path.base` with `c2.rest.path.heartbeat` and
 * `c2.rest.path.acknowledge`), `rest-url` (`c2.rest.url` and `c2.rest.url.ack`), with which the library
 * resolves no SYNC RESOURCE URL, or `incumbent`: `c2.rest.path.base` at `/efm/api` with the paths
 * `/c2-protocol/heartbeat` and `/c2-protocol/acknowledge`, as the incumbent C2 server's documentation sets them.
 */
export type C2Urls = "path-base" | "rest-url" | "incumbent";

export interface JavaDriverOptions {
  /** Base URL of the agent gateway, `https://127.0.0.1:<port>`. */
  url: string;
  /** Holds `ca.pem` and the client certificate as `<certificate>.pem` and PKCS#8 `<certificate>.key`. */
  certsDir: string;
  certificate: string;
  agentId: string;
  agentClass: string;
  /** Sent as `agentInfo.agentManifestHash`; Beacon asks for the manifest of a hash it does not know. */
  manifestHash: string;
  compression: Compression;
  /** `path-base` unless given. */
  c2Urls?: C2Urls;
  /**
   * An existing directory for what the agent keeps on disk (flow id, asset directory, resource repository),
   * left in place so that a later run goes on from it; a temporary one, deleted at the end, if absent.
   */
  stateDir?: string;
  /**
   * The flow the agent already runs, and the id it reports for it, as an agent arriving from another C2 server
   * does; written to the state directory unless it holds a flow already. Its debug bundle holds the flow.
   */
  runningFlow?: { path: string; flowId: string };
  timeoutMs?: number;
}

/** One HTTP exchange as it crossed the wire: the request as sent and the status that came back. */
export interface WireExchange {
  path: string;
  status: number;
  contentEncoding: string | null;
  transferEncoding: string | null;
  contentLength: string | null;
}

/** An operation as the library parsed it from Beacon's reply (enum names, so upper-case). */
export interface ReceivedOperation {
  identifier: string;
  operation: string | null;
  operand: string | null;
  args: Record<string, unknown>;
}

export interface ClientStep {
  step: "client";
  /** Maven coordinates of the C2 client library that ran, from its jar's manifest. */
  library: string;
  heartbeatUrl: string;
  c2Urls: C2Urls;
  compression: Compression;
}

export interface HeartbeatStep {
  step: "heartbeat";
  sequence: number;
  agentId: string;
  agentManifestHash: string;
  /** Whether the heartbeat carried the manifest itself; the driver sends light heartbeats, so false. */
  manifestSent: boolean;
  /** `flowInfo.flowId`: the flow id the library's holder has, set by an applied UPDATE CONFIGURATION. */
  flowId: string | null;
  /** `flowInfo.runStatus`: RUNNING until a STOP FLOW, and again after a START FLOW. */
  runStatus: string | null;
  /** `resourceInfo.hash`: the global hash the last complete SYNC RESOURCE saved; null before any. */
  resourcesHash: string | null;
  http: WireExchange;
  /** Whether the library could parse Beacon's reply; it drops a reply with any operation it cannot read. */
  parsed: boolean;
  operations: ReceivedOperation[];
}

export interface AckStep {
  step: "ack";
  operationId: string;
  operation: string;
  operand: string;
  state: string;
  /** The library's words for the state (`operationState.details`). */
  details: string | null;
  /** The manifest and its hash come back in a DESCRIBE MANIFEST acknowledgement only. */
  agentManifestHash: string | null;
  manifest: {
    identifier: string;
    agentType: string;
    version: string;
    bundles: number;
    /** Sorted by type. */
    supportedOperations: { type: string; operands: string[] }[];
  } | null;
  http: WireExchange;
}

/** An UPDATE CONFIGURATION as the library's own handler carried it out, before its acknowledgement. */
export interface UpdateStep {
  step: "update";
  operationId: string;
  args: Record<string, unknown>;
  /** The flow download, when the handler made one. */
  http: WireExchange | null;
  /** What the handler handed the agent to run: its size and SHA-256 (hex). */
  flowBytes: number | null;
  flowSha256: string | null;
  /** The state the handler acknowledges with. */
  state: string;
}

/** The agent's updatable bootstrap properties after the library's UPDATE PROPERTIES handler ran. */
export interface PropertiesStep {
  step: "properties";
  operationId: string;
  values: Record<string, string>;
}

/** An UPDATE ASSET as the library's own handler carried it out, before its acknowledgement. */
export interface AssetStep {
  step: "asset";
  operationId: string;
  args: Record<string, unknown>;
  /** The asset download, when the handler made one. */
  http: WireExchange | null;
  /** The file the handler wrote, relative to the agent's asset directory, with its size and SHA-256. */
  file: string | null;
  bytes: number | null;
  sha256: string | null;
  state: string;
}

/** One resource a SYNC RESOURCE touched, as the agent's repository took it. */
export interface ResourceStep {
  step: "resource";
  operationId: string;
  resourceId: string;
  name: string;
  path: string | null;
  /**
   * `downloaded`; `present` (its file was there with the listed digest, so nothing was downloaded);
   * `deleted` (no longer listed); `failed` (the download got nothing); `refused` (a path the agent refuses).
   */
  action: "downloaded" | "present" | "deleted" | "failed" | "refused";
  /** Relative to the agent's asset directory; the file's size and SHA-256 when it is on disk. */
  file: string | null;
  bytes: number | null;
  sha256: string | null;
  http: WireExchange | null;
}

/** A SYNC RESOURCE the library's handler carried out, before its acknowledgement. */
export interface SyncStep {
  step: "sync";
  operationId: string;
  globalHash: { digest?: string; hashType?: string } | null;
  state: string;
  /** The global hash the agent holds now, which its next heartbeat reports. */
  resourcesHash: string | null;
}

/** A TRANSFER DEBUG the library's handler carried out: the bundle's upload, before its acknowledgement. */
export interface DebugStep {
  step: "debug";
  operationId: string;
  args: Record<string, unknown>;
  /** The upload, when the handler made one. */
  http: WireExchange | null;
  state: string;
  details: string | null;
}

/** An operation whose handler threw: the agent logs it and sends no acknowledgement. */
export interface UnhandledStep {
  step: "unhandled";
  operationId: string;
  operation: string;
  operand: string;
  error: string;
}

export type DriverStep =
  | ClientStep
  | HeartbeatStep
  | AckStep
  | UpdateStep
  | PropertiesStep
  | AssetStep
  | ResourceStep
  | SyncStep
  | DebugStep
  | UnhandledStep;

/**
 * The flow an agent runs, as the last UPDATE CONFIGURATION handed it over: the driver keeps it gzipped in its
 * state directory, as MiNiFi Java keeps its flow file (C2ClientDriver's RUNNING_FLOW).
 */
export const runningFlowIn = (stateDir: string): Buffer =>
  gunzipSync(readFileSync(path.join(stateDir, "flow.json.gz")));

/**
 * Packages the driver with Maven on the Temurin 25 JDK unless the jar already matches the sources, the
 * POM and the JDK (recorded in a stamp beside it).
 */
export async function buildJavaDriver(): Promise<void> {
  const javaHome = findJavaHome();
  const fingerprint = sourceFingerprint(javaHome);
  if (existsSync(DRIVER_JAR) && readOptional(BUILD_STAMP) === fingerprint) return;

  const result = await runBounded("mvn", MAVEN_ARGS, {
    cwd: PROJECT_DIR,
    env: {
      ...process.env,
      JAVA_HOME: javaHome,
      PATH: `${path.join(javaHome, "bin")}${path.delimiter}${process.env.PATH ?? ""}`,
      // Maven's bundled Guava calls sun.misc.Unsafe, which Java 25 warns about on every run.
      MAVEN_OPTS: [process.env.MAVEN_OPTS, "--sun-misc-unsafe-memory-access=allow"].filter(Boolean).join(" "),
    },
    timeoutMs: BUILD_TIMEOUT_MS,
  });
  if (result.exitCode !== 0 || !existsSync(DRIVER_JAR)) {
    throw new Error(
      `mvn ${MAVEN_ARGS.join(" ")} in ${PROJECT_DIR} ${describeEnd(result)}\n${outputOf(result)}`,
    );
  }
  writeFileSync(BUILD_STAMP, fingerprint);
}

/**
 * Runs the driver's conversation (heartbeat; DESCRIBE MANIFEST, UPDATE CONFIGURATION, UPDATE PROPERTIES,
 * UPDATE ASSET, SYNC RESOURCE, START/STOP FLOW and TRANSFER DEBUG handled by the library's handlers and acknowledged;
 * heartbeat) and returns its steps.
 * Rejects with the driver's output when it exits non-zero, which it does when any step failed.
 */
export async function runJavaDriver(options: JavaDriverOptions): Promise<DriverStep[]> {
  if (!existsSync(DRIVER_JAR)) throw new Error(`${DRIVER_JAR} is missing: call buildJavaDriver() first`);
  const javaHome = findJavaHome();
  const args = [
    "-jar",
    DRIVER_JAR,
    options.url,
    options.certsDir,
    options.certificate,
    options.agentId,
    options.agentClass,
    options.manifestHash,
    options.compression,
    "--c2-urls",
    options.c2Urls ?? "path-base",
    ...(options.stateDir === undefined ? [] : ["--state-dir", options.stateDir]),
    ...(options.runningFlow === undefined
      ? []
      : ["--running-flow", options.runningFlow.path, "--running-flow-id", options.runningFlow.flowId]),
  ];
  const result = await runBounded(path.join(javaHome, "bin", "java"), args, {
    cwd: PROJECT_DIR,
    env: process.env,
    timeoutMs: options.timeoutMs ?? RUN_TIMEOUT_MS,
  });
  if (result.exitCode !== 0) {
    throw new Error(`the Java C2 client driver ${describeEnd(result)}\n${outputOf(result)}`);
  }
  return parseSteps(result.stdout);
}

/** The steps the driver printed, one JSON object per line. */
function parseSteps(stdout: string): DriverStep[] {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as DriverStep;
      } catch {
        throw new Error(`the Java C2 client driver printed a line that is not JSON: ${line}`);
      }
    });
}

function findJavaHome(): string {
  const candidates = existsSync(JVM_DIR)
    ? readdirSync(JVM_DIR)
        .filter((name) => JDK_PATTERN.test(name))
        .map((name) => path.join(JVM_DIR, name))
        .filter((home) => existsSync(path.join(home, "bin", "java")))
        .sort()
    : [];
  const javaHome = candidates[0];
  if (javaHome === undefined) {
    throw new Error(
      `no Temurin 25 JDK in ${JVM_DIR} (looked for ${JVM_DIR}/*temurin*25*/bin/java): ` +
        "the NiFi 2.3.0 C2 client needs Java 21 or later",
    );
  }
  return javaHome;
}

/** Everything the build depends on in this repository, plus the JDK that compiles it. */
function sourceFingerprint(javaHome: string): string {
  const hash = createHash("sha256").update(`${javaHome}\n${MAVEN_ARGS.join(" ")}\n`);
  const files = [path.join(PROJECT_DIR, "pom.xml"), ...listFiles(path.join(PROJECT_DIR, "src"))].sort();
  for (const file of files) {
    hash
      .update(`${path.relative(PROJECT_DIR, file)}\n`)
      .update(readFileSync(file))
      .update("\n");
  }
  return hash.digest("hex");
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const entryPath = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(entryPath) : [entryPath];
  });
}

function readOptional(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

interface ChildResult {
  timeoutMs: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

interface BoundedOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/** Runs a command to its end or kills it at the deadline; a command that cannot start rejects. */
function runBounded(command: string, args: readonly string[], options: BoundedOptions): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    // SIGKILL: a JVM stuck in a call may not honour SIGTERM promptly, and nothing it holds needs a clean exit.
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${command}: ${error.message}`));
    });
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      resolve({ timeoutMs: options.timeoutMs, exitCode, signal, timedOut, stdout, stderr });
    });
  });
}

function describeEnd(result: ChildResult): string {
  if (result.timedOut) return `was killed after ${result.timeoutMs} ms`;
  return result.signal === null ? `exited with ${result.exitCode}` : `was killed by ${result.signal}`;
}

function outputOf(result: ChildResult): string {
  const tail = (text: string) =>
    text.length > OUTPUT_TAIL_CHARS ? `…${text.slice(-OUTPUT_TAIL_CHARS)}` : text;
  return `--- stdout\n${tail(result.stdout)}\n--- stderr\n${tail(result.stderr)}`;
}
