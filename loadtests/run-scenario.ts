/**
 * Runs one Artillery scenario of this folder as a child process and reads its JSON report. Used by
 * `npm run loadtest` (run.ts) and by the integration test, so that both run scenarios the same way.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { parse } from "yaml";
import { GENERATOR_DELAY_METRIC } from "./generator-delay.js";

const loadtestsDir = fileURLToPath(new URL("./", import.meta.url));
const require = createRequire(import.meta.url);

/** The Artillery scripts of this folder, `<name>.yml`. */
export const SCRIPTS = ["fleet-steady", "manifest-herd"] as const;
export type ScriptName = (typeof SCRIPTS)[number];
/**
 * Profiles, `profiles/<name>.yml`: a script and the variables that make it one of the incumbent's published
 * tests (registration: new agents arriving at a rate; steady: a registered fleet online within a minute),
 * time-compressed to fit one machine, or at full size for a deployed stack (`-full`).
 */
export const PROFILES = ["registration", "steady", "registration-full", "steady-full"] as const;
export const SCENARIOS = [...SCRIPTS, ...PROFILES] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** Prefix of the environment variables that override a scenario's variables: BEACON_LOADTEST_AGENTS. */
const VARIABLE_ENV_PREFIX = "BEACON_LOADTEST_";

export interface ScenarioRunOptions {
  scenario: ScenarioName;
  /** The agent API's base URL, e.g. https://127.0.0.1:8443. */
  target: string;
  /** Holds ca.pem and `<certificate>.pem/.key`. */
  certsDir: string;
  /** Client certificate name in certsDir; a fleet certificate, since every virtual user is another agent. */
  certificate: string;
  /** The C2 example payloads the agents' messages are built from; DEFAULT_EXAMPLES_DIR unless set. */
  examplesDir?: string;
  reportPath: string;
  /** Scenario variables to set, over the YAML's defaults and the BEACON_LOADTEST_* environment. */
  variables?: Record<string, number>;
  env?: Readonly<Record<string, string | undefined>>;
  /** Artillery's console output, always in the result: also shown on this process's, or not. */
  output: "inherit" | "collect";
}

export interface ScenarioRun {
  /** Artillery's console output (also shown, when inherited). */
  output: string;
  /** The Artillery script run: the scenario's own, or its profile's. */
  script: ScriptName;
  /** Every variable the scenario ran with. */
  variables: Record<string, number | string>;
  report: ArtilleryReport;
  /** The SLO checks (the scenario's `ensure`) that failed, as Artillery states them. */
  failedChecks: string[];
  /** When Artillery started and ended, in ms since the epoch: the window Beacon's counters are read in. */
  startedAt: number;
  finishedAt: number;
}

/** The parts of Artillery's JSON report (--output) used here. */
export interface ArtilleryReport {
  aggregate: {
    counters: Record<string, number>;
    summaries: Record<string, MetricSummary>;
    firstMetricAt: number;
    lastMetricAt: number;
  };
}

export interface MetricSummary {
  count: number;
  min: number;
  max: number;
  mean: number;
  median: number;
  p95: number;
  p99: number;
}

const scriptPath = (script: ScriptName): string => path.join(loadtestsDir, `${script}.yml`);

interface Profile {
  script: ScriptName;
  variables: Record<string, number>;
}

/** A script runs as itself; a profile names its script and the variables it sets over the script's. */
async function profileOf(scenario: ScenarioName): Promise<Profile> {
  if ((SCRIPTS as readonly string[]).includes(scenario))
    return { script: scenario as ScriptName, variables: {} };
  const profile = parse(
    await readFile(path.join(loadtestsDir, "profiles", `${scenario}.yml`), "utf8"),
  ) as Profile;
  if (!SCRIPTS.includes(profile.script))
    throw new Error(`profile ${scenario} names no script of ${SCRIPTS.join(", ")}`);
  return profile;
}

/** The real C2 payloads the project keeps as fixtures (schemas/c2/examples). */
const DEFAULT_EXAMPLES_DIR = path.join(loadtestsDir, "../schemas/c2/examples");

/** The environment variable that overrides a scenario variable: maxP99Ms is BEACON_LOADTEST_MAX_P99_MS. */
export const variableEnvName = (name: string): string =>
  `${VARIABLE_ENV_PREFIX}${name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`;

/**
 * The scenario's variables: its script's YAML defaults, then its profile's, overridden by
 * BEACON_LOADTEST_<NAME> (camelCase names in upper snake case), then by `overrides`. Artillery resolves
 * config templates such as the phases only from --variables, not from config.variables, so every one of
 * them is passed explicitly.
 */
export async function scenarioVariables(
  scenario: ScenarioName,
  env: Readonly<Record<string, string | undefined>> = process.env,
  overrides: Record<string, number> = {},
): Promise<{ script: ScriptName; variables: Record<string, number> }> {
  const profile = await profileOf(scenario);
  const script = parse(await readFile(scriptPath(profile.script), "utf8")) as {
    config: { variables: Record<string, number> };
  };
  const variables: Record<string, number> = {};
  for (const [name, defaultValue] of Object.entries({ ...script.config.variables, ...profile.variables })) {
    const envName = variableEnvName(name);
    const fromEnv = env[envName];
    const value =
      overrides[name] ?? (fromEnv === undefined || fromEnv === "" ? defaultValue : Number(fromEnv));
    if (!Number.isFinite(value)) throw new Error(`${envName}=${fromEnv} is not a number`);
    variables[name] = value;
  }
  return { script: profile.script, variables: withArrivalRate(variables) };
}

/**
 * A profile may state its arrivals as a rate (arrivalRate agents a second, as the incumbent does) rather
 * than as the seconds the fleet takes to start: the script's rampSeconds follow from it.
 */
export function withArrivalRate(variables: Record<string, number>): Record<string, number> {
  const { arrivalRate, agents } = variables;
  if (arrivalRate === undefined || agents === undefined) return variables;
  if (arrivalRate <= 0) throw new Error(`arrivalRate=${arrivalRate} is not a rate`);
  // Whole seconds, as Artillery's phase durations are.
  return { ...variables, rampSeconds: Math.max(1, Math.ceil(agents / arrivalRate)) };
}

/**
 * Everything Artillery is passed for a run of the scenario: its script and, as --variables, the scenario's
 * variables and the run's own (ids, certificates, example payloads). `npm run loadtest -- <scenario>
 * --print-variables` prints them, for Artillery's distributed runners.
 */
export async function artilleryInputs(
  options: Pick<
    ScenarioRunOptions,
    "scenario" | "certsDir" | "certificate" | "examplesDir" | "variables" | "env"
  >,
): Promise<{ scriptPath: string; script: ScriptName; variables: Record<string, number | string> }> {
  const { script, variables } = await scenarioVariables(
    options.scenario,
    options.env ?? process.env,
    options.variables,
  );
  return {
    scriptPath: scriptPath(script),
    script,
    variables: {
      ...variables,
      // New per run: agents that Beacon has never seen, and (for Java agents) a manifest it does not know,
      // shaped like the Java agent's lower-case hex SHA-512.
      runId: randomBytes(4).toString("hex"),
      javaManifestHash: randomBytes(64).toString("hex"),
      certsDir: path.resolve(options.certsDir),
      certificate: options.certificate,
      examplesDir: path.resolve(options.examplesDir ?? DEFAULT_EXAMPLES_DIR),
    },
  };
}

export async function runScenario(options: ScenarioRunOptions): Promise<ScenarioRun> {
  const env = options.env ?? process.env;
  const { script, variables } = await artilleryInputs(options);
  const runId = variables.runId;
  const reportDir = path.dirname(options.reportPath);
  await mkdir(reportDir, { recursive: true });
  const processorPath = path.join(reportDir, `processor-${runId}.mjs`);
  try {
    await bundleProcessor(processorPath);
    const startedAt = Date.now();
    const { exitCode, output } = await runArtillery(
      [
        scriptPath(script),
        "--target",
        options.target,
        "--variables",
        JSON.stringify(variables),
        "--overrides",
        JSON.stringify({ config: { processor: processorPath } }),
        "--output",
        options.reportPath,
      ],
      env,
      options.output,
    );
    const finishedAt = Date.now();
    const failedChecks = failedChecksIn(output);
    // A failed check exits 1 too; any other failure leaves no verdict to read.
    if (exitCode !== 0 && failedChecks.length === 0) {
      throw new Error(`artillery exited with ${exitCode} running ${options.scenario}\n${output}`);
    }
    const report = JSON.parse(await readFile(options.reportPath, "utf8")) as ArtilleryReport;
    return { output, script, variables, report, failedChecks, startedAt, finishedAt };
  } finally {
    await rm(processorPath, { force: true });
  }
}

/**
 * processor.ts and what it imports, as one ES module. Artillery's own TypeScript support bundles to
 * CommonJS in a .js file, which Node loads as ESM in this "type": "module" package, and fails.
 */
async function bundleProcessor(outfile: string): Promise<void> {
  await build({
    entryPoints: [path.join(loadtestsDir, "processor.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    // Artillery runs it on this process's Node (process.execPath below): Lambda's Node 22 in the tests,
    // the machine's for `npm run loadtest`.
    target: `node${process.versions.node}`,
    logLevel: "warning",
  });
}

async function runArtillery(
  args: string[],
  env: Readonly<Record<string, string | undefined>>,
  output: ScenarioRunOptions["output"],
): Promise<{ exitCode: number; output: string }> {
  const child = spawn(
    process.execPath,
    [
      "--require",
      path.join(loadtestsDir, "no-telemetry.cjs"),
      require.resolve("artillery/bin/run"),
      "run",
      ...args,
    ],
    {
      // Set even with the preload: it also keeps Artillery from collecting what it would send.
      env: { ...env, ARTILLERY_DISABLE_TELEMETRY: "true" },
      // Read even when shown: the ensure plugin's verdict is only in its output.
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const chunks: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    if (output === "inherit") process.stdout.write(chunk);
  });
  const exitCode = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
  return { exitCode, output: Buffer.concat(chunks).toString("utf8") };
}

/**
 * The checks Artillery's ensure plugin reports as failed: after "Checks:", one line per check, "ok: <check>"
 * or "fail: <check>" (colour codes aside).
 */
export function failedChecksIn(output: string): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes are control characters.
  const plain = output.replace(/\u001b\[[0-9;]*m/g, "");
  return [...plain.matchAll(/^fail: (.+)$/gm)].map((match) => (match[1] ?? "").trim());
}

export interface RunSummary {
  requests: number;
  /** Averaged from the first metric to the last, ramp and pauses included. */
  requestsPerSecond: number;
  /** Time to first byte after the request was sent, in ms, as Artillery measures http.response_time. */
  responseTime: MetricSummary | undefined;
  errors: Record<string, number>;
  codes: Record<string, number>;
  non200: number;
  vusersCreated: number;
  vusersFailed: number;
  /**
   * Response times by path (heartbeats apart from acknowledgements, which may carry a manifest) and,
   * from the processor, first heartbeats apart from steady ones.
   */
  responseTimeBreakdown: Record<string, MetricSummary>;
  /** The processor's own counters (beacon.*): agents and messages by kind. */
  beacon: Record<string, number>;
  /** The generator's event-loop delay, each second's mean, in ms (generator-delay.ts). */
  generatorDelay: MetricSummary | undefined;
  /** From the first metric to the last, in seconds. */
  durationSeconds: number;
}

export function summarise(report: ArtilleryReport): RunSummary {
  const { counters, summaries, firstMetricAt, lastMetricAt } = report.aggregate;
  const pick = <T>(metrics: Record<string, T>, prefix: string): Record<string, T> =>
    Object.fromEntries(
      Object.entries(metrics)
        .filter(([name]) => name.startsWith(prefix))
        .map(([name, value]) => [name.slice(prefix.length), value]),
    );
  const requests = counters["http.requests"] ?? 0;
  const codes = pick(counters, "http.codes.");
  const seconds = Math.max(1, lastMetricAt - firstMetricAt) / 1000;
  return {
    requests,
    requestsPerSecond: Math.round((requests / seconds) * 10) / 10,
    responseTime: summaries["http.response_time"],
    errors: pick(counters, "errors."),
    codes,
    non200: Object.entries(codes).reduce((sum, [code, count]) => sum + (code === "200" ? 0 : count), 0),
    vusersCreated: counters["vusers.created"] ?? 0,
    vusersFailed: counters["vusers.failed"] ?? 0,
    responseTimeBreakdown: {
      ...pick(summaries, "plugins.metrics-by-endpoint.response_time."),
      ...pick(summaries, "beacon.response_time."),
    },
    beacon: pick(counters, "beacon."),
    generatorDelay: summaries[GENERATOR_DELAY_METRIC],
    durationSeconds: seconds,
  };
}
