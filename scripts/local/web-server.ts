/**
 * The local stand-in for the web console's distribution (CloudFront on AWS): the built console as static
 * files with the security headers a deployment sends, and the console API under /api/ on the same origin,
 * so the page needs no CORS for it; its Content-Security-Policy allows `connect-src` to its own origin and to
 * the storage an asset's parts are sent to (S3Proxy, which allows this origin by CORS).
 *
 * It also answers `POST /local/token`, the local sign-in: a token from the dev issuer for any tenant and
 * role, limited to some classes when asked, as `npm run token` prints one. Only the local stack has it; a deployed console signs in with the
 * identity provider the console API trusts, through the authorization code flow with PKCE, which this
 * server offers too (authorization-server.ts), with the dev issuer as the provider.
 */
import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { isValidIdentifier } from "../../functions/core/identity/credentials.js";
import { classesOfClaim, type Role, Roles } from "../../functions/core/identity/principal.js";
import { readBody } from "../../functions/shared/request-body.js";
import { API_PREFIX, ASSETS_PREFIX, CacheControl, CONFIG_PATH, securityHeaders } from "../../web/serving.js";
import {
  AUTHORIZE_PATH,
  LocalAuthorizationServer,
  localConsoleConfig,
  TOKEN_PATH,
} from "./authorization-server.js";
import { type ConsoleIssuer, consoleToken } from "./console-issuer.js";
import { type Gateway, listenOn } from "./gateway.js";

type SecurityHeaders = ReturnType<typeof securityHeaders>;

export const LOCAL_TOKEN_PATH = "/local/token";
/** A working day, as the token `npm start` prints. */
const LOCAL_TOKEN_LIFETIME_SECONDS = 12 * 3600;
const MAX_SIGN_IN_BODY_BYTES = 4096;

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
};
const COMPRESSIBLE = new Set([".html", ".js", ".css", ".svg", ".json"]);

export interface WebServerOptions {
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** The built console (web/tools/build.ts). */
  root: string;
  /** Where /api/ requests go: the console gateway. */
  consoleApiUrl: string;
  issuer: ConsoleIssuer;
  /** The origin of the storage the console API's presigned links point at (S3Proxy's). */
  storageOrigin?: string;
}

export async function startWebServer(options: WebServerOptions): Promise<Gateway> {
  const host = options.host ?? "127.0.0.1";
  const headers = securityHeaders(options.storageOrigin);
  const files = new StaticFiles(options.root, headers);
  const authorization = new LocalAuthorizationServer(options.issuer);
  const server = createServer((incoming, response) => {
    route(incoming, response, options, files, authorization, headers).catch((error: unknown) => {
      console.error("local web console: request failed", error);
      if (!response.headersSent)
        reply(response, 500, { error: { code: "internal_error", message: "failed" } });
      else response.destroy();
    });
  });
  return listenOn(server, "http", host, options.port);
}

async function route(
  incoming: IncomingMessage,
  response: ServerResponse,
  options: WebServerOptions,
  files: StaticFiles,
  authorization: LocalAuthorizationServer,
  headers: SecurityHeaders,
): Promise<void> {
  const url = new URL(incoming.url ?? "/", "http://localhost");
  if (url.pathname.startsWith(API_PREFIX)) return proxy(incoming, response, options.consoleApiUrl);
  if (url.pathname === LOCAL_TOKEN_PATH) return signIn(incoming, response, options.issuer);
  if (url.pathname === AUTHORIZE_PATH) return authorization.authorize(incoming, response, url);
  if (url.pathname === TOKEN_PATH) return authorization.token(incoming, response);
  if (incoming.method !== "GET" && incoming.method !== "HEAD") {
    return reply(response, 405, {
      error: { code: "method_not_allowed", message: "Static files are read only" },
    });
  }
  // The local variant of what a deployment writes: this server's authorization flow and the local sign-in.
  if (url.pathname === CONFIG_PATH) {
    response.writeHead(200, {
      "content-type": "application/json",
      "cache-control": CacheControl.page,
      ...headers,
    });
    response.end(JSON.stringify(localConsoleConfig(options.issuer)));
    return;
  }
  return files.serve(url.pathname, incoming, response);
}

/** The request as it came, to the console gateway, and its reply as it comes back. */
function proxy(incoming: IncomingMessage, response: ServerResponse, consoleApiUrl: string): Promise<void> {
  const target = new URL(incoming.url ?? "/", consoleApiUrl);
  const { host: _host, connection: _connection, ...headers } = incoming.headers;
  return new Promise((resolve, reject) => {
    const outgoing = request(target, { method: incoming.method, headers }, (upstream) => {
      response.writeHead(upstream.statusCode ?? 502, upstream.headers);
      upstream.pipe(response);
      upstream.once("end", resolve);
      upstream.once("error", reject);
    });
    outgoing.once("error", (error) => {
      if (response.headersSent) return reject(error);
      reply(response, 502, {
        error: { code: "bad_gateway", message: `The console API is unreachable: ${error.message}` },
      });
      resolve();
    });
    incoming.pipe(outgoing);
  });
}

/**
 * The local sign-in. It asks for a JSON body, which a form on another site cannot send without a CORS
 * preflight that this server never grants, so no other page can sign a visitor in or read a token.
 */
async function signIn(
  incoming: IncomingMessage,
  response: ServerResponse,
  issuer: ConsoleIssuer,
): Promise<void> {
  const refuse = (status: number, message: string) =>
    reply(response, status, { error: { code: "invalid_request", message } });
  if (incoming.method !== "POST") return refuse(405, "POST a tenant and a role");
  if (!/^application\/json\b/i.test(incoming.headers["content-type"] ?? "")) {
    return refuse(415, "Send the tenant and role as application/json");
  }
  let body: { tenant?: unknown; role?: unknown; classes?: unknown };
  try {
    body = JSON.parse((await readBody(incoming, MAX_SIGN_IN_BODY_BYTES))?.toString("utf8") ?? "");
  } catch {
    return refuse(400, "The body is not JSON of at most 4 KB");
  }
  const { tenant, role } = body;
  // Names separated by commas, as `npm run token -- --classes` takes them; without them, the whole tenant.
  const classes = body.classes === undefined ? undefined : classesOfClaim(body.classes);
  if (typeof tenant !== "string" || !isValidIdentifier(tenant)) {
    return refuse(
      400,
      "The tenant is 1 to 128 characters: letters, digits and . _ : @ -, starting with a letter or digit",
    );
  }
  if (!Roles.includes(role as Role)) return refuse(400, `The role is one of ${Roles.join(", ")}`);
  if (body.classes !== undefined && !classes) {
    return refuse(400, "The classes are class names separated by commas");
  }
  const token = await consoleToken(
    issuer,
    { tenant, role: role as Role, classes },
    LOCAL_TOKEN_LIFETIME_SECONDS,
  );
  reply(response, 200, { token });
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  response.end(JSON.stringify(body));
}

/**
 * The build's files. Hashed assets are cached for good; any other path without a file extension is a page
 * of the single-page app and gets index.html, which the browser asks for again every time.
 */
class StaticFiles {
  private readonly compressed = new Map<string, Buffer>();

  constructor(
    private readonly root: string,
    private readonly securityHeaders: SecurityHeaders,
  ) {}

  async serve(pathname: string, incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const segments = safeSegments(pathname);
    let file = segments === undefined ? undefined : await this.existing(path.join(this.root, ...segments));
    if (file === undefined && segments !== undefined && path.extname(pathname) === "") {
      file = path.join(this.root, "index.html");
    }
    if (file === undefined) {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8", ...this.securityHeaders });
      response.end("Not found");
      return;
    }
    const extension = path.extname(file);
    const headers: Record<string, string> = {
      "content-type": CONTENT_TYPES[extension] ?? "application/octet-stream",
      "cache-control": pathname.startsWith(ASSETS_PREFIX) ? CacheControl.assets : CacheControl.page,
      vary: "accept-encoding",
      ...this.securityHeaders,
    };
    let body: Buffer = await readFile(file);
    if (COMPRESSIBLE.has(extension) && /\bgzip\b/.test(String(incoming.headers["accept-encoding"] ?? ""))) {
      body = this.gzipped(file, body);
      headers["content-encoding"] = "gzip";
    }
    headers["content-length"] = String(body.length);
    response.writeHead(200, headers);
    response.end(incoming.method === "HEAD" ? undefined : body);
  }

  private gzipped(file: string, body: Buffer): Buffer {
    let compressed = this.compressed.get(file);
    if (compressed === undefined) {
      compressed = gzipSync(body, { level: 9 });
      this.compressed.set(file, compressed);
    }
    return compressed;
  }

  private async existing(file: string): Promise<string | undefined> {
    const found = await stat(file).catch(() => undefined);
    return found?.isFile() ? file : undefined;
  }
}

/** The path's segments, or undefined for one that climbs out, names a hidden file or cannot be decoded. */
function safeSegments(pathname: string): string[] | undefined {
  try {
    const segments = pathname.split("/").filter(Boolean).map(decodeURIComponent);
    const unsafe = segments.some(
      (segment) =>
        segment.startsWith(".") || segment.includes("/") || segment.includes("\\") || segment.includes("\0"),
    );
    return unsafe ? undefined : segments;
  } catch {
    return undefined;
  }
}
