/**
 * A benchmark's agent API in several processes (gateway-worker.ts), node:cluster workers sharing the gateway's
 * port: what two agent-service tasks behind the load balancer are, on one machine, so that a rate needing more
 * than one core of Beacon can use both of this machine's.
 */
import cluster, { type Worker } from "node:cluster";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

export const WORKER_SETTINGS_ENV_NAME = "BEACON_BENCH_GATEWAY_WORKER";

export interface GatewayWorkerSettings {
  port: number;
  certsDir: string;
  /** The agent API's environment: backends' endpoints and names, its own URL. */
  env: Record<string, string>;
}

export const GatewayWorkerMessages = { listening: "listening", stop: "stop" } as const;

export interface RunningAgentApi {
  /** The function log (JSON lines) of each process the agent API runs in, where its metric lines go. */
  functionLogFiles: string[];
  close(): Promise<void>;
}

/** Starts `count` workers, each loading the agent API behind the gateway on `settings.port`, once all listen. */
export async function startGatewayWorkers(
  count: number,
  settings: GatewayWorkerSettings,
): Promise<RunningAgentApi> {
  cluster.setupPrimary({
    exec: fileURLToPath(new URL("./gateway-worker.ts", import.meta.url)),
    execArgv: ["--import", "tsx"],
  });
  const workers = Array.from({ length: count }, () =>
    cluster.fork({ [WORKER_SETTINGS_ENV_NAME]: JSON.stringify(settings) }),
  );
  const listening = async (worker: Worker) => {
    const [first] = await Promise.race([
      once(worker, "message"),
      once(worker, "exit").then(([code]) => [{ kind: "exit", code }]),
    ]);
    const { kind, functionLogFile, code } = first as { kind: string; functionLogFile: string; code?: number };
    if (kind !== GatewayWorkerMessages.listening) throw new Error(`a gateway worker ${kind} ${code ?? ""}`);
    return functionLogFile;
  };
  let functionLogFiles: string[];
  try {
    functionLogFiles = await Promise.all(workers.map(listening));
  } catch (error) {
    for (const worker of workers) worker.process.kill();
    throw error;
  }
  return {
    functionLogFiles,
    close: async () => {
      await Promise.all(
        workers.map(async (worker) => {
          const exited = once(worker, "exit");
          worker.send({ kind: GatewayWorkerMessages.stop });
          await exited;
        }),
      );
    },
  };
}
