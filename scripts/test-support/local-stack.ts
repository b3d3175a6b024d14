/**
 * `npm start` as a user runs it, for tests that drive the whole local stack from outside: on ports the
 * system reports free, with a state folder of its own, in a process group of its own so that stopping it
 * stops everything it started, as Ctrl-C in a terminal would. It stops too when the process that started it
 * ends without stopping it (a test worker killed): its stdin is a pipe from that process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findFreePorts, type LocalService, LocalServices } from "../local/ports.js";
import { STOP_WHEN_STDIN_CLOSES_ENV_NAME } from "../local/stop-with-stdin.js";

export const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));
const DEFAULT_READY_TIMEOUT_MS = 240_000;

export interface LocalStack {
  ports: Record<LocalService, number>;
  /** The stack's environment: hand it to commands that should reach this stack (npm run agents, token). */
  env: NodeJS.ProcessEnv;
  localDir: string;
  /** What npm start has printed so far. */
  output(): string;
  stop(): Promise<void>;
}

export function tail(text: string, lines = 60): string {
  return text.split("\n").slice(-lines).join("\n");
}

/** Ends a process group: politely first, as Ctrl-C would, then for good. */
export async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.kill(-child.pid, "SIGINT");
  const killer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, "SIGKILL"), 20_000);
  await exited;
  clearTimeout(killer);
}

/** Whether a process of this id is running (one that is not ours to signal is running too). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Removes the state folders `<name>-<pid>` in `parent` whose process has ended: a stack stopped because the
 * process that started it ended (killed before its hooks ran) leaves its folder, there being no one left to
 * remove it. A folder of a running process, or named otherwise, is left alone.
 */
export function removeStateFoldersOfEndedProcesses(parent: string, name: string): void {
  const prefix = `${name}-`;
  for (const entry of readdirSync(parent, { withFileTypes: true })) {
    const pid = entry.name.slice(prefix.length);
    if (!entry.isDirectory() || !entry.name.startsWith(prefix) || !/^\d+$/.test(pid)) continue;
    if (!isRunning(Number(pid))) rmSync(path.join(parent, entry.name), { recursive: true, force: true });
  }
}

/**
 * Starts `npm start` and resolves once it prints `Beacon is ready`. `name` names its state folder,
 * `.beacon/<name>-<pid>`, which `stop` removes; those of processes that ended without stopping their stack are
 * removed first.
 */
export async function startLocalStack(
  name: string,
  options: { readyTimeoutMs?: number; env?: Record<string, string> } = {},
): Promise<LocalStack> {
  const readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const services = Object.keys(LocalServices) as LocalService[];
  const free = await findFreePorts(services.length);
  const ports = Object.fromEntries(services.map((service, index) => [service, free[index]])) as Record<
    LocalService,
    number
  >;
  const stateParent = path.join(repositoryRoot, ".beacon");
  mkdirSync(stateParent, { recursive: true });
  removeStateFoldersOfEndedProcesses(stateParent, name);
  const localDir = path.join(stateParent, `${name}-${process.pid}`);
  mkdirSync(localDir, { recursive: true });
  const env = isolatedEnv(ports, {
    BEACON_LOCAL_DIR: localDir,
    // The stack stops when this process ends, however it ends: its end of the stdin pipe closes then.
    [STOP_WHEN_STDIN_CLOSES_ENV_NAME]: "1",
    ...options.env,
  });
  let output = "";
  const child = spawn("npm", ["start"], {
    cwd: repositoryRoot,
    env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  // Nothing is written: the pipe is held only to close with this process.
  child.stdin?.on("error", () => {});
  const stop = async () => {
    await stopGroup(child);
    rmSync(localDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`npm start was not ready in time:\n${tail(output)}`)),
        readyTimeoutMs,
      );
      const collect = (chunk: Buffer) => {
        output += chunk.toString("utf8");
        if (output.includes("Beacon is ready")) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on("data", collect);
      child.stderr?.on("data", collect);
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`npm start exited with ${code}:\n${tail(output)}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { ports, env, localDir, output: () => output, stop };
}

/** The caller's environment without anything that would point the stack at the caller's own. */
function isolatedEnv(ports: Record<LocalService, number>, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith("BEACON_") || name.startsWith("AWS_ENDPOINT_URL")) continue;
    env[name] = value;
  }
  for (const service of Object.keys(LocalServices) as LocalService[]) {
    env[LocalServices[service].envName] = String(ports[service]);
  }
  return { ...env, ...extra };
}
