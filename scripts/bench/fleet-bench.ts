/**
 * What the benches over one tenant's large fleet (agent-fleet.ts) share: their options, their command line
 * (`--agents`, `--rounds`, `--concurrency`) and backends of their own, on free ports, in a state folder under
 * .beacon/ that goes at the end, so that they run beside `npm start`.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { makeDynamoDbClient } from "../../functions/runtime/aws-clients/dynamodb.js";
import { makeRedisClient } from "../../functions/runtime/redis-client.js";
import { agentApiConfig } from "../../functions/shared/config.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { startBackends } from "../local/backends.js";
import { findFreePorts } from "../local/ports.js";
import { FLEET_WRITE_CONCURRENCY, type FleetOptions, type FleetReport, writeFleet } from "./agent-fleet.js";

export interface FleetBenchOptions {
  /** The backends' environment (endpoints, names, credentials), as startBackends gives it. */
  env: Record<string, string>;
  /** A folder for what the bench keeps on disk (the agent CA, a build); the caller removes it. */
  stateDir: string;
  tenant: string;
  agents: number;
  /** Times each case is measured. */
  rounds: number;
  /** Writes of the fleet in flight at once (agent-fleet.ts), each of 25 agents. */
  concurrency?: number;
  log: (line: string) => void;
}

/** The agent API's URL, which the console API's configuration asks for; a bench sends no agent to it. */
const UNUSED_AGENT_API_URL = "https://127.0.0.1:1";

/**
 * The environment of the console API a bench runs: the backends', the agent CA in the bench's state folder,
 * and an agent API and a webhook tester that the bench never calls.
 */
export const benchConsoleEnv = ({ env, stateDir }: FleetBenchOptions): Record<string, string> => ({
  ...env,
  [EnvNames.agentApiUrl]: UNUSED_AGENT_API_URL,
  [EnvNames.agentCaDir]: path.join(stateDir, "certs"),
  [EnvNames.webhookTesterFunction]: "webhook-dispatcher",
});

/** A bench's fleet as written, and the clients that wrote it, for the bench to go on with and then close. */
export interface BenchFleet {
  fleet: FleetReport;
  documents: DynamoDBDocumentClient;
  redis: ReturnType<typeof makeRedisClient>;
  close: () => void;
}

/**
 * Writes the bench's fleet of `options.agents` as Beacon writes it (agent-fleet.ts), labelled by `labelsOf`, the
 * cache's part only when `cacheOnly`.
 */
export async function writeBenchFleet(
  options: FleetBenchOptions,
  labelsOf?: FleetOptions["labelsOf"],
  cacheOnly?: FleetOptions["cacheOnly"],
): Promise<BenchFleet> {
  const { env, tenant, agents, log } = options;
  const documents = DynamoDBDocumentClient.from(makeDynamoDbClient(env), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const redis = makeRedisClient({ url: env[EnvNames.redisUrl] as string, commandTimeoutMs: 10_000 });
  const close = () => {
    documents.destroy();
    redis.disconnect();
  };
  try {
    log(`writing ${agents} agents of tenant ${tenant}`);
    const fleet = await writeFleet({
      documents,
      tableName: env[EnvNames.tableName] as string,
      redis,
      tenant,
      agents,
      intervals: agentApiConfig(benchConsoleEnv(options)),
      concurrency: options.concurrency,
      labelsOf,
      cacheOnly,
      log,
    });
    log(
      `wrote ${fleet.items} items and ${fleet.hotStates} agents' hot state in ${fleet.seconds.toFixed(1)} s`,
    );
    return { fleet, documents, redis, close };
  } catch (error) {
    close();
    throw error;
  }
}

/** The usage's lines for the options every fleet bench takes. */
export const fleetBenchUsage = (
  rounds: number,
  what: string,
) => `  --agents       agents of the tenant (BENCH_AGENTS, default 100000)
  --rounds       times each ${what} is measured (BENCH_ROUNDS, default ${rounds})
  --concurrency  agents written at once while writing the fleet (BENCH_CONCURRENCY, default ${FLEET_WRITE_CONCURRENCY})`;

/** The bench's agents, rounds and concurrency, from its command line or the BENCH_ variables. */
export function fleetBenchCommandLine(usage: string, defaultRounds: number) {
  const { values } = parseCommandLine(usage, {
    options: {
      agents: { type: "string", default: process.env.BENCH_AGENTS ?? "100000" },
      rounds: { type: "string", default: process.env.BENCH_ROUNDS ?? String(defaultRounds) },
      concurrency: {
        type: "string",
        default: process.env.BENCH_CONCURRENCY ?? String(FLEET_WRITE_CONCURRENCY),
      },
    },
  });
  const [agents, rounds, concurrency] = [values.agents, values.rounds, values.concurrency].map(Number) as [
    number,
    number,
    number,
  ];
  if (![agents, rounds, concurrency].every((value) => Number.isInteger(value) && value >= 1)) {
    exitWithUsage(usage, "--agents, --rounds and --concurrency are whole numbers of at least 1");
  }
  return { agents, rounds, concurrency };
}

/**
 * Runs the bench `name` on backends of its own, then stops them and removes its state folder; exits 0 when
 * `run` answers true, 1 otherwise or when it throws.
 */
export async function onBackendsOfItsOwn(
  name: string,
  log: (line: string) => void,
  run: (env: Record<string, string>, stateDir: string) => Promise<boolean>,
): Promise<never> {
  const stateDir = fileURLToPath(new URL(`../../.beacon/bench-${name}-${process.pid}/`, import.meta.url));
  const [dynamodb, redis, kinesis, s3] = (await findFreePorts(4)) as [number, number, number, number];
  let exitCode = 1;
  const backends = await startBackends({
    stateDir,
    ports: { dynamodb, redis, kinesis, s3 },
    kinesisEmulator: "kinesalite",
    tableName: `beacon-bench-${name}`,
    streamName: `beacon-events-bench-${name}`,
    assetBucket: `beacon-assets-bench-${name}`,
    archiveBucket: `beacon-events-archive-bench-${name}`,
    log,
  });
  try {
    exitCode = (await run(backends.env, path.join(stateDir, "bench"))) ? 0 : 1;
  } finally {
    await backends.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
  process.exit(exitCode);
}
