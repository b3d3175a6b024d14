/**
 * Sign-in with the identity provider: OAuth 2.0's authorization code flow for a public client, with PKCE
 * (RFC 7636, S256). Before leaving for the provider the page keeps a random code verifier, state and nonce
 * in the tab's sessionStorage; on the way back it accepts only the state it sent, redeems the code with the
 * verifier at the token endpoint (on its own origin), and keeps the ID token only if it carries the nonce it
 * sent, names this client as its audience and comes from the configured issuer. The `beacon` CLI signs in
 * the same way, with a loopback redirect (RFC 8252) in place of the tab's storage.
 */
import type { OAuthClientConfig } from "../serving.js";
import { claimsOf, toBase64Url } from "./jwt.js";

/** What the page needs of sessionStorage; the tests give it a store of their own. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A sign-in's secrets, kept from the authorization request until its callback. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
}

interface StoredSignIn extends PendingSignIn {
  /** Where the person was going when asked to sign in. */
  returnTo: string;
}

const PENDING_KEY = "beacon.console.signIn";
/** 32 random bytes: a 43-character verifier, the shortest RFC 7636 allows, with 256 bits of entropy. */
const RANDOM_BYTES = 32;

export class SignInError extends Error {}

export function randomToken(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(RANDOM_BYTES)));
}

/** S256: the unpadded base64url of the verifier's SHA-256. */
export async function codeChallengeOf(codeVerifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(codeVerifier));
  return toBase64Url(new Uint8Array(digest));
}

export function newSignIn(redirectUri: string): PendingSignIn {
  return { state: randomToken(), nonce: randomToken(), codeVerifier: randomToken(), redirectUri };
}

/** The authorization request's URL, the provider's endpoint resolved against `base` (the console's origin). */
export async function authorizationUrl(
  oauth: OAuthClientConfig,
  base: string | URL,
  pending: PendingSignIn,
): Promise<string> {
  const url = new URL(oauth.authorizationEndpoint, base);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: oauth.clientId,
    redirect_uri: pending.redirectUri,
    scope: oauth.scopes.join(" "),
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await codeChallengeOf(pending.codeVerifier),
    code_challenge_method: "S256",
  }).toString();
  return url.toString();
}

/** Remembers a new sign-in's secrets and answers the authorization request's URL to send the browser to. */
export async function beginSignIn(
  oauth: OAuthClientConfig,
  redirectUri: string,
  returnTo: string,
  store: KeyValueStore,
): Promise<string> {
  const pending: StoredSignIn = { ...newSignIn(redirectUri), returnTo };
  store.setItem(PENDING_KEY, JSON.stringify(pending));
  return authorizationUrl(oauth, redirectUri, pending);
}

export interface CompletedSignIn {
  idToken: string;
  returnTo: string;
}

/** What a sign-in or its renewal gives: an ID token, and the refresh token that renews it where the provider sends one. */
export interface SignedIn {
  idToken: string;
  refreshToken?: string;
}

/**
 * Finishes the sign-in the provider sent the browser back from (`callbackUrl`, with `code` and `state`).
 * The pending sign-in is used once: a second visit of the same callback, or one this tab never started,
 * is refused.
 */
export async function completeSignIn(
  oauth: OAuthClientConfig,
  callbackUrl: URL,
  store: KeyValueStore,
  fetchImpl: typeof fetch = fetch,
): Promise<CompletedSignIn> {
  const saved = store.getItem(PENDING_KEY);
  store.removeItem(PENDING_KEY);
  const pending = saved === null ? undefined : (JSON.parse(saved) as StoredSignIn);
  const tokenEndpoint = new URL(oauth.tokenEndpoint, callbackUrl);
  // The page keeps no refresh token: a script on the page could read it, and an hour's sign-in is enough for a tab.
  const { idToken } = await redeemCallback(
    oauth,
    tokenEndpoint,
    pending,
    callbackUrl.searchParams,
    fetchImpl,
  );
  return { idToken, returnTo: (pending as StoredSignIn).returnTo };
}

/**
 * The ID token for the callback's code, redeemed at `tokenEndpoint` with the pending sign-in's verifier: only
 * for the state that sign-in sent, and only if the token carries its nonce, names this client as its audience
 * and comes from the configured issuer.
 */
export async function redeemCallback(
  oauth: OAuthClientConfig,
  tokenEndpoint: URL,
  pending: PendingSignIn | undefined,
  query: URLSearchParams,
  fetchImpl: typeof fetch = fetch,
): Promise<SignedIn> {
  if (pending === undefined || query.get("state") !== pending.state) {
    throw new SignInError("This sign-in was not started here, or was already used. Sign in again.");
  }
  const providerError = query.get("error");
  if (providerError !== null) {
    throw new SignInError(
      `The identity provider refused: ${query.get("error_description") ?? providerError}`,
    );
  }
  const code = query.get("code");
  if (code === null) throw new SignInError("The identity provider sent no authorization code");

  const signedIn = await tokenRequest(
    tokenEndpoint,
    {
      grant_type: "authorization_code",
      code,
      redirect_uri: pending.redirectUri,
      client_id: oauth.clientId,
      code_verifier: pending.codeVerifier,
    },
    "code",
    fetchImpl,
  );
  const claims = claimsOf(signedIn.idToken);
  if (claims?.nonce !== pending.nonce) throw new SignInError("The ID token does not answer this sign-in");
  checkIssued(oauth, claims);
  return signedIn;
}

/**
 * A new ID token for a refresh token the provider gave at sign-in (OAuth 2.0's refresh_token grant, as a public
 * client: no secret), kept only if it names this client as its audience and comes from the configured issuer.
 * The refresh token stays the same unless the provider sends another.
 */
export async function refreshSignIn(
  oauth: OAuthClientConfig,
  tokenEndpoint: URL,
  refreshToken: string,
  fetchImpl: typeof fetch = fetch,
): Promise<SignedIn> {
  const renewed = await tokenRequest(
    tokenEndpoint,
    { grant_type: "refresh_token", refresh_token: refreshToken, client_id: oauth.clientId },
    "refresh token",
    fetchImpl,
  );
  checkIssued(oauth, claimsOf(renewed.idToken));
  return { idToken: renewed.idToken, refreshToken: renewed.refreshToken ?? refreshToken };
}

async function tokenRequest(
  tokenEndpoint: URL,
  form: Record<string, string>,
  what: string,
  fetchImpl: typeof fetch,
): Promise<SignedIn> {
  const response = await fetchImpl(tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await response.json().catch(() => ({}))) as {
    id_token?: unknown;
    refresh_token?: unknown;
    error?: unknown;
    error_description?: unknown;
  };
  if (!response.ok || typeof body.id_token !== "string") {
    const reason = body.error_description ?? body.error ?? `status ${response.status}`;
    throw new SignInError(`The token endpoint refused the ${what}: ${String(reason)}`);
  }
  return {
    idToken: body.id_token,
    ...(typeof body.refresh_token === "string" ? { refreshToken: body.refresh_token } : {}),
  };
}

function checkIssued(oauth: OAuthClientConfig, claims: Record<string, unknown> | undefined): void {
  if (![claims?.aud].flat().includes(oauth.clientId)) {
    throw new SignInError("The ID token was issued to another client");
  }
  if (claims?.iss !== oauth.issuer) throw new SignInError("The ID token comes from another issuer");
}
