import { type ClientRequest, Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";

/** Where a service's calls go, as its endpoint names it. */
export interface PostTarget {
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
}

export interface PostLimits {
  /** A new connection not open by then fails the call. */
  connectionTimeoutMs: number;
  /** A call not answered in full by then fails, the connection closed. */
  requestTimeoutMs: number;
}

/** What the service answered: its status and its body's text. */
export interface PostAnswer {
  statusCode: number;
  text: string;
}

export type Post = (
  headers: Record<string, string>,
  body: string,
  abortSignal?: AbortSignal,
) => Promise<PostAnswer>;

/** A request to a service: its method, its path (with its query) at the target, its headers and its body. */
export interface ServiceRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** What the service answered: its status and its body's bytes. */
export interface ServiceAnswer {
  statusCode: number;
  body: Buffer;
}

export type Send = (request: ServiceRequest, abortSignal?: AbortSignal) => Promise<ServiceAnswer>;

/** POSTs to `target`'s path, as keptAliveRequests sends any request, answering the body's text. */
export function keptAlivePost(target: PostTarget, limits: PostLimits): Post {
  const send = keptAliveRequests(target, limits);
  return async (headers, body, abortSignal) => {
    const answer = await send({ method: "POST", path: target.path, headers, body }, abortSignal);
    return { statusCode: answer.statusCode, text: answer.body.toString("utf8") };
  };
}

/**
 * Sends requests to `target`'s host over connections kept alive between calls (at most 50 at once, as the SDK's
 * handler keeps them), failing as the SDK's handler fails: `TimeoutError` past a limit, `AbortError` when the signal
 * aborts, Node's socket errors (`ECONNRESET`, say) as they come. A connection left idle is unreferenced by Node's
 * agent, so it never holds a process open.
 */
export function keptAliveRequests(target: Omit<PostTarget, "path">, limits: PostLimits): Send {
  const secure = target.protocol === "https:";
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: 50 })
    : new HttpAgent({ keepAlive: true, maxSockets: 50 });
  const send = secure ? httpsRequest : httpRequest;
  // A literal IPv6 address is named in brackets in a URL, without them to a socket.
  const host = target.hostname.replace(/^\[(.*)\]$/, "$1");

  return ({ method, path, headers, body }, abortSignal) =>
    new Promise((resolve, reject) => {
      if (abortSignal?.aborted) {
        reject(abortedBy(abortSignal));
        return;
      }
      let connecting: NodeJS.Timeout | undefined;
      let settled = false;
      const settle = () => {
        settled = true;
        clearTimeout(deadline);
        clearTimeout(connecting);
        abortSignal?.removeEventListener("abort", onAbort);
      };
      const fail = (error: Error) => {
        if (settled) return;
        settle();
        request.destroy();
        reject(error);
      };
      const onAbort = () => fail(abortedBy(abortSignal as AbortSignal));

      const request: ClientRequest = send(
        { method, host, port: target.port, path, headers, agent },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.once("end", () => {
            if (settled) return;
            settle();
            resolve({ statusCode: response.statusCode ?? 0, body: Buffer.concat(chunks) });
          });
          // A connection closed before the answer is whole fails the answer with Node's ECONNRESET.
          response.on("error", fail);
        },
      );
      const deadline = setTimeout(
        () => fail(timedOut(`The call was not answered within ${limits.requestTimeoutMs} ms`)),
        limits.requestTimeoutMs,
      );
      request.once("socket", (socket: Socket) => {
        if (!socket.connecting) return;
        connecting = setTimeout(
          () => fail(timedOut(`No connection was open within ${limits.connectionTimeoutMs} ms`)),
          limits.connectionTimeoutMs,
        );
        socket.once("connect", () => clearTimeout(connecting));
      });
      request.on("error", fail);
      abortSignal?.addEventListener("abort", onAbort, { once: true });
      request.end(body);
    });
}

/** As the SDK's handler fails a call it gave up: an `AbortError`, whatever the signal's reason. */
export function abortedBy(signal: AbortSignal): Error {
  const error = new Error("The call was given up before it was answered", { cause: signal.reason });
  error.name = "AbortError";
  return error;
}

/** Named as the SDK names a call's timeout, which its retry strategy (and Beacon's) takes for a transient failure. */
function timedOut(message: string): Error {
  const error = new Error(message);
  error.name = "TimeoutError";
  return error;
}
