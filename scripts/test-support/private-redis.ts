import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
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
      const monitor = await watchCommands(port);
      try {
        const result = await work();
        // MONITOR reports in the order Redis ran the commands: once a marker sent after the work shows up,
        // every command of the work has.
        const marker = `beacon-round-trips-end-${randomUUID()}`;
        await sendInline(port, `ECHO ${marker}`);
        const commands = await monitor.before(
          (command) => command.name === "echo" && command.args[0] === marker,
        );
        const roundTrips = commands
          .filter((command) => command.source !== "lua")
          .map((command) => command.name);
        return { result, roundTrips };
      } finally {
        monitor.close();
      }
    },
    async stop() {
      await server.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

interface MonitoredCommand {
  name: string;
  args: string[];
  /** `lua` for a command a script ran inside Redis, else the client's address. */
  source: string;
}

/**
 * MONITOR over a socket of its own. ioredis's monitor mode loses a race when commands of other clients
 * arrive in the same read as MONITOR's OK, which a busy server makes likely; the protocol is simple enough
 * to read directly: one `+<time> [<db> <source>] "<command>" "<arg>"...` line per command.
 */
async function watchCommands(port: number) {
  const socket = createConnection({ host: "127.0.0.1", port });
  socket.setEncoding("utf8");
  const commands: MonitoredCommand[] = [];
  let buffered = "";
  let started: () => void;
  const monitoring = new Promise<void>((resolve, reject) => {
    started = resolve;
    socket.once("error", reject);
  });
  let seen: (() => void) | undefined;
  let closed = false;
  socket.once("close", () => {
    closed = true;
    seen?.();
  });
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    let end = buffered.indexOf("\r\n");
    while (end >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (line === "+OK") started();
      else commands.push(parseMonitorLine(line));
      end = buffered.indexOf("\r\n");
    }
    seen?.();
  });
  socket.write("MONITOR\r\n");
  await monitoring;
  return {
    /** The commands seen before the first that `isEnd` matches, waiting for that one to arrive. */
    async before(isEnd: (command: MonitoredCommand) => boolean): Promise<MonitoredCommand[]> {
      for (;;) {
        const end = commands.findIndex(isEnd);
        if (end >= 0) return commands.slice(0, end);
        if (closed) throw new Error("The Redis server closed the MONITOR connection");
        await new Promise<void>((resolve) => {
          seen = resolve;
        });
      }
    },
    close: () => socket.destroy(),
  };
}

function parseMonitorLine(line: string): MonitoredCommand {
  const source = /^\+[\d.]+ \[\d+ ([^\]]+)\]/.exec(line)?.[1] ?? "";
  const quoted = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1] ?? "");
  const [name = "", ...args] = quoted;
  return { name: name.toLowerCase(), args, source };
}

/** One inline command on a connection of its own, answered before it returns. */
async function sendInline(port: number, command: string): Promise<void> {
  const socket = createConnection({ host: "127.0.0.1", port });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.once("data", () => resolve());
      socket.write(`${command}\r\n`);
    });
  } finally {
    socket.destroy();
  }
}
