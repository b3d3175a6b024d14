import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";

/** Forwards HTTP requests to a backend and counts them by operation, for tests that budget requests. */
export interface CountingProxy {
  /** Base URL to use as the client's endpoint. */
  readonly url: string;
  /** Requests seen since start or the last reset, by X-Amz-Target (e.g. "DynamoDB_20120810.GetItem"). */
  counts(): Record<string, number>;
  /** How long the backend took to answer the requests forwarded since start or the last reset, by operation. */
  timings(): Record<string, { meanMs: number; maxMs: number }>;
  reset(): void;
  /** From now on, requests wait (counted as they arrive, their bodies read) instead of being forwarded, until `release`. */
  hold(): void;
  /** The bodies of the requests waiting since `hold`, in the order they came. */
  held(): string[];
  /** Forwards the requests waiting and every later one at once again. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A fault to answer instead of forwarding: given a request's operation and body, the status and JSON body
 * the backend would answer a failure with, or undefined to forward it.
 */
export type ProxyFault = (
  operation: string,
  body: string,
) => { status: number; body: Record<string, unknown> } | undefined;

/**
 * Starts a proxy on a free loopback port in front of an http:// base URL. With `fault`, each request's body
 * is read first and the requests it picks are answered with its failure, counted like the others. With `delayMs`,
 * each request it forwards goes that much later.
 */
export async function startCountingProxy(
  targetBaseUrl: string,
  options: { fault?: ProxyFault; delayMs?: number } = {},
): Promise<CountingProxy> {
  const target = new URL(targetBaseUrl);
  if (target.protocol !== "http:")
    throw new Error(`the counting proxy forwards to http:// only, not ${targetBaseUrl}`);
  const basePath = target.pathname.replace(/\/$/, "");
  const upstreamAgent = new http.Agent({ keepAlive: true });
  let counts = new Map<string, number>();
  let timings = new Map<string, { totalMs: number; maxMs: number; answered: number }>();
  let waiting: { body: string; forwardNow(): void }[] | undefined;

  const server = http.createServer((request, response) => {
    // Requests without the AWS JSON protocol's operation header are counted by method and path.
    const operation = request.headers["x-amz-target"] ?? `${request.method} ${request.url}`;
    const key = Array.isArray(operation) ? operation.join(",") : operation;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const started = performance.now();
    const timed = timings;
    response.once("finish", () => {
      const ms = performance.now() - started;
      const timing = timed.get(key) ?? { totalMs: 0, maxMs: 0, answered: 0 };
      timed.set(key, {
        totalMs: timing.totalMs + ms,
        maxMs: Math.max(timing.maxMs, ms),
        answered: timing.answered + 1,
      });
    });
    if (!options.fault && !waiting) {
      forward(request, response);
      return;
    }
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const answer = () => {
        const failure = options.fault?.(key, body.toString("utf8"));
        if (failure) {
          response.writeHead(failure.status, { "content-type": "application/x-amz-json-1.0" });
          response.end(JSON.stringify(failure.body));
        } else forward(request, response, body);
      };
      if (waiting) waiting.push({ body: body.toString("utf8"), forwardNow: answer });
      else answer();
    });
  });

  function forward(request: http.IncomingMessage, response: http.ServerResponse, body?: Buffer) {
    // A network's round trip, as between a function and the AWS service, on top of the backend's own time.
    if (options.delayMs) setTimeout(() => send(request, response, body), options.delayMs);
    else send(request, response, body);
  }

  function send(request: http.IncomingMessage, response: http.ServerResponse, body?: Buffer) {
    const upstream = http.request(
      {
        agent: upstreamAgent,
        hostname: target.hostname,
        port: target.port,
        method: request.method,
        path: `${basePath}${request.url ?? "/"}`,
        headers: request.headers,
      },
      (upstreamResponse) => {
        response.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
        upstreamResponse.pipe(response);
      },
    );
    upstream.on("error", (error) => {
      if (response.headersSent) response.destroy(error);
      else response.writeHead(502, { "content-type": "text/plain" }).end(`counting proxy: ${error.message}`);
    });
    if (body) upstream.end(body);
    else request.pipe(upstream);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: 0, host: "127.0.0.1" }, resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => Object.fromEntries(counts),
    timings: () =>
      Object.fromEntries(
        [...timings].map(([key, { totalMs, maxMs, answered }]) => [
          key,
          { meanMs: totalMs / answered, maxMs },
        ]),
      ),
    reset: () => {
      counts = new Map();
      timings = new Map();
    },
    hold: () => {
      waiting ??= [];
    },
    held: () => (waiting ?? []).map((request) => request.body),
    release: () => {
      const released = waiting ?? [];
      waiting = undefined;
      for (const request of released) request.forwardNow();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Idle keep-alive connections would otherwise hold close() open until they time out.
        server.closeAllConnections();
        upstreamAgent.destroy();
      }),
  };
}
