import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { until } from "./until.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The agent service (functions/agent-service/main.ts) in a Node process of its own, as a task runs it. */
export interface AgentServiceProcess {
  readonly child: ChildProcess;
  /** What it wrote to standard output, a line each. */
  readonly stdout: string[];
  stderr(): string;
  /** Stops it with `signal` if it still runs and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the agent service with `env` over this process's environment and waits until `healthUrl` answers 200;
 * fails with what it wrote to standard error if it exits first.
 */
export async function startAgentServiceProcess(
  env: Record<string, string>,
  healthUrl: string,
): Promise<AgentServiceProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "functions/agent-service/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout: string[] = [];
  let partial = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop() ?? "";
    stdout.push(...lines);
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const service: AgentServiceProcess = {
    child,
    stdout,
    stderr: () => stderr,
    async stop(signal = "SIGKILL") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill(signal);
      await exited;
    },
  };
  try {
    await until(
      "the agent service to answer its health check",
      async () => {
        if (child.exitCode !== null) throw new Error(`the agent service exited: ${stderr}`);
        const health = await fetch(healthUrl).catch(() => undefined);
        return health?.status === 200 ? true : undefined;
      },
      120_000,
    );
  } catch (error) {
    await service.stop();
    throw error;
  }
  return service;
}
