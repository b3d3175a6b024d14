/**
 * `npm run loadtest -- <scenario> [--target URL] [--certs DIR] [--certificate NAME] [--function-log FILE]
 * [--skip-counters] [--print-variables]`: runs one Artillery scenario against a running agent API (`npm start` by default),
 * writes Artillery's JSON report to .beacon/loadtests/ and prints a summary. Exits 1, naming each reason,
 * when an SLO check of the scenario failed (p99, error rate) or one of Beacon's own counters over the run
 * (read from the stack's function log) is over its bound; warns when the generator could not hold the rate.
 * Writes an HTML report with charts beside the JSON (report.ts). --print-variables prints the variables it
 * would pass to Artillery, as JSON, and runs nothing: for Artillery's distributed runners.
 */
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { exitWithUsage, parseCommandLine } from "../scripts/common/command-line.mjs";
import { functionLogIn } from "../scripts/local/function-logs.js";
import { localDir } from "../scripts/local/local-dir.js";
import { localPorts } from "../scripts/local/ports.js";
import {
  BEACON_COUNTERS,
  counterReasons,
  generatorWarnings,
  readBeaconCounters,
  sloReasons,
} from "./gates.js";
import { numericVariables, writeRunReport } from "./report.js";
import {
  artilleryInputs,
  type MetricSummary,
  runScenario,
  SCENARIOS,
  type ScenarioName,
  summarise,
} from "./run-scenario.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const usage = `Usage: npm run loadtest -- <${SCENARIOS.join("|")}> [--target URL] [--certs DIR] [--certificate NAME]
         [--function-log FILE] [--skip-counters] [--print-variables]

Runs one Artillery scenario against a running agent API (npm start by default) and checks its SLOs and Beacon's
counters; exits 1 naming each check that failed.
  --target           the agent API (BEACON_LOADTEST_TARGET; default npm start's)
  --certs            the folder of ca.pem and the client certificate (BEACON_LOADTEST_CERTS; default .beacon/certs)
  --certificate      the client certificate's name in it (BEACON_LOADTEST_CERTIFICATE; default dev-fleet)
  --function-log     the stack's function log, for Beacon's counters (BEACON_LOADTEST_FUNCTION_LOG)
  --skip-counters    do not check Beacon's counters
  --print-variables  print the variables it would pass to Artillery, as JSON, and run nothing`;

const { values, positionals } = parseCommandLine(usage, {
  allowPositionals: true,
  options: {
    target: { type: "string", default: process.env.BEACON_LOADTEST_TARGET },
    certs: { type: "string", default: process.env.BEACON_LOADTEST_CERTS },
    certificate: { type: "string", default: process.env.BEACON_LOADTEST_CERTIFICATE ?? "dev-fleet" },
    "function-log": {
      type: "string",
      default: process.env.BEACON_LOADTEST_FUNCTION_LOG ?? functionLogIn(localDir()),
    },
    "skip-counters": { type: "boolean", default: false },
    "print-variables": { type: "boolean", default: false },
  },
});
const scenario = positionals[0];
if (positionals.length !== 1 || !SCENARIOS.includes(scenario as ScenarioName)) {
  exitWithUsage(usage, `give one scenario: ${SCENARIOS.join(", ")}`);
}
const target = values.target ?? `https://127.0.0.1:${localPorts().agent}`;
const certsDir = values.certs ?? path.join(root, ".beacon/certs");
const functionLog = values["function-log"] as string;

if (values["print-variables"]) {
  // For Artillery's own runners (run-fargate, run-lambda): what this runner would pass as --variables.
  const { variables } = await artilleryInputs({
    scenario: scenario as ScenarioName,
    certsDir,
    certificate: values.certificate as string,
  });
  console.log(JSON.stringify(variables));
  process.exit(0);
}

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
console.log("");
console.log(`${scenario} against ${target}: ${numericVariables(run)}`);
console.log(
  `requests ${summary.requests} (${summary.requestsPerSecond}/s), agents ${summary.vusersCreated} (${summary.vusersFailed} failed)`,
);
if (summary.responseTime) console.log(`response time ms: ${milliseconds(summary.responseTime)}`);
for (const [name, time] of Object.entries(summary.responseTimeBreakdown)) {
  console.log(`  ${name}: ${milliseconds(time)}`);
}
console.log(`status codes ${JSON.stringify(summary.codes)}, errors ${JSON.stringify(summary.errors)}`);
console.log(`agents and messages ${JSON.stringify(summary.beacon)}`);
if (summary.generatorDelay)
  console.log(
    `load generator's event-loop delay ms (mean of each second): ${milliseconds(summary.generatorDelay)}`,
  );
console.log(`report ${reportPath}`);

const reasons = sloReasons(run, summary);
const readCounters = !values["skip-counters"] && existsSync(functionLog);
if (values["skip-counters"]) {
  console.log(
    "Beacon's counters: not read (--skip-counters); a deployed stack's are in CloudWatch, namespace Beacon",
  );
} else if (!existsSync(functionLog)) {
  reasons.push(
    `Beacon's counters could not be read: no function log at ${functionLog} ` +
      "(npm start writes it in its BEACON_LOCAL_DIR; for a deployed stack pass --skip-counters)",
  );
} else {
  const window = { from: run.startedAt, to: run.finishedAt };
  const counters = await readBeaconCounters(functionLog, window);
  const time = (at: number) => new Date(at).toTimeString().slice(0, 8);
  console.log(
    `Beacon's counters: ${BEACON_COUNTERS.map((name) => `${name} ${counters[name]}`).join(", ")} ` +
      `(${functionLog}, ${time(window.from)} to ${time(window.to)})`,
  );
  reasons.push(...counterReasons(run, counters));
}

const warnings = generatorWarnings(run, summary);
const htmlReport = await writeRunReport(scenario as ScenarioName, run, reportPath, {
  functionLog: readCounters ? functionLog : undefined,
  facts: [
    `requests ${summary.requests} (${summary.requestsPerSecond}/s), agents ${summary.vusersCreated} (${summary.vusersFailed} failed)`,
    ...(summary.responseTime ? [`response time ms: ${milliseconds(summary.responseTime)}`] : []),
    reasons.length === 0 ? "passed every gate" : `FAILED: ${reasons.join("; ")}`,
    ...warnings.map((warning) => `warning: ${warning}`),
    `this machine: ${availableParallelism()} cores, load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(" / ")} (1 / 5 / 15 min) at the end`,
  ],
});
console.log(`HTML report ${htmlReport}`);
if (warnings.length > 0) {
  console.log("warning: the load generator could not hold the planned rate; response times may read long:");
  for (const warning of warnings) console.log(`  - ${warning}`);
}
if (reasons.length > 0) {
  console.log(`${scenario} FAILED:`);
  for (const reason of reasons) console.log(`  - ${reason}`);
  process.exit(1);
}
console.log(
  `${scenario} passed: SLO checks (${run.variables.maxP99Ms} ms p99, ${run.variables.maxErrorRate} % agents failed) and Beacon's counters within bounds`,
);
process.exit(0);

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
