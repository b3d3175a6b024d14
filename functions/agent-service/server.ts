import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { agentTlsServerOptions } from "../shared/agent-tls.js";
import type { AgentServiceTls } from "./config.js";
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
  /**
   * Mutual TLS terminated here (behind a Network Load Balancer): a client whose certificate no CA of the bundle
   * signed fails the handshake, and the health check is answered in plain HTTP on `healthPort` (0 picks one).
   */
  readonly tls?: AgentServiceTls;
}

export interface AgentService {
  readonly url: string;
  /** Where the health check is answered: `url`'s, or the plain health port's with `tls`. */
  readonly healthUrl: string;
  /**
   * Stops taking connections (new ones are refused), fails the health check, lets in-flight requests finish for
   * up to `drainMs`, then closes every connection.
   */
  drain(): Promise<void>;
}

const keepAliveTimeoutMs = AgentServiceSettings.keepAliveTimeoutSeconds * 1000;

const timeouts = {
  keepAliveTimeout: keepAliveTimeoutMs,
  // Above the keep-alive timeout, so an idle connection is closed by keep-alive, never by a headers timeout.
  headersTimeout: keepAliveTimeoutMs + 1000,
};

/**
 * The agent service's HTTP server: plain HTTP behind an Application Load Balancer, which terminates TLS and
 * verifies the client certificate; with `tls`, HTTPS with mutual TLS, as that load balancer's listener has it
 * (the same truststore, no client without a certificate, no session tickets agents would not resume), for a
 * Network Load Balancer that passes TCP through.
 */
export async function startAgentService(options: AgentServiceOptions): Promise<AgentService> {
  const { tls } = options;
  const server: Server = tls
    ? createHttpsServer({
        ...agentTlsServerOptions,
        ...timeouts,
        cert: tls.certificatePem,
        key: tls.keyPem,
        ca: tls.caBundlePem,
        requestCert: true,
        rejectUnauthorized: true,
      })
    : createServer(timeouts);
  // Only the health check, which a load balancer asks without a client certificate.
  const healthServer = tls ? createServer() : undefined;
  const routes = options.routes.map(matcherOf);
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  let drained: () => void = () => {};
  const allAnswered = new Promise<void>((resolve) => {
    drained = resolve;
  });

  const answerHealth = (response: ServerResponse) => {
    response.writeHead(draining ? 503 : 200, { "content-type": "text/plain" });
    response.end(draining ? "draining" : "ok");
  };
  healthServer?.on("request", (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === "GET" && pathOf(request) === AgentServiceSettings.healthPath)
      answerHealth(response);
    else response.writeHead(404, { "content-type": "text/plain" }).end("not found");
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
      answerHealth(response);
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

  const host = options.host ?? "0.0.0.0";
  const urlOf = async (listening: Server, port: number, scheme: string) => {
    listening.listen(port, host);
    await once(listening, "listening");
    return `${scheme}://${options.host ?? "127.0.0.1"}:${(listening.address() as AddressInfo).port}`;
  };
  const url = await urlOf(server, options.port, tls ? "https" : "http");
  const healthUrl = healthServer && tls ? await urlOf(healthServer, tls.healthPort, "http") : url;
  const closed = Promise.all(
    [server, healthServer].map(
      (closing) => closing && new Promise<void>((resolve) => closing.once("close", resolve)),
    ),
  );
  return {
    url,
    healthUrl: `${healthUrl}${AgentServiceSettings.healthPath}`,
    async drain() {
      if (!draining) {
        draining = true;
        server.close();
        healthServer?.close();
        healthServer?.closeAllConnections();
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
