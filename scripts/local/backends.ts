import { mkdirSync } from "node:fs";
import { makeDynamoDbClient } from "../../functions/runtime/aws-clients/dynamodb.js";
import { makeEventBridgeClient } from "../../functions/runtime/aws-clients/eventbridge.js";
import { makeKinesisClient } from "../../functions/runtime/aws-clients/kinesis.js";
import { makeS3Client } from "../../functions/runtime/aws-clients/s3.js";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import type { ChildService } from "./child-service.js";
import { startDynamoDbLocal } from "./dynamodb-local.js";
import { type KinesisEmulator, startKinesisEmulator } from "./kinesis-emulator.js";
import { startMotoServer } from "./moto-server.js";
import type { LocalPorts } from "./ports.js";
import { provisionBucket, provisionEventBus, provisionStream, provisionTable } from "./provision.js";
import { clusterNodesOn, startRedisCluster } from "./redis-cluster.js";
import { startRedisServer } from "./redis-server.js";
import { startS3Proxy } from "./s3proxy.js";

export const LocalStackNames = {
  tableName: "beacon-local",
  streamName: "beacon-events-local",
  assetBucket: "beacon-assets-local",
  archiveBucket: "beacon-events-archive-local",
  notificationBusName: "beacon-notifications-local",
} as const;

export interface BackendsOptions {
  stateDir: string;
  ports: Pick<LocalPorts, "dynamodb" | "redis" | "kinesis" | "s3">;
  kinesisEmulator: KinesisEmulator;
  tableName: string;
  streamName: string;
  assetBucket: string;
  /** The stream consumer's event archive. */
  archiveBucket: string;
  /**
   * The event bus the stream consumer puts every notification on, on moto at `port`; without it, no bus (a
   * benchmark of the agent API needs none). The same moto serves Secrets Manager and Parameter Store, SecureString
   * decryption included, where the secrets of sensitive parameters are read from.
   */
  notificationBus?: { name: string; port: number };
  log: (line: string) => void;
  /** Web pages' origins S3Proxy allows by CORS (see startS3Proxy): the local web console's. */
  browserOrigins?: readonly string[];
  /**
   * Keep DynamoDB Local's tables on disk under stateDir instead of in memory, and S3Proxy's buckets with
   * them: assets' bytes and their records come and go together.
   */
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
 * Starts DynamoDB Local, Redis (one server or a cluster), a Kinesis emulator, S3Proxy and, for a notification
 * bus, moto side by side (each unless its endpoint variable is already set, e.g. to LocalStack), then creates
 * the table, the stream, the buckets and the bus.
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

  const { notificationBus } = options;
  const [dynamodbOutcome, redisOutcome, kinesisOutcome, s3Outcome, eventBridgeOutcome] =
    await Promise.allSettled([
      endpointOf(AwsEndpointEnvNames.dynamodb, "DynamoDB Local", `http://127.0.0.1:${ports.dynamodb}`, () =>
        startDynamoDbLocal({
          port: ports.dynamodb,
          stateDir,
          persist: options.persistDynamoDb,
          clientEnv: localAwsEnv,
        }),
      ),
      options.redisCluster
        ? endpointOf(
            EnvNames.redisUrl,
            "Redis Cluster",
            `redis://127.0.0.1:${ports.redis}?cluster=true`,
            () =>
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
      endpointOf(AwsEndpointEnvNames.s3, "S3Proxy", `http://127.0.0.1:${ports.s3}`, () =>
        startS3Proxy({
          port: ports.s3,
          stateDir,
          persist: options.persistDynamoDb,
          corsOrigins: options.browserOrigins,
          clientEnv: localAwsEnv,
        }),
      ),
      notificationBus &&
        endpointOf(
          AwsEndpointEnvNames.eventbridge,
          "moto (EventBridge)",
          `http://127.0.0.1:${notificationBus.port}`,
          () => startMotoServer({ port: notificationBus.port, stateDir, clientEnv: localAwsEnv }),
        ),
    ]);
  if (
    dynamodbOutcome.status === "rejected" ||
    redisOutcome.status === "rejected" ||
    kinesisOutcome.status === "rejected" ||
    s3Outcome.status === "rejected" ||
    eventBridgeOutcome.status === "rejected"
  ) {
    await stop();
    const failures = [dynamodbOutcome, redisOutcome, kinesisOutcome, s3Outcome, eventBridgeOutcome].flatMap(
      (outcome) => (outcome.status === "rejected" ? [outcome.reason] : []),
    );
    throw failures.length === 1 ? failures[0] : new AggregateError(failures, failureSummary(failures));
  }

  const env: Record<string, string> = {
    ...localAwsEnv,
    [AwsEndpointEnvNames.dynamodb]: dynamodbOutcome.value,
    [AwsEndpointEnvNames.kinesis]: kinesisOutcome.value,
    [AwsEndpointEnvNames.s3]: s3Outcome.value,
    [EnvNames.redisUrl]: redisOutcome.value,
    [EnvNames.tableName]: options.tableName,
    [EnvNames.streamName]: options.streamName,
    [EnvNames.assetBucket]: options.assetBucket,
    [EnvNames.archiveBucket]: options.archiveBucket,
    ...(notificationBus && eventBridgeOutcome.value
      ? {
          [AwsEndpointEnvNames.eventbridge]: eventBridgeOutcome.value,
          [AwsEndpointEnvNames.secretsManager]: eventBridgeOutcome.value,
          [AwsEndpointEnvNames.ssm]: eventBridgeOutcome.value,
          [EnvNames.notificationBusName]: notificationBus.name,
        }
      : {}),
  };
  const dynamodb = makeDynamoDbClient(env);
  const kinesis = makeKinesisClient(env);
  const s3 = makeS3Client(env);
  const eventBridge = makeEventBridgeClient(env);
  try {
    await Promise.all([
      provisionTable(dynamodb, options.tableName).then(() =>
        log(`DynamoDB table ${options.tableName}: ready`),
      ),
      provisionStream(kinesis, options.streamName).then(() =>
        log(`Kinesis stream ${options.streamName}: ready`),
      ),
      ...[options.assetBucket, options.archiveBucket].map((bucket) =>
        provisionBucket(s3, bucket).then(() => log(`S3 bucket ${bucket}: ready`)),
      ),
      notificationBus &&
        provisionEventBus(eventBridge, notificationBus.name).then(() =>
          log(`EventBridge bus ${notificationBus.name}: ready`),
        ),
    ]);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    dynamodb.destroy();
    kinesis.destroy();
    s3.destroy();
    eventBridge.destroy();
  }
  return { env, stop };
}

function failureSummary(failures: unknown[]): string {
  return failures.map((failure) => (failure instanceof Error ? failure.message : String(failure))).join("\n");
}
