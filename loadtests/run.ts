/**
 * `npm run loadtest -- <scenario> [--target URL] [--certs DIR] [--certificate NAME]`: runs one
 * Artillery scenario against a running agent API (`npm start` by default), writes Artillery's JSON
 * report to .beacon/loadtests/ and prints a summary. Exits 1 when any request failed or was not
 * answered 200.
 */
import { connect } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { localPorts } from "../scripts/local/ports.js";
import { type MetricSummary, runScenario, SCENARIOS, type ScenarioName, summarise } from "./run-scenario.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const usage = `usage: npm run loadtest -- <${SCENARIOS.join("|")}> [--target URL] [--certs DIR] [--certificate NAME]`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    target: { type: "string", default: process.env.BEACON_LOADTEST_TARGET },
    certs: { type: "string", default: process.env.BEACON_LOADTEST_CERTS },
    certificate: { type: "string", default: process.env.BEACON_LOADTEST_CERTIFICATE ?? "dev-fleet" },
  },
});
const scenario = positionals[0];
if (positionals.length !== 1 || !SCENARIOS.includes(scenario as ScenarioName)) {
  console.error(usage);
  process.exit(2);
}
const target = values.target ?? `https://127.0.0.1:${localPorts().agent}`;
const certsDir = values.certs ?? path.join(root, ".beacon/certs");

await assertListening(target);
const reportPath = path.join(
  root,
  ".beacon/loadtests",
  `${scenario}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`,
);
const run = await runScenario({
  scenario: scenario as ScenarioName,
  target,
  certsDir,
  certificate: values.certificate as string,
  reportPath,
  output: "inherit",
});
const summary = summarise(run.report);
const milliseconds = (time: MetricSummary) =>
  `median ${time.median}  p95 ${time.p95}  p99 ${time.p99}  max ${time.max}`;
const variables = Object.entries(run.variables)
  .filter(([, value]) => typeof value === "number")
  .map(([name, value]) => `${name}=${value}`)
  .join(" ");
console.log("");
console.log(`${scenario} against ${target}: ${variables}`);
console.log(
  `requests ${summary.requests} (${summary.requestsPerSecond}/s), agents ${summary.vusersCreated} (${summary.vusersFailed} failed)`,
);
if (summary.responseTime) console.log(`response time ms: ${milliseconds(summary.responseTime)}`);
for (const [name, time] of Object.entries(summary.responseTimeBreakdown)) {
  console.log(`  ${name}: ${milliseconds(time)}`);
}
console.log(`status codes ${JSON.stringify(summary.codes)}, errors ${JSON.stringify(summary.errors)}`);
console.log(`agents and messages ${JSON.stringify(summary.beacon)}`);
console.log(`report ${reportPath}`);
process.exit(Object.keys(summary.errors).length === 0 && summary.non200 === 0 ? 0 : 1);

/** Fails in a second, naming the likely cause, rather than after a whole run of connection errors. */
async function assertListening(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  await new Promise<void>((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ""), port: Number(port || 443) });
    socket.once("connect", () => {
      socket.destroy();
      resolve();
    });
    socket.once("error", (error) => {
      console.error(`loadtest: nothing answers at ${url} (${error.message}); is \`npm start\` running?`);
      process.exit(1);
    });
  });
}
