import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** A backend process of the local stack, started by startChildService. */
export interface ChildService {
  /** Terminates the service and resolves once it has exited; safe to call more than once. */
  stop(): Promise<void>;
}

/** A service that runs as a process group of its own, which a test can freeze as a stalled host would. */
export interface ProcessService extends ChildService {
  /**
   * Stops the service's processes where they are (SIGSTOP), as a host that stops scheduling them does: its port
   * still takes connections and requests, and nothing answers them until thaw().
   */
  freeze(): void;
  /** Lets a frozen service run on (SIGCONT): it answers what it was sent meanwhile. */
  thaw(): void;
}

export interface ChildServiceOptions {
  /** Human name used in errors, e.g. "DynamoDB Local". */
  name: string;
  command: string;
  args: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The service's stdout and stderr go here, so its own diagnostics survive it. */
  logFile: string;
  /** One real request to the service; resolves when it answers correctly, rejects otherwise. */
  probe: () => Promise<void>;
  readyTimeoutMs?: number;
}

/**
 * Runs the service under a small shell watchdog that sends it SIGTERM when the watchdog's stdin closes.
 * The Node parent holds the other end of that pipe, and the kernel closes it however the parent ends
 * (return, crash, SIGKILL), so no emulator outlives the process that started it. Every service here
 * exits promptly on SIGTERM; stop() escalates to SIGKILL for one that does not.
 */
const watchdogScript = `
exec 3<&0
"$@" 3<&- </dev/null &
service=$!
{ while read -r _ <&3; do :; done; kill -TERM "$service" 2>/dev/null; } &
watcher=$!
wait "$service"
status=$?
kill "$watcher" 2>/dev/null
exit "$status"
`;

const stopGraceMs = 8_000;
const probeIntervalMs = 100;
const logTailBytes = 4_000;

/** Starts the service and resolves once its probe succeeds; rejects with its log tail when it does not. */
export async function startChildService(options: ChildServiceOptions): Promise<ProcessService> {
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const logFd = openSync(options.logFile, "w");
  let child: ChildProcess;
  try {
    child = spawn("/bin/sh", ["-c", watchdogScript, "watchdog", options.command, ...options.args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["pipe", logFd, logFd],
      // A group of its own keeps a terminal's Ctrl-C away from the service, so the parent stops it in order.
      detached: true,
    });
  } finally {
    closeSync(logFd);
  }
  const exited = once(child, "exit");
  // An orderly stop ends the pipe; an error on it only means the watchdog is already gone.
  child.stdin?.on("error", () => {});

  let stopRequested = false;
  // The whole group: the watchdog, its watcher and the service (and whatever the service started).
  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch (error) {
      // ESRCH: gone meanwhile.
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  };
  const service: ProcessService = {
    async stop() {
      stopRequested = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      // A frozen service would not act on SIGTERM until the grace is over.
      signalGroup("SIGCONT");
      child.stdin?.end();
      const outcome = await Promise.race([exited.then(() => "exited"), sleep(stopGraceMs, "timeout")]);
      if (outcome === "timeout") {
        signalGroup("SIGKILL");
        await exited;
      }
    },
    freeze: () => signalGroup("SIGSTOP"),
    thaw: () => signalGroup("SIGCONT"),
  };

  try {
    await waitUntilAnswering(options, child);
  } catch (error) {
    await service.stop();
    throw error;
  }
  // A backend gone while in use leaves only puzzling errors in the handlers; say what happened.
  child.once("exit", (code, signal) => {
    if (!stopRequested)
      console.error(`${options.name} exited unexpectedly (${code ?? signal}); ${logTail(options.logFile)}`);
  });
  return service;
}

async function waitUntilAnswering(options: ChildServiceOptions, child: ChildProcess): Promise<void> {
  const timeoutMs = options.readyTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `${options.name} exited (${child.exitCode ?? child.signalCode}) before answering; ${logTail(options.logFile)}`,
      );
    }
    try {
      await options.probe();
      // A foreign process on the same port could have answered; only a live child counts as ready.
      if (child.exitCode === null && child.signalCode === null) return;
    } catch (error) {
      lastError = error;
    }
    await sleep(probeIntervalMs);
  }
  const reason = lastError instanceof Error ? ` (last attempt: ${lastError.message})` : "";
  throw new Error(
    `${options.name} did not answer within ${timeoutMs} ms${reason}; ${logTail(options.logFile)}`,
  );
}

function logTail(logFile: string): string {
  let text: string;
  try {
    text = readFileSync(logFile, "utf8");
  } catch {
    return `no output (${logFile} unreadable)`;
  }
  const tail = text.slice(-logTailBytes).trim();
  return tail === "" ? `no output in ${logFile}` : `last output (${logFile}):\n${tail}`;
}
