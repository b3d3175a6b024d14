import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { AgentServiceSettings } from "./settings.js";

/** Answers one request by writing its response. */
export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

/** A route the service answers itself, before the agent API: a request body it reads as a stream, say. */
export interface ServiceRoute {
  readonly method: string;
  /** An exact path, or a prefix ending in `/*`, as the load balancer's path patterns are written. */
  readonly path: string;
  readonly handle: RequestHandler;
}

export interface AgentServiceOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly routes: readonly ServiceRoute[];
  /** Answers every request no route takes. */
  readonly fallback: RequestHandler;
  /** How long in-flight requests may take to finish once the service drains. */
  readonly drainMs: number;
}

export interface AgentService {
  readonly url: string;
  /**
   * Stops taking connections (new ones are refused), fails the health check, lets in-flight requests finish for
   * up to `drainMs`, then closes every connection.
   */
  drain(): Promise<void>;
}

const keepAliveTimeoutMs = AgentServiceSettings.keepAliveTimeoutSeconds * 1000;

/**
 * The agent service's HTTP server: plain HTTP, as the load balancer in front of it terminates TLS and verifies the
 * client certificate.
 */
export async function startAgentService(options: AgentServiceOptions): Promise<AgentService> {
  const server = createServer({
    keepAliveTimeout: keepAliveTimeoutMs,
    // Above the keep-alive timeout, so an idle connection is closed by keep-alive, never by a headers timeout.
    headersTimeout: keepAliveTimeoutMs + 1000,
  });
  const routes = options.routes.map(matcherOf);
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  let drained: () => void = () => {};
  const allAnswered = new Promise<void>((resolve) => {
    drained = resolve;
  });

  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    inFlight.add(response);
    response.once("close", () => {
      inFlight.delete(response);
      if (draining && inFlight.size === 0) drained();
    });
    // A request that came on a kept-alive connection while draining is answered, and its connection closed.
    if (draining) response.setHeader("connection", "close");
    const method = request.method ?? "GET";
    const path = pathOf(request);
    if (method === "GET" && path === AgentServiceSettings.healthPath) {
      response.writeHead(draining ? 503 : 200, { "content-type": "text/plain" });
      response.end(draining ? "draining" : "ok");
      return;
    }
    const route = routes.find((candidate) => candidate.matches(method, path));
    (route?.handle ?? options.fallback)(request, response).catch((error: unknown) => {
      // A client that went away mid-request leaves nothing to answer.
      if (request.socket.destroyed) return;
      console.error(
        JSON.stringify({
          level: "ERROR",
          message: "agent service: request failed",
          path,
          error: String(error),
        }),
      );
      if (response.headersSent) response.destroy();
      else
        response
          .writeHead(500, { "content-type": "application/json" })
          .end('{"message":"Internal Server Error"}');
    });
  });

  server.listen(options.port, options.host ?? "0.0.0.0");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const closed = new Promise<void>((resolve) => server.once("close", resolve));
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    async drain() {
      if (!draining) {
        draining = true;
        server.close();
        server.closeIdleConnections();
        if (inFlight.size === 0) drained();
        await Promise.race([allAnswered, sleep(options.drainMs, undefined, { ref: false })]);
        server.closeAllConnections();
      }
      await closed;
    },
  };
}

/** A request's path, without its query. */
export function pathOf(request: IncomingMessage): string {
  const target = request.url ?? "/";
  const queryStart = target.indexOf("?");
  return queryStart === -1 ? target : target.slice(0, queryStart);
}

function matcherOf(route: ServiceRoute): ServiceRoute & { matches(method: string, path: string): boolean } {
  const prefix = route.path.endsWith("/*") ? route.path.slice(0, -1) : undefined;
  return {
    ...route,
    matches: (method, path) =>
      method === route.method &&
      (prefix === undefined ? path === route.path : path.startsWith(prefix) && path.length > prefix.length),
  };
}
