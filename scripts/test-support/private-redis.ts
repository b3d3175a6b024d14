import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { findFreePort } from "../local/ports.js";
import { startRedisServer } from "../local/redis-server.js";

/** A Redis of one test file's own, so that counting its commands counts only that file's requests. */
export interface PrivateRedis {
  url: string;
  /**
   * The round trips clients made while `work` ran, by command. MONITOR marks the commands a script
   * runs inside Redis as "lua": those are not round trips.
   */
  countRoundTrips<T>(work: () => Promise<T>): Promise<{ result: T; roundTrips: string[] }>;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await findFreePort();
  const stateDir = mkdtempSync(path.join(tmpdir(), "beacon-redis-"));
  const server = await startRedisServer({ port, stateDir });
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    async countRoundTrips(work) {
      const monitor = await new Redis(url).monitor();
      const roundTrips: string[] = [];
      monitor.on("monitor", (_time: string, args: string[], source: string) => {
        if (source !== "lua") roundTrips.push(args[0] ?? "");
      });
      const result = await work();
      // MONITOR reports asynchronously: let the last commands arrive.
      await sleep(200);
      monitor.disconnect();
      return { result, roundTrips };
    },
    async stop() {
      await server.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
