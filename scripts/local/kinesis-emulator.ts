import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ListStreamsCommand } from "@aws-sdk/client-kinesis";
import { makeKinesisClient } from "../../functions/runtime/aws-clients/kinesis.js";
import { AwsEndpointEnvNames } from "../../functions/shared/env-names.js";
import { type ProcessService, startChildService } from "./child-service.js";
import { assertPortFree, findFreePort } from "./ports.js";

/** kinesalite is the default: several times the put rate of kinesis-mock on small machines. */
export const KinesisEmulators = ["kinesalite", "kinesis-mock"] as const;
export type KinesisEmulator = (typeof KinesisEmulators)[number];

export const kinesisEmulatorEnvName = "BEACON_KINESIS_EMULATOR";

export function kinesisEmulatorFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): KinesisEmulator {
  const value = env[kinesisEmulatorEnvName];
  if (value === undefined || value === "") return "kinesalite";
  const emulator = KinesisEmulators.find((name) => name === value);
  if (emulator === undefined) {
    throw new Error(`${kinesisEmulatorEnvName}=${value} is not one of: ${KinesisEmulators.join(", ")}`);
  }
  return emulator;
}

export interface KinesisEmulatorOptions {
  emulator: KinesisEmulator;
  port: number;
  stateDir: string;
  /** Credentials and region for the readiness probe. */
  clientEnv: Readonly<Record<string, string | undefined>>;
  /** kinesalite only: keeps its streams in this folder, so that one started again on it has them still. */
  storePath?: string;
}

const binDir = fileURLToPath(new URL("../../node_modules/.bin/", import.meta.url));
const kinesisMockCertificate = fileURLToPath(
  new URL("../../node_modules/kinesis-local/server.json", import.meta.url),
);

/** Starts the chosen emulator (in memory, unless kinesalite is given a store), serving plain HTTP on the port. */
export async function startKinesisEmulator(options: KinesisEmulatorOptions): Promise<ProcessService> {
  await assertPortFree(options.port, "kinesis");
  const launch =
    options.emulator === "kinesalite" ? kinesaliteLaunch(options) : await kinesisMockLaunch(options);
  const client = makeKinesisClient({
    ...options.clientEnv,
    [AwsEndpointEnvNames.kinesis]: `http://127.0.0.1:${options.port}`,
  });
  try {
    return await startChildService({
      name: options.emulator,
      command: process.execPath,
      ...launch,
      logFile: path.join(options.stateDir, "logs", `${options.emulator}.log`),
      probe: async () => {
        await client.send(new ListStreamsCommand({ Limit: 1 }));
      },
      readyTimeoutMs: 30_000,
    });
  } finally {
    client.destroy();
  }
}

function kinesaliteLaunch(options: KinesisEmulatorOptions) {
  // Streams go ACTIVE at once instead of after the default half second of CREATING.
  return {
    args: [
      path.join(binDir, "kinesalite"),
      "--port",
      String(options.port),
      "--createStreamMs",
      "0",
      "--deleteStreamMs",
      "0",
      "--updateStreamMs",
      "0",
      // Test files each make streams of their own on the one emulator, past kinesalite's default of 10 shards.
      "--shardLimit",
      "1000",
      ...(options.storePath ? ["--path", options.storePath] : []),
    ],
  };
}

/**
 * kinesis-mock takes its settings from the environment. It always serves TLS on a second port as well,
 * by default 4567 (our Kinesis port) with server.json from its working directory: that port goes to a
 * free one and the certificate to the one its package ships.
 */
async function kinesisMockLaunch(options: KinesisEmulatorOptions) {
  if (options.storePath) throw new Error("kinesis-mock keeps no store here: only kinesalite takes storePath");
  const workDir = path.join(options.stateDir, "kinesis-mock");
  mkdirSync(workDir, { recursive: true });
  const streamTransition = "0ms";
  return {
    args: [path.join(binDir, "kinesis-local")],
    cwd: workDir,
    env: {
      ...process.env,
      KINESIS_MOCK_PLAIN_PORT: String(options.port),
      KINESIS_MOCK_TLS_PORT: String(await findFreePort()),
      KINESIS_MOCK_CERT_PATH: kinesisMockCertificate,
      CREATE_STREAM_DURATION: streamTransition,
      DELETE_STREAM_DURATION: streamTransition,
      UPDATE_SHARD_COUNT_DURATION: streamTransition,
      SHOULD_PERSIST_DATA: "false",
      LOG_LEVEL: "WARN",
    },
  };
}
