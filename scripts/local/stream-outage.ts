/**
 * A stream outage on demand, to watch what Beacon does when Kinesis fails. `npm start` puts a pass-through in
 * front of the Kinesis emulator and points the functions at it; `npm run stream-outage` writes, in the local
 * stack's folder, until when the stream is down. Until then the pass-through cuts the connections it carries
 * and drops new ones at once, so the functions' puts fail as they would with the service unreachable, and the
 * emulator keeps what it already has. The poller that feeds the stream consumer reads the emulator directly: on
 * AWS that is the event source mapping, Lambda's own service, not a function.
 */
import { readFileSync, unwatchFile, watchFile } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import net, { type AddressInfo, type Socket } from "node:net";
import path from "node:path";

/** The file `npm run stream-outage` writes: the time (ms since the epoch) the outage ends. */
export const streamOutageFile = (localDir: string) => path.join(localDir, "stream-outage");

export interface StreamPassThrough {
  /** The endpoint the functions use instead of the emulator's. */
  readonly url: string;
  close(): Promise<void>;
}

/** How often the pass-through looks at the outage file: an outage starts within this of being asked for. */
const WATCH_INTERVAL_MS = 250;

function outageEndIn(file: string): number {
  try {
    return Number(readFileSync(file, "utf8")) || 0;
  } catch {
    return 0;
  }
}

/** Starts the pass-through to the emulator on `targetPort`, on a free loopback port. */
export async function startStreamPassThrough(options: {
  targetPort: number;
  localDir: string;
}): Promise<StreamPassThrough> {
  const file = streamOutageFile(options.localDir);
  const carried = new Set<Socket>();
  let outageEnd = outageEndIn(file);
  const down = () => Date.now() < outageEnd;
  const onChange = () => {
    outageEnd = outageEndIn(file);
    if (!down()) return;
    for (const socket of carried) socket.destroy();
  };
  watchFile(file, { interval: WATCH_INTERVAL_MS }, onChange);

  const server = net.createServer((client) => {
    if (down()) {
      client.destroy();
      return;
    }
    const upstream = net.connect(options.targetPort, "127.0.0.1");
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      carried.add(socket);
      socket.on("error", () => other.destroy());
      socket.on("close", () => {
        carried.delete(socket);
        other.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      unwatchFile(file, onChange);
      for (const socket of carried) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Asks the local stack's pass-through to cut the stream off until `end` (ms since the epoch). */
export const startStreamOutage = (localDir: string, end: number): Promise<void> =>
  writeFile(streamOutageFile(localDir), String(end));

/** Ends the outage now. */
export const endStreamOutage = (localDir: string): Promise<void> =>
  rm(streamOutageFile(localDir), { force: true });
