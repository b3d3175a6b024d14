import { existsSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import {
  type CallSettings,
  directCallSettings,
  type MadeForDirectCalls,
  settingsOfSdkClient,
  urlTarget,
} from "../../adapters/aws/call-settings.js";
import type { RetryStrategy } from "../../adapters/aws/retried.js";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import { type ClientEnv, environmentNow, isCustomEndpoint, maxAttempts } from "./environment.js";

/** A service Beacon calls directly: its endpoint's variable, its host's first label, and its retries' base delay. */
interface DirectService {
  endpointEnvName: string;
  hostPrefix: string;
  /** The SDK's client for the service waits this long before a first retry (undefined: the SDK's default). */
  retryBaseDelayMs?: number;
}

export const DirectServices = {
  dynamodb: { endpointEnvName: AwsEndpointEnvNames.dynamodb, hostPrefix: "dynamodb", retryBaseDelayMs: 25 },
  kinesis: { endpointEnvName: AwsEndpointEnvNames.kinesis, hostPrefix: "kinesis" },
  eventbridge: { endpointEnvName: AwsEndpointEnvNames.eventbridge, hostPrefix: "events" },
  s3: { endpointEnvName: AwsEndpointEnvNames.s3, hostPrefix: "s3" },
} as const satisfies Record<string, DirectService>;

/** The Beacon table's client for a function's adapters (adapters/dynamodb/direct-calls.ts). */
export const documentsForDirectCalls = (env: ClientEnv = environmentNow()): MadeForDirectCalls =>
  madeForDirectCalls(DirectServices.dynamodb, env, async () =>
    (await import("./dynamodb.js")).makeDocumentClient(env),
  );

/** The event stream's client for a function's event sink (adapters/kinesis/event-sink.ts). */
export const streamForDirectCalls = (env: ClientEnv = environmentNow()): MadeForDirectCalls =>
  madeForDirectCalls(DirectServices.kinesis, env, async () =>
    (await import("./kinesis.js")).makeKinesisClient(env),
  );

/** The buckets' client for a function's event archive (adapters/s3/object-calls.ts). */
export const objectsForDirectCalls = (env: ClientEnv = environmentNow()): MadeForDirectCalls =>
  madeForDirectCalls(DirectServices.s3, env, async () => (await import("./s3.js")).makeS3Client(env));

/** AWS's commercial partition, whose regions' endpoints are `<service>.<region>.amazonaws.com` (its regionRegex). */
const COMMERCIAL_REGION = /^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$/;

/**
 * A client of `service` for direct calls alone (json-protocol.ts), its settings read from `env` without the SDK:
 * the region, the static credentials and the endpoint Lambda's environment and the local stack give a function,
 * and the SDK's standard retry strategy. A cold start then loads none of the SDK's client, its command
 * pipeline or its configuration chain. Where the environment leaves any of them to the SDK's chains (credentials
 * from a container's or an instance's role, a shared config file, FIPS or dual-stack endpoints, another
 * partition, adaptive retries), the SDK's client is made, at the first call, and its settings used instead.
 */
export function madeForDirectCalls(
  service: DirectService,
  env: ClientEnv,
  sdkClient: () => Promise<Parameters<typeof settingsOfSdkClient>[0]>,
): MadeForDirectCalls {
  let made: Awaited<ReturnType<typeof sdkClient>> | undefined;
  return {
    async [directCallSettings]() {
      const settings = settingsFromEnvironment(service, env);
      if (settings) return settings;
      made ??= await sdkClient();
      return settingsOfSdkClient(made);
    },
    destroy() {
      made?.destroy();
    },
  };
}

/** The settings `env` gives alone, as the SDK's client would resolve them; undefined where the SDK must decide. */
export function settingsFromEnvironment(service: DirectService, env: ClientEnv): CallSettings | undefined {
  const region = env.AWS_REGION;
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!region || !accessKeyId || !secretAccessKey) return undefined;
  if (env.AWS_RETRY_MODE && env.AWS_RETRY_MODE !== "standard") return undefined;
  const endpoint = env[service.endpointEnvName];
  const target = isCustomEndpoint(endpoint)
    ? urlTarget(new URL(endpoint))
    : awsEndpointOf(service, region, env);
  if (!target) return undefined;
  const credentials = { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN };
  return {
    region,
    target,
    customEndpoint: isCustomEndpoint(endpoint),
    credentials: async () => credentials,
    // The SDK's standard strategy, as the SDK's client for the service would make it: loaded by a first failure.
    retries: async () => {
      const { StandardRetryStrategy } = await import("@smithy/core/retry");
      return new StandardRetryStrategy({
        maxAttempts,
        ...(service.retryBaseDelayMs === undefined ? {} : { baseDelay: service.retryBaseDelayMs }),
      }) as RetryStrategy;
    },
  };
}

/**
 * The service's regional endpoint in the commercial partition, unless the environment or a shared config file
 * may name another (an endpoint for every service, FIPS or dual-stack endpoints, a profile's settings).
 */
function awsEndpointOf(service: DirectService, region: string, env: ClientEnv) {
  if (!COMMERCIAL_REGION.test(region)) return undefined;
  if (env.AWS_ENDPOINT_URL || isTrue(env.AWS_USE_FIPS_ENDPOINT) || isTrue(env.AWS_USE_DUALSTACK_ENDPOINT)) {
    return undefined;
  }
  if (env.AWS_PROFILE || env.AWS_CONFIG_FILE || existsSync(path.join(homedir(), ".aws", "config"))) {
    return undefined;
  }
  return { protocol: "https:", hostname: `${service.hostPrefix}.${region}.amazonaws.com`, path: "/" };
}

const isTrue = (value: string | undefined) => value?.toLowerCase() === "true";
