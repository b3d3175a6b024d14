import { mkdirSync } from "node:fs";
import { makeDynamoDbClient, makeKinesisClient } from "../../functions/shared/aws-clients.js";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import type { ChildService } from "./child-service.js";
import { startDynamoDbLocal } from "./dynamodb-local.js";
import { type KinesisEmulator, startKinesisEmulator } from "./kinesis-emulator.js";
import type { LocalPorts } from "./ports.js";
import { provisionStream, provisionTable } from "./provision.js";
import { clusterNodesOn, startRedisCluster } from "./redis-cluster.js";
import { startRedisServer } from "./redis-server.js";

export const LocalStackNames = { tableName: "beacon-local", streamName: "beacon-events-local" } as const;

export interface BackendsOptions {
  stateDir: string;
  ports: Pick<LocalPorts, "dynamodb" | "redis" | "kinesis">;
  kinesisEmulator: KinesisEmulator;
  tableName: string;
  streamName: string;
  log: (line: string) => void;
  /** Keep DynamoDB Local's tables on disk under stateDir instead of in memory. */
  persistDynamoDb?: boolean;
  /**
   * Run Redis as a cluster of three masters (cluster mode, as ElastiCache Serverless) on the Redis port
   * and the two after it, each with its cluster bus 10000 ports higher.
   */
  redisCluster?: boolean;
}

export interface Backends {
  /** Everything a handler needs to reach the backends, to merge into its process environment. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Emulators accept any signature, but kinesis-mock keeps streams per signing region, so every local
 * process signs with these same placeholder values.
 */
export const localAwsEnv = {
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: "local",
  AWS_SECRET_ACCESS_KEY: "local",
} as const;

/**
 * Starts DynamoDB Local, Redis (one server or a cluster) and a Kinesis emulator side by side (each
 * unless its endpoint variable is already set, e.g. to LocalStack), then creates the table and the stream.
 */
export async function startBackends(options: BackendsOptions): Promise<Backends> {
  const { stateDir, ports, log } = options;
  mkdirSync(stateDir, { recursive: true });
  const started: ChildService[] = [];
  const stop = async () => {
    await Promise.all(started.map((service) => service.stop()));
  };

  const endpointOf = async (
    envName: string,
    label: string,
    url: string,
    start: () => Promise<ChildService>,
  ): Promise<string> => {
    const preset = process.env[envName];
    if (preset) {
      log(`${label}: using ${envName}=${preset}`);
      return preset;
    }
    log(`${label}: starting on ${url}`);
    const startedAt = performance.now();
    started.push(await start());
    log(`${label}: ready in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
    return url;
  };

  const [dynamodbOutcome, redisOutcome, kinesisOutcome] = await Promise.allSettled([
    endpointOf(AwsEndpointEnvNames.dynamodb, "DynamoDB Local", `http://127.0.0.1:${ports.dynamodb}`, () =>
      startDynamoDbLocal({
        port: ports.dynamodb,
        stateDir,
        persist: options.persistDynamoDb,
        clientEnv: localAwsEnv,
      }),
    ),
    options.redisCluster
      ? endpointOf(EnvNames.redisUrl, "Redis Cluster", `redis://127.0.0.1:${ports.redis}?cluster=true`, () =>
          startRedisCluster({
            nodes: clusterNodesOn(
              [0, 1, 2].flatMap((index) => [ports.redis + index, ports.redis + index + 10_000]),
            ),
            stateDir,
          }),
        )
      : endpointOf(EnvNames.redisUrl, "Redis", `redis://127.0.0.1:${ports.redis}`, () =>
          startRedisServer({ port: ports.redis, stateDir }),
        ),
    endpointOf(
      AwsEndpointEnvNames.kinesis,
      options.kinesisEmulator,
      `http://127.0.0.1:${ports.kinesis}`,
      () =>
        startKinesisEmulator({
          emulator: options.kinesisEmulator,
          port: ports.kinesis,
          stateDir,
          clientEnv: localAwsEnv,
        }),
    ),
  ]);
  if (
    dynamodbOutcome.status === "rejected" ||
    redisOutcome.status === "rejected" ||
    kinesisOutcome.status === "rejected"
  ) {
    await stop();
    const failures = [dynamodbOutcome, redisOutcome, kinesisOutcome].flatMap((outcome) =>
      outcome.status === "rejected" ? [outcome.reason] : [],
    );
    throw failures.length === 1 ? failures[0] : new AggregateError(failures, failureSummary(failures));
  }

  const env: Record<string, string> = {
    ...localAwsEnv,
    [AwsEndpointEnvNames.dynamodb]: dynamodbOutcome.value,
    [AwsEndpointEnvNames.kinesis]: kinesisOutcome.value,
    [EnvNames.redisUrl]: redisOutcome.value,
    [EnvNames.tableName]: options.tableName,
    [EnvNames.streamName]: options.streamName,
  };
  const dynamodb = makeDynamoDbClient(env);
  const kinesis = makeKinesisClient(env);
  try {
    await Promise.all([
      provisionTable(dynamodb, options.tableName).then(() =>
        log(`DynamoDB table ${options.tableName}: ready`),
      ),
      provisionStream(kinesis, options.streamName).then(() =>
        log(`Kinesis stream ${options.streamName}: ready`),
      ),
    ]);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    dynamodb.destroy();
    kinesis.destroy();
  }
  return { env, stop };
}

function failureSummary(failures: unknown[]): string {
  return failures.map((failure) => (failure instanceof Error ? failure.message : String(failure))).join("\n");
}
