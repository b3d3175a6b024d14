/**
 * The local stand-in for API Gateway (HTTP API, Lambda proxy integration with payload format 2.0): it turns
 * each request into the event API Gateway would send and invokes the very handler module that runs on AWS.
 * The agent gateway terminates mutual TLS against the dev CA, as the agent domain does; the console gateway
 * verifies bearer tokens, as the console API's JWT authorizer does.
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { watch } from "node:fs";
import { readFile } from "node:fs/promises";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import type {
  APIGatewayEventClientCertificate,
  APIGatewayProxyEventV2,
  APIGatewayProxyResultV2,
} from "aws-lambda";
import type { AgentTrust } from "../../functions/adapters/x509/trust.js";
import { agentTlsServerOptions } from "../../functions/shared/agent-tls.js";
import { readBody } from "../../functions/shared/request-body.js";
import { agentTrust, certificateSummary, ensureDevCertificates } from "./certs.js";
import type { JwtAuthorizer } from "./console-issuer.js";

/** Invokes the function behind a route with the event, as API Gateway's Lambda integration does. */
export type GatewayHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyResultV2>;

/**
 * Takes a request whose body it reads itself, as it streams, and answers it; the client's verified certificate
 * (PEM) is handed over as the ALB hands it to the agent service behind it.
 */
export type StreamingHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  clientCertificatePem: string | undefined,
) => Promise<void>;

export type GatewayRoute = {
  method: string;
  /** Literal segments and `{name}` parameters, e.g. `/c2/api/flows/{flowId}/content`. */
  path: string;
} & ({ handler: GatewayHandler } | { stream: StreamingHandler });

interface GatewayOptions {
  host?: string;
  /** 0 picks a free port. */
  port: number;
  routes: GatewayRoute[];
  /** Limit on the body as received (compressed, if it is); API Gateway's is 10 MB. */
  maxBodyBytes?: number;
}

export interface AgentGatewayOptions extends GatewayOptions {
  certsDir: string;
  /**
   * Told the trust the certs folder holds each time the gateway reads it, at start and after each change,
   * so that the agent API's bindings follow the trust store, as one deployment changes both.
   */
  onTrust?: (trust: AgentTrust) => void;
}

export interface ConsoleGatewayOptions extends GatewayOptions {
  authorizer: JwtAuthorizer;
}

export interface Gateway {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface AgentGateway extends Gateway {
  /**
   * Reads the certs folder again for the connections that follow (established ones keep the trust they
   * were admitted with). The gateway does so by itself when the folder changes; tests call it to know when.
   */
  reloadTrust(): Promise<void>;
}

/** Folder changes come in bursts (a key, then its certificate, a lock): one reload after the last. */
const TRUST_RELOAD_DELAY_MS = 100;

/**
 * What the gateway's authentication adds to the event's requestContext (a client certificate, a JWT's
 * claims), or the reply that refuses the request before any handler sees it.
 */
type Admission = { requestContext: ContextExtras } | { refusal: HttpReply };

interface ContextExtras {
  authentication?: { clientCert: APIGatewayEventClientCertificate };
  authorizer?: { jwt: { claims: Record<string, string>; scopes: string[] | null } };
}

/** How one kind of gateway listens and authenticates. */
interface GatewayKind {
  server: Server;
  scheme: "http" | "https";
  admit(request: IncomingMessage): Admission | Promise<Admission>;
}

const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Longer than any heartbeat period in use (C++ ships 30 s, fleets run 60 s) so agents keep their connection. */
const KEEP_ALIVE_TIMEOUT_MS = 120_000;
/** Above the keep-alive timeout, so an idle connection is closed by keep-alive, never by a headers timeout. */
const HEADERS_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 5_000;
const ACCOUNT_ID = "000000000000";
const API_ID = "local";
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
/** Bodies API Gateway passes as text; anything else, and anything with a Content-Encoding, goes base64. */
const TEXT_MEDIA_TYPE =
  /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)$|application\/[\w.-]+\+(json|xml)$)/i;

interface HttpReply {
  statusCode: number;
  headers: Record<string, string>;
  cookies: string[];
  body: Buffer;
}

interface CompiledRoute {
  route: GatewayRoute;
  routeKey: string;
  segments: string[];
}

/**
 * The agent API's domain: HTTPS with mutual TLS, the client certificate handed to the handler. It trusts
 * what the certs folder holds (the dev CA's current, next and previous generations, and tenant CAs), as the
 * agent domain trusts its truststore, and follows the folder as a CA rotation changes it.
 */
export async function startAgentGateway(options: AgentGatewayOptions): Promise<AgentGateway> {
  const { certsDir } = options;
  const tlsContext = async () => {
    const certificates = await ensureDevCertificates(certsDir);
    const trust = await agentTrust(certsDir);
    options.onTrust?.(trust);
    // With the trust: a reloaded secure context is built from these options alone.
    return {
      ...agentTlsServerOptions,
      ca: trust.bundlePem,
      cert: await readFile(certificates.server.certPath, "utf8"),
      key: await readFile(certificates.server.keyPath, "utf8"),
    };
  };
  const server = createHttpsServer({
    ...(await tlsContext()),
    // API Gateway mutual TLS: no certificate, or one no trusted CA signed, fails the handshake.
    requestCert: true,
    rejectUnauthorized: true,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    headersTimeout: HEADERS_TIMEOUT_MS,
  });
  const reloadTrust = async () => server.setSecureContext(await tlsContext());
  let pending: NodeJS.Timeout | undefined;
  // Recursive: tenants' CAs are in a folder of their own.
  const watcher = watch(certsDir, { recursive: true }, () => {
    clearTimeout(pending);
    pending = setTimeout(() => {
      // A folder caught mid-change (a rotation under way) is read again at its next change.
      reloadTrust().catch((error: unknown) => console.error("local gateway: trust not reloaded", error));
    }, TRUST_RELOAD_DELAY_MS);
  });
  const gateway = await startGateway(options, {
    server,
    scheme: "https",
    admit: (request) => ({
      requestContext: { authentication: { clientCert: peerCertificate(request.socket as TLSSocket) } },
    }),
  });
  return {
    ...gateway,
    reloadTrust,
    async close() {
      watcher.close();
      clearTimeout(pending);
      await gateway.close();
    },
  };
}

/**
 * The console API: plain HTTP on the loopback interface, every request's bearer token verified as the
 * HTTP API's JWT authorizer verifies it, its claims handed to the handler as the authorizer hands them.
 */
export function startConsoleGateway(options: ConsoleGatewayOptions): Promise<Gateway> {
  const server = createHttpServer({
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    headersTimeout: HEADERS_TIMEOUT_MS,
  });
  return startGateway(options, {
    server,
    scheme: "http",
    async admit(request) {
      const jwt = await options.authorizer.authorize(request.headers.authorization);
      if (!jwt) {
        const reply = jsonReply(401, "Unauthorized");
        return { refusal: { ...reply, headers: { ...reply.headers, "www-authenticate": "Bearer" } } };
      }
      return { requestContext: { authorizer: { jwt } } };
    },
  });
}

async function startGateway(options: GatewayOptions, kind: GatewayKind): Promise<Gateway> {
  const host = options.host ?? "127.0.0.1";
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const routes = options.routes.map(compileRoute);
  const { server } = kind;
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    serve(request, response, routes, maxBodyBytes, kind).catch((error: unknown) => {
      // A client that went away mid-request (its body cut short) leaves nothing to answer or report.
      if (request.socket.destroyed) return;
      console.error("local gateway: request failed", error);
      if (!response.headersSent) writeReply(response, jsonReply(500, "Internal Server Error"));
      else response.destroy();
    });
  });
  return listenOn(server, kind.scheme, host, options.port);
}

/** Starts a local server listening; closing it closes its idle keep-alive connections too. */
export async function listenOn(
  server: Server,
  scheme: "http" | "https",
  host: string,
  port: number | undefined,
): Promise<Gateway> {
  server.listen(port, host);
  await once(server, "listening");
  const address = server.address() as AddressInfo;
  return {
    url: `${scheme}://${host.includes(":") ? `[${host}]` : host}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  routes: CompiledRoute[],
  maxBodyBytes: number,
  kind: GatewayKind,
): Promise<void> {
  const receivedAt = new Date();
  const requestId = randomBytes(11).toString("base64");
  response.setHeader("apigw-requestid", requestId);
  const target = request.url ?? "/";
  const queryStart = target.indexOf("?");
  const rawPath = queryStart === -1 ? target : target.slice(0, queryStart);
  const rawQueryString = queryStart === -1 ? "" : target.slice(queryStart + 1);
  const method = request.method ?? "GET";
  const match = matchRoute(routes, method, rawPath);
  if (!match) {
    writeReply(response, jsonReply(404, "Not Found"));
    return;
  }
  if ("stream" in match.route) {
    // Not held to the gateway's body limit: the handler reads and bounds the body itself.
    const admission = await kind.admit(request);
    if ("refusal" in admission) writeReply(response, admission.refusal);
    else
      await match.route.stream(
        request,
        response,
        admission.requestContext.authentication?.clientCert.clientCertPem,
      );
    return;
  }
  const declaredLength = Number(request.headers["content-length"] ?? 0);
  const body = declaredLength > maxBodyBytes ? undefined : await readBody(request, maxBodyBytes);
  if (body === undefined) {
    rejectTooLarge(response);
    return;
  }
  const admission = await kind.admit(request);
  if ("refusal" in admission) {
    writeReply(response, admission.refusal);
    return;
  }
  const event = buildEvent({
    request,
    method,
    rawPath,
    rawQueryString,
    routeKey: match.routeKey,
    pathParameters: match.pathParameters,
    body,
    requestId,
    receivedAt,
    scheme: kind.scheme,
    requestContext: admission.requestContext,
  });
  let reply: HttpReply;
  try {
    reply = toHttpReply(await match.route.handler(event));
  } catch (error) {
    console.error(
      "local gateway: handler failed, answered 500",
      { routeKey: match.routeKey, requestId },
      error,
    );
    reply = jsonReply(500, "Internal Server Error");
  }
  writeReply(response, reply);
}

function compileRoute(route: GatewayRoute): CompiledRoute {
  const method = route.method.toUpperCase();
  return { route, routeKey: `${method} ${route.path}`, segments: route.path.split("/") };
}

function matchRoute(
  routes: CompiledRoute[],
  method: string,
  rawPath: string,
): { route: GatewayRoute; routeKey: string; pathParameters: Record<string, string> | undefined } | undefined {
  const segments = rawPath.split("/");
  for (const compiled of routes) {
    if (!compiled.routeKey.startsWith(`${method} `) || compiled.segments.length !== segments.length) continue;
    const parameters: Record<string, string> = {};
    const matches = compiled.segments.every((pattern, index) => {
      const segment = segments[index] as string;
      const parameter = /^\{(\w+)\}$/.exec(pattern)?.[1];
      if (parameter === undefined) return pattern === segment;
      if (segment === "") return false;
      parameters[parameter] = decodeSegment(segment);
      return true;
    });
    if (matches) {
      const pathParameters = Object.keys(parameters).length > 0 ? parameters : undefined;
      return { route: compiled.route, routeKey: compiled.routeKey, pathParameters };
    }
  }
  return undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The connection closes after the 413, so the rest of the body is never read. */
function rejectTooLarge(response: ServerResponse): void {
  const reply = jsonReply(413, "Request Entity Too Large");
  writeReply(response, { ...reply, headers: { ...reply.headers, connection: "close" } });
}

interface EventParts {
  request: IncomingMessage;
  method: string;
  rawPath: string;
  rawQueryString: string;
  routeKey: string;
  pathParameters: Record<string, string> | undefined;
  body: Buffer;
  requestId: string;
  receivedAt: Date;
  scheme: GatewayKind["scheme"];
  requestContext: ContextExtras;
}

function buildEvent(parts: EventParts): APIGatewayProxyEventV2 {
  const { request, body } = parts;
  const sourceIp = (request.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
  const { headers, cookies } = eventHeaders(request, sourceIp, parts.receivedAt, parts.scheme);
  const domainName = (headers.host ?? "localhost").replace(/:\d+$/, "");
  const isBase64Encoded = body.length > 0 && !isTextBody(headers);
  return {
    version: "2.0",
    routeKey: parts.routeKey,
    rawPath: parts.rawPath,
    rawQueryString: parts.rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...queryParameters(parts.rawQueryString),
    requestContext: {
      accountId: ACCOUNT_ID,
      apiId: API_ID,
      ...parts.requestContext,
      domainName,
      domainPrefix: domainName.split(".")[0] as string,
      http: {
        method: parts.method,
        path: parts.rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp,
        userAgent: headers["user-agent"] ?? "",
      },
      requestId: parts.requestId,
      routeKey: parts.routeKey,
      stage: "$default",
      time: formatRequestTime(parts.receivedAt),
      timeEpoch: parts.receivedAt.getTime(),
    },
    ...(body.length > 0 ? { body: body.toString(isBase64Encoded ? "base64" : "utf8") } : {}),
    ...(parts.pathParameters ? { pathParameters: parts.pathParameters } : {}),
    isBase64Encoded,
  };
}

/** Lower-case names, repeated headers joined with ",", cookies moved out, forwarding headers added. */
function eventHeaders(
  request: IncomingMessage,
  sourceIp: string,
  receivedAt: Date,
  scheme: GatewayKind["scheme"],
): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, values] of Object.entries(request.headersDistinct)) {
    if (!values) continue;
    if (name === "cookie") {
      cookies.push(
        ...values.flatMap((value) => value.split(";").map((cookie) => cookie.trim())).filter(Boolean),
      );
    } else {
      headers[name] = values.join(",");
    }
  }
  const forwardedFor = headers["x-forwarded-for"];
  headers["x-forwarded-for"] = forwardedFor ? `${forwardedFor}, ${sourceIp}` : sourceIp;
  headers["x-forwarded-port"] = String(request.socket.localPort ?? "");
  headers["x-forwarded-proto"] = scheme;
  headers["x-amzn-trace-id"] ??=
    `Root=1-${Math.floor(receivedAt.getTime() / 1000).toString(16)}-${randomBytes(12).toString("hex")}`;
  return { headers, cookies };
}

function queryParameters(rawQueryString: string): Pick<APIGatewayProxyEventV2, "queryStringParameters"> {
  if (rawQueryString === "") return {};
  const parameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    const previous = parameters[name];
    parameters[name] = previous === undefined ? value : `${previous},${value}`;
  }
  return { queryStringParameters: parameters };
}

function isTextBody(headers: Record<string, string>): boolean {
  if (headers["content-encoding"]) return false;
  const mediaType = (headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
  return TEXT_MEDIA_TYPE.test(mediaType);
}

/** API Gateway's request time, e.g. "12/Mar/2020:19:03:58 +0000". */
function formatRequestTime(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return (
    `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

/** One summary per connection: a keep-alive connection presents its certificate once. */
const peerCertificates = new WeakMap<TLSSocket, APIGatewayEventClientCertificate>();

function peerCertificate(socket: TLSSocket): APIGatewayEventClientCertificate {
  let summary = peerCertificates.get(socket);
  if (!summary) {
    // The handshake only completes with a certificate the CA signed (rejectUnauthorized), so raw is present.
    summary = certificateSummary(socket.getPeerCertificate().raw);
    peerCertificates.set(socket, summary);
  }
  return summary;
}

/**
 * Payload format 2.0 responses: an object with a statusCode is taken field by field; anything else is
 * a 200 application/json whose body is the result (a string as is, other values as JSON).
 */
function toHttpReply(result: APIGatewayProxyResultV2): HttpReply {
  if (typeof result === "object" && result !== null && "statusCode" in result) {
    const { statusCode } = result;
    if (
      typeof statusCode !== "number" ||
      !Number.isInteger(statusCode) ||
      statusCode < 100 ||
      statusCode > 599
    ) {
      throw new Error(`The handler returned an invalid statusCode: ${String(statusCode)}`);
    }
    const headers = Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
    );
    const body = Buffer.from(result.body ?? "", result.isBase64Encoded ? "base64" : "utf8");
    return { statusCode, headers, cookies: result.cookies ?? [], body };
  }
  const body = typeof result === "string" ? result : (JSON.stringify(result) ?? "");
  return {
    statusCode: 200,
    headers: { "content-type": "application/json" },
    cookies: [],
    body: Buffer.from(body),
  };
}

function jsonReply(statusCode: number, message: string): HttpReply {
  return {
    statusCode,
    headers: { "content-type": "application/json" },
    cookies: [],
    body: Buffer.from(JSON.stringify({ message })),
  };
}

function writeReply(response: ServerResponse, reply: HttpReply): void {
  response.statusCode = reply.statusCode;
  for (const [name, value] of Object.entries(reply.headers)) response.setHeader(name, value);
  if (reply.cookies.length > 0) response.setHeader("set-cookie", reply.cookies);
  response.end(reply.body);
}
