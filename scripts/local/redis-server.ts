import { accessSync, constants, mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { type ChildService, startChildService } from "./child-service.js";
import { assertPortFree } from "./ports.js";

/** The redis-server executable on PATH (scripts/setup.mjs installs it). */
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
  throw new Error("redis-server is not on PATH; run: node scripts/setup.mjs");
}

export interface RedisServerOptions {
  port: number;
  stateDir: string;
}

/** A throwaway Redis: loopback only, nothing written to disk. */
export async function startRedisServer(options: RedisServerOptions): Promise<ChildService> {
  const binary = findRedisServerBinary();
  await assertPortFree(options.port, "redis");
  const dataDir = path.join(options.stateDir, "redis");
  mkdirSync(dataDir, { recursive: true });
  return startChildService({
    name: "Redis",
    command: binary,
    args: [
      "--port",
      String(options.port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dataDir,
    ],
    logFile: path.join(options.stateDir, "logs", "redis.log"),
    probe: () => pingRedis(options.port),
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
