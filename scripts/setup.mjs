// Installs what `npm start` and `npm test` need: npm packages, Redis, DynamoDB Local.
// Plain Node without dependencies, since it runs before node_modules exists. Every step records
// what it installed and returns at once when that is still current, so running it again is cheap.
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
  writeFileSync,
} from "node:fs";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const stateDir = path.join(repoRoot, ".beacon");
const dynamoDbLocalPom = path.join(repoRoot, "scripts", "local", "dynamodb-local", "pom.xml");
const dynamoDbLocalDir = path.join(stateDir, "tools", "dynamodb-local");

class SetupError extends Error {}

function progress(line) {
  console.log(`setup: ${line}`);
}

/**
 * Runs a command without stdin (CI has none; nothing here may prompt). A quiet command's output is
 * shown only when it fails.
 */
function run(command, args, { quiet = false, ...options } = {}) {
  const result = spawnSync(command, args, {
    stdio: ["ignore", quiet ? "pipe" : "inherit", quiet ? "pipe" : "inherit"],
    encoding: "utf8",
    ...options,
  });
  if (result.error) throw new SetupError(`cannot run ${command}: ${result.error.message}`);
  if (result.status !== 0) {
    if (quiet) process.stderr.write(`${result.stdout}${result.stderr}`);
    throw new SetupError(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
  }
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

// 1. npm packages, reinstalled whenever the lock file differs from the one last installed.
function ensureNpmPackages() {
  const lockFile = path.join(repoRoot, "package-lock.json");
  const stampFile = path.join(stateDir, "npm-install.stamp");
  const hasLock = existsSync(lockFile);
  const installedFrom = () => sha256(hasLock ? lockFile : path.join(repoRoot, "package.json"));
  if (existsSync(path.join(repoRoot, "node_modules")) && readStamp(stampFile) === installedFrom()) {
    progress("npm packages are up to date");
    return;
  }
  // No package's install script is needed, and some would fetch from outside the package registry
  // (Artillery's Playwright engine downloads a browser), which a machine reaching only registries refuses.
  const flags = ["--no-audit", "--no-fund", "--ignore-scripts"];
  if (!hasLock || !npmCleanInstall(flags)) {
    progress(
      hasLock
        ? "npm ci rejected the lock file; installing the locked versions with npm install"
        : "installing npm packages (npm install: no lock file yet)",
    );
    run("npm", ["install", ...flags], { cwd: repoRoot });
  }
  writeStamp(stampFile, installedFrom());
}

/**
 * npm ci, or false when it refuses the lock file as out of sync. npm 11 also refuses a lock that lacks
 * other platforms' optional packages, as written where the registry does not offer them; npm install
 * accepts such a lock and installs exactly its versions.
 */
function npmCleanInstall(flags) {
  progress("installing npm packages (npm ci)");
  const result = spawnSync("npm", ["ci", ...flags], {
    cwd: repoRoot,
    stdio: ["ignore", "inherit", "pipe"],
    encoding: "utf8",
  });
  if (result.error) throw new SetupError(`cannot run npm: ${result.error.message}`);
  if (result.status !== 0 && result.stderr.includes("package.json and package-lock.json")) return false;
  process.stderr.write(result.stderr);
  if (result.status !== 0) throw new SetupError(`npm ci failed (exit ${result.status ?? result.signal})`);
  return true;
}

let aptIndexUpdated = false;

/** Installs Debian packages when we are root; anyone else gets the command to run. */
function aptInstall(packages, missing) {
  const command = `apt-get install ${packages.join(" ")}`;
  if (process.getuid?.() !== 0 || !onPath("apt-get")) {
    throw new SetupError(
      `${missing} is not installed. Install it as root (e.g. sudo ${command} on Debian or Ubuntu, ` +
        "or your system's package manager), then run this again.",
    );
  }
  progress(`installing ${missing} with apt-get (${packages.join(" ")})`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  if (!aptIndexUpdated) {
    run("apt-get", ["update", "-q"], { env });
    aptIndexUpdated = true;
  }
  run("apt-get", ["install", "-y", "-q", "--no-install-recommends", ...packages], { env });
}

function ensureCommand(command, packages) {
  if (!onPath(command)) aptInstall(packages, command);
}

/** Runs a command for its effect only, tolerating its absence or failure. */
function tryQuietly(command, args) {
  spawnSync(command, args, { stdio: "ignore" });
}

// 2. Redis: Beacon runs its own redis-server processes, one per stack, each on its own port.
function ensureRedis() {
  if (onPath("redis-server")) {
    progress("redis-server is installed");
    return;
  }
  ensureCommand("redis-server", ["redis-server"]);
  // The package starts a system-wide Redis on 6379 where an init system runs; it would hold the port
  // the local stack uses, so stop it and keep it from starting at boot.
  if (existsSync("/run/systemd/system")) {
    tryQuietly("systemctl", ["disable", "--now", "redis-server"]);
  } else {
    tryQuietly("service", ["redis-server", "stop"]);
    tryQuietly("update-rc.d", ["redis-server", "disable"]);
  }
}

// 3. DynamoDB Local, fetched by Maven with everything it needs (see its pom.xml), then started once.
async function ensureDynamoDbLocal() {
  const libDir = path.join(dynamoDbLocalDir, "lib");
  const stampFile = path.join(dynamoDbLocalDir, "installed.stamp");
  const wanted = sha256(dynamoDbLocalPom);
  if (existsSync(libDir) && readStamp(stampFile) === wanted) {
    progress("DynamoDB Local is installed");
    return;
  }
  ensureCommand("java", ["default-jre-headless"]);
  ensureCommand("mvn", ["maven"]);
  progress("fetching DynamoDB Local with Maven");
  // Fetched beside the current copy and swapped in only once it runs, so a failure leaves no half state.
  const stagingDir = `${libDir}.staging`;
  rmSync(stagingDir, { recursive: true, force: true });
  // Quiet: Maven 3.8 prints terminal escape codes even in batch mode.
  run(
    "mvn",
    ["-B", "-q", "-f", dynamoDbLocalPom, "dependency:copy-dependencies", `-DoutputDirectory=${stagingDir}`],
    {
      cwd: repoRoot,
      quiet: true,
    },
  );
  progress("checking that DynamoDB Local starts");
  await verifyDynamoDbLocal(stagingDir);
  rmSync(libDir, { recursive: true, force: true });
  renameSync(stagingDir, libDir);
  writeStamp(stampFile, wanted);
}

/** Starts DynamoDB Local on a free port and creates a table, which loads its native SQLite library. */
async function verifyDynamoDbLocal(libDir) {
  const port = await freePort();
  const server = spawn(
    "java",
    [
      "-cp",
      path.join(libDir, "*"),
      "com.amazonaws.services.dynamodbv2.local.main.ServerRunner",
      "-inMemory",
      "-disableTelemetry",
      "-port",
      String(port),
    ],
    // Anything it writes into its working directory stays with the tools.
    { cwd: dynamoDbLocalDir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const collect = (chunk) => {
    output = (output + chunk).slice(-4_000);
  };
  server.stdout.on("data", collect);
  server.stderr.on("data", collect);
  const exited = new Promise((resolve) => server.once("exit", resolve));
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (server.exitCode !== null) throw new SetupError(`DynamoDB Local exited at start:\n${output}`);
      try {
        await createProbeTable(port);
        return;
      } catch (error) {
        // Connection failures mean it is still starting; a wrong answer will not get better.
        if (error instanceof SetupError) throw new SetupError(`${error.message}\n${output}`);
        if (Date.now() > deadline) {
          throw new SetupError(`DynamoDB Local did not answer within 60 s (${error.message}):\n${output}`);
        }
      }
      await sleep(200);
    }
  } finally {
    server.kill();
    await exited;
  }
}

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
    signal: AbortSignal.timeout(5_000),
  });
  const body = await response.text();
  if (!response.ok) throw new SetupError(`CreateTable answered ${response.status}: ${body}`);
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

// 4. Kinesis needs nothing more: kinesalite and kinesis-mock (kinesis-local) are npm packages.

try {
  ensureNpmPackages();
  ensureRedis();
  await ensureDynamoDbLocal();
} catch (error) {
  if (!(error instanceof SetupError)) throw error;
  console.error(`setup failed: ${error.message}`);
  process.exit(1);
}
