/**
 * What a call to an AWS service made directly (json-protocol.ts, s3/object-calls.ts) shares with the SDK's
 * commands: the errors a service answers, and the SDK's standard retry strategy's attempts and backoff.
 */

import type { LoadedOnce } from "../../core/loaded-once.js";

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

/**
 * `once` made again as the client's strategy says, as the SDK's retry middleware makes a command again. The
 * strategy is loaded by the first failure of a call made through the client; one not yet loaded has all its
 * retry capacity, which a success would leave as it is: so until a call fails, calls succeed without asking it,
 * and a function whose calls all succeed never loads it.
 */
export async function retried<Answer>(
  once: () => Promise<Answer>,
  retries: LoadedOnce<RetryStrategy>,
  scope: string,
  abortSignal: AbortSignal | undefined,
): Promise<Answer> {
  let token: RetryToken | undefined;
  for (;;) {
    try {
      const answer = await once();
      const strategy = retries.loaded();
      if (strategy) strategy.recordSuccess(token ?? (await strategy.acquireInitialRetryToken(scope)));
      return answer;
    } catch (error) {
      const errorType = retryErrorTypeOf(error);
      if (!errorType || abortSignal?.aborted) throw error;
      const strategy = await retries();
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
