import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import type { KinesisClient } from "@aws-sdk/client-kinesis";
import type { S3Client } from "@aws-sdk/client-s3";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { PostTarget } from "./kept-alive-post.js";
import type { RetryStrategy } from "./retried.js";

/** The SDK's clients of services that speak AWS's JSON protocol, whose configuration a call borrows (json-protocol.ts). */
export type JsonProtocolClient = KinesisClient | DynamoDBClient | DynamoDBDocumentClient | EventBridgeClient;

/** The SDK's clients whose configuration a direct call borrows (json-protocol.ts, s3/object-calls.ts). */
export type SdkClient = JsonProtocolClient | S3Client;

/** A client's credentials as a call signs with them. */
export interface CallCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Where and as whom a service's calls go, and how often a failed one is made again. */
export interface CallSettings {
  region: string;
  target: PostTarget;
  /** An endpoint of the operator's own (an emulator, say), which may be slower to answer than AWS's. */
  customEndpoint: boolean;
  /** The identity's credentials now: a provider that refreshes them is asked at every call. */
  credentials: () => Promise<CallCredentials>;
  /** The client's retry strategy, asked for once a call has failed (loading it may load code). */
  retries: () => Promise<RetryStrategy>;
}

/**
 * Where a client made for direct calls alone (runtime/aws-clients/direct.ts) gives its settings, read at its first
 * call: a function's clients are made so, without the SDK's client, which a cold start would otherwise load.
 */
export const directCallSettings = Symbol("directCallSettings");

/** A client made for direct calls alone: its settings, and nothing to send SDK commands with. */
export interface MadeForDirectCalls {
  [directCallSettings](): Promise<CallSettings>;
  destroy(): void;
}

/** A client's settings: those it was made for direct calls with, or an SDK client's. */
export const callSettingsOf = (client: SdkClient | MadeForDirectCalls): Promise<CallSettings> =>
  directCallSettings in client ? client[directCallSettings]() : settingsOfSdkClient(client);

/** An SDK client's settings, as its commands would use them. */
export async function settingsOfSdkClient(client: SdkClient): Promise<CallSettings> {
  const config = client.config as KinesisClient["config"];
  const region = await config.region();
  // An endpoint the environment or the shared config names for the service (AWS_ENDPOINT_URL_DYNAMODB, say),
  // read by the SDK when the client is made, goes to the endpoint rules as the SDK's commands give it.
  const configured = config.ignoreConfiguredEndpointUrls
    ? undefined
    : await config.serviceConfiguredEndpoint?.();
  const target: PostTarget = config.isCustomEndpoint
    ? await (config.endpoint as () => Promise<PostTarget>)()
    : urlTarget(
        config.endpointProvider({
          Region: region,
          UseFIPS: await config.useFipsEndpoint(),
          UseDualStack: await config.useDualstackEndpoint(),
          ...(configured ? { Endpoint: configured } : {}),
        }).url,
      );
  return {
    region,
    target,
    customEndpoint: config.isCustomEndpoint === true,
    credentials: () => config.credentials(),
    retries: async () => retryStrategyOf(await config.retryStrategy()),
  };
}

/**
 * The client's strategy, which Beacon's clients (runtime/aws-clients/) leave the SDK's standard one of a few
 * attempts.
 */
function retryStrategyOf(strategy: unknown): RetryStrategy {
  if (typeof (strategy as Partial<RetryStrategy>).acquireInitialRetryToken !== "function") {
    throw new TypeError(
      "The client's retry strategy is not one a JSON-protocol call can use (no retry tokens)",
    );
  }
  return strategy as RetryStrategy;
}

export function urlTarget(url: URL): PostTarget {
  return {
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
  };
}
