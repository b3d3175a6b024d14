import { loadedOnce } from "../../core/loaded-once.js";
import { callSettingsOf, type JsonProtocolClient, type MadeForDirectCalls } from "./call-settings.js";
import { connectionTimeoutMs, requestTimeoutFor } from "./call-timeouts.js";
import { abortedBy, keptAlivePost } from "./kept-alive-post.js";
import { AwsServiceError, retried } from "./retried.js";
import { signedPostHeaders } from "./signature-v4.js";

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
  // Read at the first call, not before: a client made on first use (aws-clients/settings.ts) is made then.
  const ready = loadedOnce(async () => {
    const settings = await callSettingsOf(client);
    const { target, region, credentials } = settings;
    const post = keptAlivePost(target, {
      connectionTimeoutMs,
      requestTimeoutMs: requestTimeoutFor(settings.customEndpoint),
    });
    const host = target.port ? `${target.hostname}:${target.port}` : target.hostname;
    const retries = protocol.retried ? loadedOnce(settings.retries) : undefined;
    return { credentials, host, path: target.path, region, post, retries };
  });

  return async (operation, input, abortSignal) => {
    const { credentials, host, path, region, post, retries } = await ready();
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
