import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import type { KinesisClient } from "@aws-sdk/client-kinesis";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { connectionTimeoutMs, requestTimeoutFor } from "./call-timeouts.js";
import { abortedBy, keptAlivePost, type Post, type PostTarget } from "./kept-alive-post.js";
import { signedPostHeaders } from "./signature-v4.js";

/** The clients whose services speak AWS's JSON protocol and whose configuration a call borrows. */
type JsonProtocolClient = KinesisClient | DynamoDBClient | DynamoDBDocumentClient | EventBridgeClient;

/**
 * A call of one operation with its input as JSON text, answering the output's JSON text; given up, retries and
 * backoff included, when `abortSignal` aborts.
 */
export type JsonProtocolCall = (
  operation: string,
  input: string,
  abortSignal?: AbortSignal,
) => Promise<string>;

/**
 * Where a client says what signal a call made now is to be given up by (runtime/request-budget.ts puts one on
 * the agent API's DynamoDB client): the SDK's commands get theirs through `send`, which direct calls bypass.
 */
export const callSignal = Symbol("callSignal");

/** A client that may carry a signal for the calls made through it now. */
export type SignalsCalls = { [callSignal]?: () => AbortSignal | undefined };

export interface JsonProtocol {
  /** The `X-Amz-Target` prefix naming the service's API version, e.g. `DynamoDB_20120810`. */
  targetPrefix: string;
  /** The service's name in a signature's scope, e.g. `dynamodb`. */
  signingName: string;
  /** `application/x-amz-json-1.0` or `-1.1`, as the service's API says. */
  contentType: string;
  /**
   * Whether a failed call is made again by the client's own retry strategy (its attempts and backoff, as the SDK's
   * commands would). A caller that knows better which failures may be repeated (the event sink) says no.
   */
  retried: boolean;
}

/**
 * A call the service refused, named as the service names the error (`ConditionalCheckFailedException`, say), with
 * the rest of what the service said of it as fields of its own (a cancelled transaction's `CancellationReasons`,
 * a failed condition's `Item`), as the SDK's exceptions carry them.
 */
export class AwsServiceError extends Error {
  [field: string]: unknown;

  constructor(
    name: string,
    message: string,
    readonly statusCode: number,
    said: Record<string, unknown>,
  ) {
    super(message);
    for (const [field, value] of Object.entries(said)) if (!(field in this)) this[field] = value;
    this.name = name;
  }
}

/** What of the SDK's standard retry strategy (`@smithy/core/retry`) a call uses. */
export interface RetryStrategy {
  acquireInitialRetryToken(scope: string): Promise<RetryToken>;
  /** Throws when the call is not to be made again: out of attempts, or of the strategy's retry capacity. */
  refreshRetryTokenForRetry(token: RetryToken, failure: { errorType: RetryErrorType }): Promise<RetryToken>;
  recordSuccess(token: RetryToken): void;
}
interface RetryToken {
  getRetryDelay(): number;
}
type RetryErrorType = "TRANSIENT" | "THROTTLING";

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

/**
 * Calls of a JSON-protocol service over a client's own settings (region, endpoint, credentials, retry strategy),
 * without the SDK's per-call middleware, signer or HTTP handler: each call is a POST of `<prefix>.<operation>`,
 * signed by signature-v4.ts and sent over kept-alive-post.ts's connections. On the agent API's paths the SDK's
 * middleware (serialisation schemas, endpoint rules, retry and logging wrappers), its signer and its handler's
 * timers and wrappers cost more CPU than what Beacon does around the call. The client is one made for direct
 * calls, or an SDK client whose configuration they borrow.
 */
export function jsonProtocolCalls(
  client: JsonProtocolClient | MadeForDirectCalls,
  protocol: JsonProtocol,
): JsonProtocolCall {
  let ready:
    | Promise<{
        credentials: () => Promise<CallCredentials>;
        host: string;
        path: string;
        region: string;
        post: Post;
        retries: RetriesOnFailure | undefined;
      }>
    | undefined;
  // Read at the first call, not before: a client made on first use (aws-clients/settings.ts) is made then.
  const prepare = async () => {
    const settings =
      directCallSettings in client ? await client[directCallSettings]() : await settingsOfSdkClient(client);
    const { target, region, credentials } = settings;
    const post = keptAlivePost(target, {
      connectionTimeoutMs,
      requestTimeoutMs: requestTimeoutFor(settings.customEndpoint),
    });
    const host = target.port ? `${target.hostname}:${target.port}` : target.hostname;
    const retries = protocol.retried ? retriesOnFailure(settings.retries) : undefined;
    return { credentials, host, path: target.path, region, post, retries };
  };

  return async (operation, input, abortSignal) => {
    ready ??= prepare().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    const { credentials, host, path, region, post, retries } = await ready;
    const once = async () => {
      if (abortSignal?.aborted) throw abortedBy(abortSignal);
      const headers = signedPostHeaders(
        {
          host,
          path,
          headers: {
            "content-type": protocol.contentType,
            "content-length": String(Buffer.byteLength(input)),
            "x-amz-target": `${protocol.targetPrefix}.${operation}`,
          },
          body: input,
        },
        await credentials(),
        region,
        protocol.signingName,
        new Date(),
      );
      const { statusCode, text } = await post(headers, input, abortSignal);
      if (statusCode === 200) return text;
      throw errorOf(statusCode, text);
    };
    return retries ? retried(once, retries, operation, abortSignal) : once();
  };
}

/** An SDK client's settings, as its commands would use them. */
export async function settingsOfSdkClient(client: JsonProtocolClient): Promise<CallSettings> {
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

/** A client's retry strategy, loaded by the first failure of a call made through it. */
interface RetriesOnFailure {
  /** The strategy once loaded; undefined while every call has succeeded at its first attempt. */
  loaded(): RetryStrategy | undefined;
  load(): Promise<RetryStrategy>;
}

function retriesOnFailure(load: () => Promise<RetryStrategy>): RetriesOnFailure {
  let strategy: RetryStrategy | undefined;
  return { loaded: () => strategy, load: async () => (strategy ??= await load()) };
}

/**
 * `once` made again as the client's strategy says, as the SDK's retry middleware makes a command again. A
 * strategy not yet loaded has all its retry capacity, which a success would leave as it is: so until a call
 * fails, calls succeed without asking it, and a function whose calls all succeed never loads it.
 */
async function retried(
  once: () => Promise<string>,
  retries: RetriesOnFailure,
  scope: string,
  abortSignal: AbortSignal | undefined,
): Promise<string> {
  let token: RetryToken | undefined;
  for (;;) {
    try {
      const text = await once();
      const strategy = retries.loaded();
      if (strategy) strategy.recordSuccess(token ?? (await strategy.acquireInitialRetryToken(scope)));
      return text;
    } catch (error) {
      const errorType = retryErrorTypeOf(error);
      if (!errorType || abortSignal?.aborted) throw error;
      const strategy = await retries.load();
      try {
        token = await strategy.refreshRetryTokenForRetry(
          token ?? (await strategy.acquireInitialRetryToken(scope)),
          { errorType },
        );
      } catch {
        throw error; // Out of attempts or of the strategy's retry capacity: the last failure is the answer.
      }
      await pause(token.getRetryDelay(), abortSignal);
    }
  }
}

/** `ms` of backoff, cut short by the signal (the next attempt then fails at once with its reason). */
function pause(ms: number, abortSignal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      abortSignal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    abortSignal?.addEventListener("abort", done, { once: true });
  });
}

/** The errors the SDK's standard strategy retries as throttling, by the names the services give them. */
const THROTTLING = new Set([
  "BandwidthLimitExceeded",
  "LimitExceededException",
  "PriorRequestNotComplete",
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "RequestThrottled",
  "RequestThrottledException",
  "SlowDown",
  "ThrottledException",
  "Throttling",
  "ThrottlingException",
  "TooManyRequestsException",
  "TransactionInProgressException",
]);
/** And as transient: timeouts by name, and the statuses and connection failures a later attempt may not meet. */
const TRANSIENT_NAMES = new Set(["TimeoutError", "RequestTimeout", "RequestTimeoutException"]);
const TRANSIENT_STATUSES = new Set([500, 502, 503, 504]);
const TRANSIENT_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** How the SDK's standard strategy classifies a failure it retries; undefined for one it does not. */
function retryErrorTypeOf(error: unknown): RetryErrorType | undefined {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  const statusCode = error instanceof AwsServiceError ? error.statusCode : undefined;
  if (statusCode === 429 || THROTTLING.has(String(name))) return "THROTTLING";
  if (TRANSIENT_NAMES.has(String(name)) || TRANSIENT_CODES.has(String(code))) return "TRANSIENT";
  return statusCode !== undefined && TRANSIENT_STATUSES.has(statusCode) ? "TRANSIENT" : undefined;
}

export function urlTarget(url: URL): PostTarget {
  return {
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
  };
}

/** The service names an error in `__type`, sometimes prefixed with its namespace (`com.amazonaws…#Name`). */
function errorOf(statusCode: number, text: string): AwsServiceError {
  let reported: Record<string, unknown> = {};
  try {
    reported = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not the service's JSON: a proxy's or load balancer's page; the status names it.
  }
  const { __type, message, Message, ...details } = reported;
  const name = (typeof __type === "string" && __type.split("#").at(-1)) || `HTTP${statusCode}`;
  const said =
    typeof message === "string" ? message : typeof Message === "string" ? Message : text.slice(0, 200);
  return new AwsServiceError(name, said, statusCode, details);
}
