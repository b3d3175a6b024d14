import { accessSync, constants, mkdirSync, rmSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { type ChildService, startChildService } from "./child-service.js";
import { assertPortFree } from "./ports.js";

/** The redis-server executable on PATH (scripts/build/setup.mjs installs it). */
export function findRedisServerBinary(searchPath = process.env.PATH ?? ""): string {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, "redis-server");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  throw new Error("redis-server is not on PATH; run: node scripts/build/setup.mjs");
}

export interface RedisServerOptions {
  port: number;
  stateDir: string;
  /** Makes it a node of a Redis Cluster, which speaks to the other nodes on this port. */
  clusterBusPort?: number;
}

/** A throwaway Redis: loopback only, no data written to disk (a cluster node keeps its nodes.conf). */
export async function startRedisServer(options: RedisServerOptions): Promise<ChildService> {
  const binary = findRedisServerBinary();
  const { port, clusterBusPort } = options;
  await assertPortFree(port, "redis");
  if (clusterBusPort !== undefined) await assertPortFree(clusterBusPort, "redis");
  const name = clusterBusPort === undefined ? "redis" : `redis-${port}`;
  const dataDir = path.join(options.stateDir, name);
  // A node's nodes.conf from an earlier start would bring back a cluster of nodes that are gone.
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const clusterArgs =
    clusterBusPort === undefined
      ? []
      : [
          "--cluster-enabled",
          "yes",
          "--cluster-port",
          String(clusterBusPort),
          "--cluster-config-file",
          "nodes.conf",
        ];
  return startChildService({
    name: clusterBusPort === undefined ? "Redis" : `Redis cluster node ${port}`,
    command: binary,
    args: [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dataDir,
      ...clusterArgs,
    ],
    logFile: path.join(options.stateDir, "logs", `${name}.log`),
    probe: () => pingRedis(port),
    readyTimeoutMs: 10_000,
  });
}

/** Sends PING in the wire protocol and expects PONG; no client library needed for one command. */
function pingRedis(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.setTimeout(1_000, () => socket.destroy(new Error("no answer to PING within 1 s")));
    let reply = "";
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString("latin1");
      if (!reply.includes("\r\n")) return;
      socket.end();
      if (reply.startsWith("+PONG")) resolve();
      else reject(new Error(`unexpected reply to PING: ${reply.trim()}`));
    });
    socket.on("error", reject);
  });
}
