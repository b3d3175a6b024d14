/**
 * The local stack's OAuth 2.0 authorization server for the web console, standing in for the user pool's
 * hosted pages: the authorization code flow with PKCE (S256 only) for the console's public client, on the
 * local web server's own origin, and for a native client on the loopback interface (the `beacon` CLI). Its
 * sign-in page asks for a tenant and a role, as the local sign-in does, and hands the client an ID token from
 * the dev issuer, with the nonce the client sent, once the client proves with its code verifier that it asked
 * for the code.
 */
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isValidIdentifier } from "../../functions/core/identity/credentials.js";
import { ConsoleClaims, type Role, Roles } from "../../functions/core/identity/principal.js";
import { readBody } from "../../functions/shared/request-body.js";
import { SECURITY_HEADERS, SIGN_IN_CALLBACK_PATH, type WebConsoleConfig } from "../../web/serving.js";
import { type ConsoleIssuer, signToken } from "./console-issuer.js";

export const AUTHORIZE_PATH = "/oauth2/authorize";
export const TOKEN_PATH = "/oauth2/token";
/** A code is redeemed at once by the page it was sent to; a minute covers a slow browser. */
const CODE_LIFETIME_MS = 60_000;
const ID_TOKEN_LIFETIME_SECONDS = 3600;
/** The user pool's default: a CLI signed in stays signed in for 30 days of use. */
const REFRESH_TOKEN_LIFETIME_MS = 30 * 24 * 3600_000;
const MAX_FORM_BYTES = 8192;
/** RFC 7636: 43 to 128 characters of the unreserved set. */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const CODE_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/** What the local web server's /config.json says: this server's flow, and the local sign-in beside it. */
export function localConsoleConfig(issuer: ConsoleIssuer): WebConsoleConfig {
  return {
    localSignIn: true,
    oauth: {
      authorizationEndpoint: AUTHORIZE_PATH,
      tokenEndpoint: TOKEN_PATH,
      clientId: issuer.audience,
      issuer: issuer.issuer,
      scopes: ["openid"],
    },
  };
}

interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  nonce: string | undefined;
  codeChallenge: string;
}

/** Whom a code or a refresh token signs in, for which client, until when. */
interface Grant {
  clientId: string;
  tenant: string;
  role: Role;
  expiresAt: number;
}

interface IssuedCode extends AuthorizationRequest, Grant {}

class RequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class LocalAuthorizationServer {
  private readonly codes = new Map<string, IssuedCode>();
  private readonly refreshTokens = new Map<string, Grant>();

  constructor(private readonly issuer: ConsoleIssuer) {}

  /** GET shows the sign-in page for an authorization request; POST is that page's form. */
  async authorize(incoming: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const form = incoming.method === "POST" ? await readForm(incoming) : undefined;
    if (incoming.method === "POST" && form === undefined) {
      return page(response, 413, "Sign-in refused", "<p>The form is larger than 8 KB.</p>");
    }
    const params = form ?? url.searchParams;
    const origin = `http://${incoming.headers.host}`;
    // A request that names another client or another place to return to goes nowhere: the page says why.
    const clientId = params.get("client_id");
    const redirectUri = params.get("redirect_uri");
    const registered = (uri: string) =>
      uri === `${origin}${SIGN_IN_CALLBACK_PATH}` || isLoopbackRedirect(uri);
    if (clientId !== this.issuer.audience || redirectUri === null || !registered(redirectUri)) {
      return page(
        response,
        400,
        "Sign-in refused",
        `<p>The client or its return address is not registered.</p>`,
      );
    }
    const back = new URL(redirectUri);
    try {
      const request = this.authorizationRequest(params, clientId, redirectUri);
      if (form === undefined) return page(response, 200, "Sign in to Beacon", signInForm(request));
      const tenant = params.get("tenant") ?? "";
      const role = params.get("role") as Role;
      if (!isValidIdentifier(tenant) || !Roles.includes(role)) {
        throw new RequestError("access_denied", "No such tenant or role");
      }
      const code = randomBytes(32).toString("base64url");
      this.codes.set(code, { ...request, tenant, role, expiresAt: Date.now() + CODE_LIFETIME_MS });
      back.search = new URLSearchParams({ code, state: request.state }).toString();
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      back.search = new URLSearchParams({
        error: error.code,
        error_description: error.message,
        ...(params.get("state") === null ? {} : { state: params.get("state") as string }),
      }).toString();
    }
    response.writeHead(303, { location: back.toString(), "cache-control": "no-store" });
    response.end();
  }

  /**
   * Redeems a code once, for the client and return address it was issued to and the verifier of its challenge,
   * for an ID token and a refresh token; or a refresh token, for the client it was issued to, for a new ID token.
   */
  async token(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const refuse = (status: number, error: string, description: string) =>
      json(response, status, { error, error_description: description });
    if (incoming.method !== "POST") return refuse(405, "invalid_request", "POST the token request");
    if (!/^application\/x-www-form-urlencoded\b/i.test(incoming.headers["content-type"] ?? "")) {
      return refuse(415, "invalid_request", "Send the token request as a form");
    }
    const form = await readForm(incoming);
    if (form === undefined) return refuse(400, "invalid_request", "The body is not a form of at most 8 KB");
    if (form.get("grant_type") === "refresh_token") {
      const grant = this.refreshTokens.get(form.get("refresh_token") ?? "");
      if (grant === undefined || grant.expiresAt <= Date.now() || form.get("client_id") !== grant.clientId) {
        return refuse(400, "invalid_grant", "The refresh token is unknown, expired or another client's");
      }
      const idToken = await this.idToken(grant, undefined);
      return json(response, 200, {
        id_token: idToken,
        token_type: "Bearer",
        expires_in: ID_TOKEN_LIFETIME_SECONDS,
      });
    }
    if (form.get("grant_type") !== "authorization_code") {
      return refuse(400, "unsupported_grant_type", "Only authorization_code and refresh_token are supported");
    }
    const code = form.get("code") ?? "";
    const issued = this.codes.get(code);
    // Used once, whatever the outcome: a code that leaked is worth nothing after its first try.
    this.codes.delete(code);
    if (issued === undefined || issued.expiresAt <= Date.now()) {
      return refuse(400, "invalid_grant", "The code is unknown, used or expired");
    }
    if (form.get("client_id") !== issued.clientId || form.get("redirect_uri") !== issued.redirectUri) {
      return refuse(400, "invalid_grant", "The code was issued to another client or return address");
    }
    const verifier = form.get("code_verifier") ?? "";
    if (!CODE_VERIFIER.test(verifier) || s256(verifier) !== issued.codeChallenge) {
      return refuse(400, "invalid_grant", "The code verifier does not match the code challenge");
    }
    const idToken = await this.idToken(issued, issued.nonce);
    const refreshToken = this.newRefreshToken(issued);
    json(response, 200, {
      id_token: idToken,
      refresh_token: refreshToken,
      token_type: "Bearer",
      expires_in: ID_TOKEN_LIFETIME_SECONDS,
    });
  }

  private idToken(grant: Grant, nonce: string | undefined): Promise<string> {
    return signToken(this.issuer, {
      sub: `${grant.tenant}-${grant.role}`,
      aud: grant.clientId,
      [ConsoleClaims.tenant]: grant.tenant,
      [ConsoleClaims.role]: grant.role,
      ...(nonce === undefined ? {} : { nonce }),
      exp: Math.floor(Date.now() / 1000) + ID_TOKEN_LIFETIME_SECONDS,
    });
  }

  private newRefreshToken({ clientId, tenant, role }: Grant): string {
    const now = Date.now();
    // Expired ones go as new ones come, so a long-running local stack keeps only the live ones.
    for (const [token, grant] of this.refreshTokens)
      if (grant.expiresAt <= now) this.refreshTokens.delete(token);
    const token = randomBytes(32).toString("base64url");
    this.refreshTokens.set(token, { clientId, tenant, role, expiresAt: now + REFRESH_TOKEN_LIFETIME_MS });
    return token;
  }

  private authorizationRequest(
    params: URLSearchParams,
    clientId: string,
    redirectUri: string,
  ): AuthorizationRequest {
    const state = params.get("state");
    if (!state) throw new RequestError("invalid_request", "state is required");
    if (params.get("response_type") !== "code") {
      throw new RequestError("unsupported_response_type", "Only the code flow is supported");
    }
    if (!(params.get("scope") ?? "").split(" ").includes("openid")) {
      throw new RequestError("invalid_scope", "The openid scope is required");
    }
    const codeChallenge = params.get("code_challenge") ?? "";
    if (params.get("code_challenge_method") !== "S256" || !CODE_CHALLENGE.test(codeChallenge)) {
      throw new RequestError("invalid_request", "PKCE with an S256 code challenge is required");
    }
    return { clientId, redirectUri, state, nonce: params.get("nonce") ?? undefined, codeChallenge };
  }
}

/**
 * A native client's return address (RFC 8252, 7.3): the loopback interface on whatever port the client
 * listens on, at the console's callback path. The `beacon` CLI signs in this way.
 */
export function isLoopbackRedirect(redirectUri: string): boolean {
  if (!URL.canParse(redirectUri)) return false;
  const url = new URL(redirectUri);
  return (
    url.protocol === "http:" &&
    url.hostname === "127.0.0.1" &&
    url.port !== "" &&
    url.pathname === SIGN_IN_CALLBACK_PATH &&
    url.search === "" &&
    url.hash === "" &&
    url.username === "" &&
    url.password === ""
  );
}

function s256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** The form, or undefined for one larger than the limit. */
async function readForm(incoming: IncomingMessage): Promise<URLSearchParams | undefined> {
  const body = await readBody(incoming, MAX_FORM_BYTES);
  return body === undefined ? undefined : new URLSearchParams(body.toString("utf8"));
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  response.end(JSON.stringify(body));
}

function page(response: ServerResponse, status: number, title: string, body: string): void {
  response.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    ...SECURITY_HEADERS,
  });
  response.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
      `content="width=device-width, initial-scale=1"><title>${title}</title></head>` +
      `<body><main><h1>${title}</h1>${body}</main></body></html>`,
  );
}

/** The request rides along in hidden fields, so the form's POST carries everything the GET was given. */
function signInForm(request: AuthorizationRequest): string {
  const hidden = {
    response_type: "code",
    scope: "openid",
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    state: request.state,
    ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
    code_challenge: request.codeChallenge,
    code_challenge_method: "S256",
  };
  const fields = Object.entries(hidden)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
    .join("");
  const roles = Roles.map((role) => `<option value="${role}">${role}</option>`).join("");
  return (
    `<p>The local stack's identity provider: it signs you in to any tenant with any role, with no password.</p>` +
    `<form method="post" action="${AUTHORIZE_PATH}">${fields}` +
    `<p><label for="tenant">Tenant</label> <input id="tenant" name="tenant" value="dev" required></p>` +
    `<p><label for="role">Role</label> <select id="role" name="role">${roles}</select></p>` +
    `<p><button type="submit">Sign in</button></p></form>`
  );
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
