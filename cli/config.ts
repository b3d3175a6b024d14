/**
 * The CLI's contexts, one per deployment and tenant, each with its token, in one file readable by its owner
 * only: `$XDG_CONFIG_HOME/beacon/config.json`, or `~/.config/beacon/config.json`. BEACON_URL and BEACON_TOKEN
 * stand in for the current context's, so that a script or a CI job needs no file at all.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { UsageError } from "./exit.js";

export interface Context {
  /** The console's origin: the API is below it, at /api/v1, and its sign-in settings at /config.json. */
  url: string;
  /** The tenant the token was issued for, as its claims say: shown, never sent (tenancy is the token's). */
  tenant?: string;
  token?: string;
  /** Renews `token` when it expires (`beacon login` in a browser keeps it; a token given with --token has none). */
  refreshToken?: string;
}

export interface CliConfig {
  current?: string;
  contexts: Record<string, Context>;
}

const CONTEXT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export function configPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), ".config");
  return path.join(base, "beacon", "config.json");
}

export function readConfig(file: string): CliConfig {
  if (!existsSync(file)) return { contexts: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
  }
  const config = parsed as Partial<CliConfig> | null;
  if (typeof config !== "object" || config === null || typeof config.contexts !== "object") {
    throw new UsageError(`${file} holds no contexts: fix it or remove it`);
  }
  return { current: config.current, contexts: config.contexts ?? {} };
}

/** Written whole to a new file of mode 0600, then renamed over the old one: never half a file, never readable by others. */
export function writeConfig(file: string, config: CliConfig): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(next, 0o600);
  renameSync(next, file);
}

/** Adds or replaces a context; the first one added becomes the current one. */
export function withContext(config: CliConfig, name: string, context: Context): CliConfig {
  if (!CONTEXT_NAME.test(name)) {
    throw new UsageError(`A context name is 1 to 63 letters, digits, dots, dashes or underscores: ${name}`);
  }
  if (!URL.canParse(context.url) || !/^https?:$/.test(new URL(context.url).protocol)) {
    throw new UsageError(`--url must be an http or https address: ${context.url}`);
  }
  const url = new URL(context.url).origin;
  return { current: config.current ?? name, contexts: { ...config.contexts, [name]: { ...context, url } } };
}

export function withCurrent(config: CliConfig, name: string): CliConfig {
  if (config.contexts[name] === undefined)
    throw new UsageError(`No context named ${name}: see beacon context list`);
  return { ...config, current: name };
}

export interface Resolved {
  /** The context's name; undefined when BEACON_URL alone names the deployment. */
  name?: string;
  url: string;
  token?: string;
}

/** The context a command runs against: `--context`, else the current one, with BEACON_URL/BEACON_TOKEN over it. */
export function resolveContext(config: CliConfig, env: NodeJS.ProcessEnv, override?: string): Resolved {
  const name = override ?? config.current;
  const context = name === undefined ? undefined : config.contexts[name];
  if (name !== undefined && context === undefined && override !== undefined) {
    throw new UsageError(`No context named ${name}: see beacon context list`);
  }
  const url = env.BEACON_URL || context?.url;
  if (url === undefined) {
    throw new UsageError(
      "No deployment to talk to: beacon context add <name> --url <console URL>, or set BEACON_URL",
    );
  }
  return { name: context === undefined ? undefined : name, url, token: env.BEACON_TOKEN || context?.token };
}
