import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localConsoleConfig } from "../../scripts/local/authorization-server.js";
import { ensureConsoleIssuer, makeJwtAuthorizer } from "../../scripts/local/console-issuer.js";
import type { Gateway } from "../../scripts/local/gateway.js";
import { startWebServer } from "../../scripts/local/web-server.js";
import { type OAuthClientConfig, SIGN_IN_CALLBACK_PATH } from "../serving.js";
import { claimsOf } from "../src/jwt.js";
import {
  authorizationUrl,
  beginSignIn,
  codeChallengeOf,
  completeSignIn,
  type KeyValueStore,
  newSignIn,
  randomToken,
  redeemCallback,
  refreshSignIn,
  SignInError,
} from "../src/oauth.js";

/** The tab's sessionStorage, as far as the sign-in uses it. */
class TabStorage implements KeyValueStore {
  readonly items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

let dir: string;
let web: Gateway;
let oauth: OAuthClientConfig;
let redirectUri: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "beacon-oauth-"));
  const issuer = await ensureConsoleIssuer(join(dir, "issuer"));
  // The local web server, whose authorization server plays the identity provider; no console API behind it.
  web = await startWebServer({ port: 0, root: dir, consoleApiUrl: "http://127.0.0.1:9", issuer });
  oauth = localConsoleConfig(issuer).oauth as OAuthClientConfig;
  redirectUri = `${web.url}${SIGN_IN_CALLBACK_PATH}`;
});

afterAll(async () => {
  await web?.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * What the person does on the provider's sign-in page: it shows the form for the request, and posting the
 * form (with the request's fields, as its hidden inputs carry them) sends the browser back with a code.
 */
async function approve(authorizeUrl: string, tenant: string, role: string): Promise<URL> {
  const shown = await fetch(authorizeUrl);
  expect(shown.status).toBe(200);
  expect(await shown.text()).toContain('<form method="post" action="/oauth2/authorize">');
  const request = new URL(authorizeUrl).searchParams;
  request.set("tenant", tenant);
  request.set("role", role);
  const posted = await fetch(new URL(authorizeUrl).origin + new URL(authorizeUrl).pathname, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: request.toString(),
    redirect: "manual",
  });
  expect(posted.status).toBe(303);
  return new URL(posted.headers.get("location") as string);
}

describe("PKCE", () => {
  it("derives the S256 challenge as RFC 7636's example does", async () => {
    expect(await codeChallengeOf("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
  });

  it("makes verifiers, states and nonces of 256 random bits in RFC 7636's alphabet", () => {
    const tokens = Array.from({ length: 50 }, randomToken);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it("sends the provider the challenge of a verifier it keeps, with a state and a nonce", async () => {
    const tab = new TabStorage();
    const url = new URL(await beginSignIn(oauth, redirectUri, "/agents", tab));
    expect(url.origin + url.pathname).toBe(`${web.url}/oauth2/authorize`);
    const [kept] = [...tab.items.values()].map(
      (value) => JSON.parse(value) as { state: string; nonce: string; codeVerifier: string },
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: "code",
      client_id: oauth.clientId,
      redirect_uri: redirectUri,
      scope: "openid",
      state: kept?.state,
      nonce: kept?.nonce,
      code_challenge: await codeChallengeOf(kept?.codeVerifier as string),
      code_challenge_method: "S256",
    });
    expect(url.searchParams.toString()).not.toContain(kept?.codeVerifier);
  });
});

describe("sign-in with the local authorization server", () => {
  it("redeems the code with the verifier for an ID token the console API accepts, then returns", async () => {
    const tab = new TabStorage();
    const callback = await approve(
      await beginSignIn(oauth, redirectUri, "/agents?class=a", tab),
      "acme",
      "operator",
    );
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    const { idToken, returnTo } = await completeSignIn(oauth, callback, tab);
    expect(returnTo).toBe("/agents?class=a");
    const authorizer = await makeJwtAuthorizer(await ensureConsoleIssuer(join(dir, "issuer")));
    const verified = await authorizer.authorize(`Bearer ${idToken}`);
    expect(verified?.claims).toMatchObject({ "custom:tenant": "acme", "custom:role": "operator" });
    // The sign-in's secrets are gone once used.
    expect(tab.items.size).toBe(0);
    await expect(completeSignIn(oauth, callback, tab)).rejects.toThrow(
      /not started here, or was already used/,
    );
  });

  it("refuses a callback whose state this tab did not send", async () => {
    const tab = new TabStorage();
    const callback = await approve(await beginSignIn(oauth, redirectUri, "/", tab), "acme", "viewer");
    const forged = new URL(callback);
    forged.searchParams.set("state", randomToken());
    await expect(completeSignIn(oauth, forged, tab)).rejects.toThrow(SignInError);
    // Another tab, which started nothing, refuses the genuine callback too.
    await expect(completeSignIn(oauth, callback, new TabStorage())).rejects.toThrow(/not started here/);
  });

  it("gets no token for a code redeemed with another verifier: the server checks the challenge", async () => {
    const tab = new TabStorage();
    const callback = await approve(await beginSignIn(oauth, redirectUri, "/", tab), "acme", "admin");
    const [[key, value]] = [...tab.items] as [[string, string]];
    tab.setItem(key, JSON.stringify({ ...JSON.parse(value), codeVerifier: randomToken() }));
    await expect(completeSignIn(oauth, callback, tab)).rejects.toThrow(
      "The token endpoint refused the code: The code verifier does not match the code challenge",
    );
  });

  it("keeps no ID token that lacks this sign-in's nonce or comes from another issuer", async () => {
    const replayedNonce = new TabStorage();
    const first = await approve(await beginSignIn(oauth, redirectUri, "/", replayedNonce), "acme", "admin");
    const [[key, value]] = [...replayedNonce.items] as [[string, string]];
    replayedNonce.setItem(key, JSON.stringify({ ...JSON.parse(value), nonce: randomToken() }));
    await expect(completeSignIn(oauth, first, replayedNonce)).rejects.toThrow(/does not answer this sign-in/);

    const elsewhere = { ...oauth, issuer: "https://login.example.org/" };
    const tab = new TabStorage();
    const second = await approve(await beginSignIn(elsewhere, redirectUri, "/", tab), "acme", "admin");
    await expect(completeSignIn(elsewhere, second, tab)).rejects.toThrow(/from another issuer/);
  });

  it("shows the provider's refusal, for a request without PKCE", async () => {
    const tab = new TabStorage();
    const url = new URL(await beginSignIn(oauth, redirectUri, "/", tab));
    url.searchParams.set("code_challenge_method", "plain");
    const refused = await fetch(url, { redirect: "manual" });
    expect(refused.status).toBe(303);
    const callback = new URL(refused.headers.get("location") as string);
    expect(callback.searchParams.get("error")).toBe("invalid_request");
    await expect(completeSignIn(oauth, callback, tab)).rejects.toThrow(
      "The identity provider refused: PKCE with an S256 code challenge is required",
    );
  });

  it("sends nobody back to an address the client did not register, nor redeems a code twice", async () => {
    const tab = new TabStorage();
    const foreign = new URL(await beginSignIn(oauth, "https://elsewhere.example/auth/callback", "/", tab));
    const refused = await fetch(new URL(`${foreign.pathname}${foreign.search}`, web.url), {
      redirect: "manual",
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("location")).toBeNull();
    expect(refused.headers.get("content-security-policy")).toContain("default-src 'none'");

    const pending = new TabStorage();
    const callback = await approve(await beginSignIn(oauth, redirectUri, "/", pending), "acme", "admin");
    const [verifier] = [...pending.items.values()].map(
      (v) => (JSON.parse(v) as { codeVerifier: string }).codeVerifier,
    );
    const redeem = () =>
      fetch(`${web.url}${oauth.tokenEndpoint}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: callback.searchParams.get("code") as string,
          redirect_uri: redirectUri,
          client_id: oauth.clientId,
          code_verifier: verifier as string,
        }),
      });
    const first = await redeem();
    expect(first.status).toBe(200);
    const { id_token } = (await first.json()) as { id_token: string };
    expect(claimsOf(id_token)).toMatchObject({ aud: oauth.clientId, iss: oauth.issuer });
    const second = await redeem();
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("renews a sign-in with its refresh token for the same tenant and role, and for this client only", async () => {
    const pending = newSignIn(redirectUri);
    const callback = await approve(await authorizationUrl(oauth, web.url, pending), "acme", "operator");
    const tokenEndpoint = new URL(oauth.tokenEndpoint, web.url);
    const signedIn = await redeemCallback(oauth, tokenEndpoint, pending, callback.searchParams);
    expect(signedIn.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const renewed = await refreshSignIn(oauth, tokenEndpoint, signedIn.refreshToken as string);
    expect(renewed.refreshToken).toBe(signedIn.refreshToken);
    const authorizer = await makeJwtAuthorizer(await ensureConsoleIssuer(join(dir, "issuer")));
    const verified = await authorizer.authorize(`Bearer ${renewed.idToken}`);
    expect(verified?.claims).toMatchObject({ "custom:tenant": "acme", "custom:role": "operator" });
    expect(verified?.claims).not.toHaveProperty("nonce");

    await expect(refreshSignIn(oauth, tokenEndpoint, randomToken())).rejects.toThrow(
      /refused the refresh token: The refresh token is unknown, expired or another client's/,
    );
    const otherClient = { ...oauth, clientId: "another-client" };
    await expect(
      refreshSignIn(otherClient, tokenEndpoint, signedIn.refreshToken as string),
    ).rejects.toBeInstanceOf(SignInError);
    const otherIssuer = { ...oauth, issuer: "https://elsewhere.example" };
    await expect(refreshSignIn(otherIssuer, tokenEndpoint, signedIn.refreshToken as string)).rejects.toThrow(
      "The ID token comes from another issuer",
    );
  });

  it("is what the local web server's /config.json offers, beside the local sign-in", async () => {
    const reply = await fetch(`${web.url}/config.json`);
    expect(reply.headers.get("cache-control")).toBe("no-cache");
    expect(await reply.json()).toEqual({ localSignIn: true, oauth });
  });
});
