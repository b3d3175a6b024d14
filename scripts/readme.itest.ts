/**
 * The README runs as written: `npm start` on ports of its own, then every shell block of the README in
 * order, in one bash shell from the checkout's root, as a reader would type them. Only the default ports
 * in the blocks are replaced by the test stack's. A block fails the test at its first failing command.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePorts, type LocalService, LocalServices } from "./local/ports.js";
import { readmeBlocks, readmeScript } from "./readme-blocks.js";

const repositoryRoot = fileURLToPath(new URL("../", import.meta.url));
const localDir = path.join(repositoryRoot, ".beacon", `readme-test-${process.pid}`);
const backgroundDir = path.join(localDir, "readme");
const STACK_READY_TIMEOUT_MS = 240_000;
const README_TIMEOUT_MS = 15 * 60_000;

let stack: ChildProcess | undefined;
let stackOutput = "";
let ports: Record<LocalService, number>;

/** The caller's environment without anything that would point the test stack at the caller's own. */
function isolatedEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith("BEACON_") || name.startsWith("AWS_ENDPOINT_URL")) continue;
    env[name] = value;
  }
  for (const service of Object.keys(LocalServices) as LocalService[]) {
    env[LocalServices[service].envName] = String(ports[service]);
  }
  return { ...env, BEACON_LOCAL_DIR: localDir, BEACON_SWEEPER_INTERVAL_SECONDS: "5" };
}

function tail(text: string, lines = 60): string {
  return text.split("\n").slice(-lines).join("\n");
}

/** Ends a process group: politely first, as Ctrl-C would, then for good. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.kill(-child.pid, "SIGINT");
  const killer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, "SIGKILL"), 20_000);
  await exited;
  clearTimeout(killer);
}

function stopBackgroundBlocks(): void {
  const pidsFile = path.join(backgroundDir, "pids");
  if (!existsSync(pidsFile)) return;
  for (const pid of readFileSync(pidsFile, "utf8").split("\n").filter(Boolean)) {
    try {
      process.kill(-Number(pid), "SIGTERM");
    } catch {
      // Already ended.
    }
  }
}

function backgroundLogs(): string {
  if (!existsSync(backgroundDir)) return "";
  return readdirSync(backgroundDir)
    .filter((name) => name.endsWith(".log"))
    .map((name) => `--- ${name}\n${tail(readFileSync(path.join(backgroundDir, name), "utf8"), 20)}`)
    .join("\n");
}

beforeAll(async () => {
  const free = await findFreePorts(Object.keys(LocalServices).length);
  ports = Object.fromEntries(
    (Object.keys(LocalServices) as LocalService[]).map((service, index) => [service, free[index]]),
  ) as Record<LocalService, number>;
  mkdirSync(backgroundDir, { recursive: true });
  stack = spawn("npm", ["start"], {
    cwd: repositoryRoot,
    env: isolatedEnv(),
    stdio: ["ignore", "pipe", "pipe"],
    // A group of its own, so the whole stack can be stopped as a terminal's Ctrl-C would.
    detached: true,
  });
  const started = stack;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start was not ready in time:\n${tail(stackOutput)}`)),
      STACK_READY_TIMEOUT_MS,
    );
    const collect = (chunk: Buffer) => {
      stackOutput += chunk.toString("utf8");
      if (stackOutput.includes("Beacon is ready")) {
        clearTimeout(timer);
        resolve();
      }
    };
    started.stdout?.on("data", collect);
    started.stderr?.on("data", collect);
    started.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${tail(stackOutput)}`));
    });
  });
}, STACK_READY_TIMEOUT_MS + 10_000);

afterAll(async () => {
  stopBackgroundBlocks();
  if (stack) await stopGroup(stack);
  rmSync(localDir, { recursive: true, force: true });
}, 60_000);

describe("the README", () => {
  it(
    "runs top to bottom: every shell block in order, against npm start",
    async () => {
      const blocks = readmeBlocks(readFileSync(path.join(repositoryRoot, "README.md"), "utf8"));
      expect(blocks.filter((block) => block.mode === "run").length).toBeGreaterThan(10);
      const scriptPath = path.join(localDir, "readme.sh");
      writeFileSync(
        scriptPath,
        readmeScript(blocks, {
          replacements: [
            ["127.0.0.1:8443", `127.0.0.1:${ports.agent}`],
            ["127.0.0.1:8080", `127.0.0.1:${ports.console}`],
          ],
          backgroundDir,
        }),
      );
      const shell = spawn("bash", [scriptPath], {
        cwd: repositoryRoot,
        env: isolatedEnv(),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      let output = "";
      shell.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      shell.stderr?.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      const exitCode = await new Promise<number | null>((resolve) => shell.once("close", resolve));
      stopBackgroundBlocks();
      const report = `${tail(output)}\n${backgroundLogs()}`;
      expect(exitCode, report).toBe(0);
      expect(output, report).toContain("▶ every README block ran");
    },
    README_TIMEOUT_MS,
  );
});
