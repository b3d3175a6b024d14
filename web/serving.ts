/**
 * How the built console is served, wherever it is: the security headers, the caching and the paths the page
 * and its servers agree on. The local web server (scripts/local/web-server.ts) and the CDK app's distribution
 * (infra/lib/web-console.ts) both read them from here, so the two cannot drift apart, and the page reads its
 * sign-in configuration's shape from here too. Plain values only: it runs in Node and in the browser alike.
 */

/**
 * The page runs only its own scripts and styles and talks only to its own origin, and to the storage the
 * console API's presigned links point at when it is given (`storageOrigin`: the assets bucket's regional
 * endpoint on AWS, S3Proxy locally), where the browser sends an asset's parts and fetches nothing else.
 */
export function contentSecurityPolicy(storageOrigin?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    storageOrigin === undefined ? "connect-src 'self'" : `connect-src 'self' ${storageOrigin}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The security headers of the console's pages and files; `storageOrigin` as in contentSecurityPolicy. */
export function securityHeaders(storageOrigin?: string) {
  return {
    "content-security-policy": contentSecurityPolicy(storageOrigin),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
  } as const satisfies Record<string, string>;
}

/** For what no asset is sent from: the sign-in pages and answers of the local stack's servers. */
export const SECURITY_HEADERS = securityHeaders();

/** The build's hashed files: a changed file gets a new name, so a browser may keep each one for good. */
export const ASSETS_PREFIX = "/assets/";
export const CacheControl = {
  assets: "public, max-age=31536000, immutable",
  /** index.html and config.json: asked for again every time, so a deployment reaches every tab's next load. */
  page: "no-cache",
} as const;

/** Where the console API is, below the console's own origin. */
export const API_PREFIX = "/api/";

/** The sign-in configuration the page reads at start: each server of the console writes its own. */
export const CONFIG_PATH = "/config.json";
/** Where the identity provider sends the browser back with an authorization code. */
export const SIGN_IN_CALLBACK_PATH = "/auth/callback";
/**
 * The `beacon` CLI's return address with a provider that matches return addresses exactly, port included (a
 * user pool does): a fixed loopback port, registered for the CLI's own client. Providers that take any port on
 * the loopback interface (RFC 8252, 7.3), as the local stack's does, need none.
 */
export const CLI_SIGN_IN_REDIRECT = `http://localhost:47511${SIGN_IN_CALLBACK_PATH}`;

/**
 * An OAuth 2.0 public client's settings for the authorization code flow with PKCE. The token endpoint is a
 * path of the console's own origin (its servers pass it to the identity provider), so `connect-src 'self'`
 * holds; the authorization endpoint is a page the browser navigates to, anywhere.
 */
export interface OAuthClientConfig {
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly clientId: string;
  /** The identity provider's issuer: the ID token's `iss` must be it. */
  readonly issuer: string;
  readonly scopes: readonly string[];
  /** Where to send the browser to end the provider's session too, if it has one; the page adds nothing to it. */
  readonly logoutUrl?: string;
}

/** The client the `beacon` CLI signs in as, where it is not the console's, and the one address it returns to. */
export interface CliClientConfig {
  readonly clientId: string;
  readonly redirectUri: string;
}

export interface WebConsoleConfig {
  readonly oauth?: OAuthClientConfig;
  readonly cli?: CliClientConfig;
  /** Only the local stack: `POST /local/token` signs a token for any tenant and role. */
  readonly localSignIn?: boolean;
}
