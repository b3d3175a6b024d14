/**
 * The local stack's functions other than the agent API, in a process of their own, as each is a Lambda function of
 * its own on AWS: the console API behind its JWT-verifying gateway, the sweeper and the webhook dispatcher on their
 * timers, the dispatcher behind the local Lambda Invoke endpoint, and the stream consumer fed by its poller. The
 * agent API's event loop then serves agents only: a consumer catching up on the stream, a sweep or a console page
 * no longer waits in the agents' requests (nor they in its). A process rather than a worker thread so that the
 * agent API's CPU time (process.cpuUsage, the benches' meters) is its own, and so that what the functions load
 * (their modules, clients, process.env) is theirs, as in their own Lambda execution environments.
 *
 * The process runs in a group of its own, so that a terminal's Ctrl-C reaches only the stack, which stops it in
 * order; it ends itself when the stack's process is gone however that ended (its IPC channel closes).
 */
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { TerminalLevel } from "./function-logs.js";

export interface FunctionsProcessOptions {
  /** The stack's function log, which this process's functions add to, and what the terminal shows of it. */
  logFile: string;
  terminalLevel: TerminalLevel;
  /** The backends as the functions reach them (the stream through the outage's pass-through). */
  functionsEnv: Record<string, string>;
  /** The backends as the stream's poller reads them: straight from the emulator, as Lambda's poller reads Kinesis. */
  streamEnv: Record<string, string>;
  /** Where the webhook deliveries of the dispatcher, the sweeper and the consumer may go, and which CA signs them. */
  webhookEnv: Record<string, string>;
  /** The agents' CA folder: the console issues certificates from it, the sweeper reads which CAs are retired. */
  certsDir: string;
  /** The agent gateway's URL, which the console API and the sweeper send agents to. */
  agentApiUrl: string;
  /** The console gateway's and the local Lambda endpoint's ports (0 for any free one). */
  consolePort: number;
  lambdaPort: number;
  /** The folder of the console's local token issuer (console-issuer.ts), whose tokens the console gateway takes. */
  issuerDir: string;
}

/** What the process answers once its functions are loaded and listening. */
export interface FunctionsProcessReady {
  consoleUrl: string;
  lambdaUrl: string;
  webhookDispatcherName: string;
}

export type FunctionsProcessMessage =
  | { type: "ready"; ready: FunctionsProcessReady }
  | { type: "failed"; message: string };

export interface FunctionsProcess extends FunctionsProcessReady {
  /** The process's id, for the benches' CPU meters. */
  readonly pid: number;
  /** Stops the functions in order (a batch or run in progress finishes) and resolves once the process has exited. */
  stop(): Promise<void>;
}

const FUNCTIONS_PROCESS_SCRIPT = fileURLToPath(new URL("./functions-process-main.ts", import.meta.url));
/** The process's command line names its script: the benches' CPU and memory meters find it by that. */
export const FUNCTIONS_PROCESS_COMMAND = /scripts\/local\/functions-process-main\.ts/;
/** Longer than a stream batch or a sweep takes to finish; a process still running then is killed. */
const STOP_GRACE_MS = 20_000;

/** Starts the process and resolves once its functions are ready; rejects with its reason when they cannot start. */
export async function startFunctionsProcess(
  options: FunctionsProcessOptions,
  log: (line: string) => void,
): Promise<FunctionsProcess> {
  const child = fork(FUNCTIONS_PROCESS_SCRIPT, [], {
    execArgv: ["--import", "tsx"],
    // Its output is the stack's: the terminal's, or whatever the stack's own output goes to.
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    detached: true,
  });
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  let stopRequested = false;
  const message = new Promise<FunctionsProcessMessage>((resolve, reject) => {
    child.once("message", (received) => resolve(received as FunctionsProcessMessage));
    child.once("error", reject);
    void exited.then(([code, signal]) =>
      reject(new Error(`the functions process exited (${code ?? signal}) before it was ready`)),
    );
  });
  child.send({ type: "start", options });
  const stop = async () => {
    stopRequested = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (child.connected) child.send({ type: "stop" });
    const killer = setTimeout(() => killGroup(child), STOP_GRACE_MS);
    await exited;
    clearTimeout(killer);
  };
  const answer = await message.catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  if (answer.type === "failed") {
    await stop();
    throw new Error(`the functions process could not start: ${answer.message}`);
  }
  void exited.then(([code, signal]) => {
    if (!stopRequested) log(`Beacon: the functions process exited unexpectedly (${code ?? signal})`);
  });
  return { ...answer.ready, pid: child.pid as number, stop };
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-(child.pid as number), "SIGKILL");
  } catch (error) {
    // ESRCH: gone meanwhile.
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}
