/**
 * `npm run stream-outage -- --seconds 10`: the local stack's functions cannot reach the stream for that long, as
 * when Kinesis is unreachable; it returns when the outage is over. What the functions could not put is held in
 * the cache and put on the stream by the sweeper's next run (see "No event lost" in docs/events.md).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { localDir } from "../local/local-dir.js";
import { endStreamOutage, startStreamOutage } from "../local/stream-outage.js";

const MAX_SECONDS = 600;

const USAGE = `Usage: npm run stream-outage -- [--seconds <n>]

Makes the stream unreachable for the running local stack's functions (npm start), as a Kinesis outage does.
  --seconds  how long, 1 to ${MAX_SECONDS} (default 10); Ctrl-C ends it sooner`;

const { values } = parseCommandLine(USAGE, { options: { seconds: { type: "string", default: "10" } } });
const seconds = Number(values.seconds);
if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_SECONDS) {
  exitWithUsage(USAGE, `--seconds takes a whole number from 1 to ${MAX_SECONDS}`);
}

const dir = localDir();
const end = Date.now() + seconds * 1000;
await startStreamOutage(dir, end);
// Ctrl-C ends the outage with the command.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void endStreamOutage(dir).then(() => process.exit(130)));
}
console.log(`the stream is unreachable for the local stack's functions until ${new Date(end).toISOString()}`);
await sleep(end - Date.now());
await endStreamOutage(dir);
console.log("the stream is reachable again; the sweeper's next run puts what was held on it");
