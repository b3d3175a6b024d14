/**
 * Keeping a browser sign-in alive: before a command talks to the API, an ID token that has expired, or will
 * within a minute, is renewed with the refresh token `beacon login` kept, and written back to the context.
 * A token from BEACON_TOKEN or `login --token` is the script's to renew: it has no refresh token here.
 */
import { claimsOf } from "../web/src/jwt.js";
import { refreshSignIn, SignInError } from "../web/src/oauth.js";
import { readConfig, withContext, writeConfig } from "./config.js";
import { UsageError } from "./exit.js";
import { cliSignInSettings } from "./sign-in.js";

/** Renewed this long before it expires, so that a command never starts with a token that lapses on the way. */
const RENEW_BEFORE_MS = 60_000;

export function needsRenewal(token: string, now: number): boolean {
  const expiry = claimsOf(token)?.exp;
  return typeof expiry !== "number" || expiry * 1000 - now <= RENEW_BEFORE_MS;
}

export async function renewSignIn(
  configFile: string,
  env: NodeJS.ProcessEnv,
  contextName: string | undefined,
  now: number = Date.now(),
  fetchImpl: typeof fetch = fetch,
): Promise<void> {
  if (env.BEACON_TOKEN) return;
  const config = readConfig(configFile);
  const name = contextName ?? config.current;
  const context = name === undefined ? undefined : config.contexts[name];
  if (name === undefined || context?.token === undefined || context.refreshToken === undefined) return;
  if (!needsRenewal(context.token, now)) return;
  const url = env.BEACON_URL || context.url;
  const expired = (why: string) =>
    new UsageError(`The sign-in to ${name} has expired and could not be renewed (${why}): beacon login`);
  const settings = await cliSignInSettings(url, fetchImpl);
  if (settings === undefined) throw expired(`${url} names no identity provider`);
  const { oauth } = settings;
  try {
    const renewed = await refreshSignIn(
      oauth,
      new URL(oauth.tokenEndpoint, url),
      context.refreshToken,
      fetchImpl,
    );
    const next = { ...context, token: renewed.idToken, refreshToken: renewed.refreshToken };
    writeConfig(configFile, withContext(config, name, next));
  } catch (error) {
    if (error instanceof SignInError) throw expired(error.message);
    throw error;
  }
}
