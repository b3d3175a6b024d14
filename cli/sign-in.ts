/**
 * `beacon login` without a token: the authorization code flow with PKCE against the deployment's identity
 * provider, as the web console signs in (web/src/oauth.ts), with a loopback redirect (RFC 8252): the CLI
 * listens on 127.0.0.1 on a port the system picks, for the one callback that answers its request. The
 * provider's settings are the console's own, from the deployment's /config.json.
 */
import { spawn } from "node:child_process";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  CONFIG_PATH,
  type OAuthClientConfig,
  SIGN_IN_CALLBACK_PATH,
  type WebConsoleConfig,
} from "../web/serving.js";
import { authorizationUrl, newSignIn, redeemCallback, type SignedIn } from "../web/src/oauth.js";
import { UsageError } from "./exit.js";
import type { Io } from "./output.js";

/** Long enough to sign in with a password and a second factor; the CLI gives up after it. */
const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/**
 * How the CLI signs in to a deployment, from its /config.json: as the CLI's own client where the deployment
 * names one (returning to its one registered address), else as the console's client, to any loopback port.
 */
export async function cliSignInSettings(
  url: string,
  fetchImpl: typeof fetch = fetch,
): Promise<{ oauth: OAuthClientConfig; redirectUri?: string } | undefined> {
  const response = await fetchImpl(new URL(CONFIG_PATH, url));
  const config = (response.ok ? await response.json() : {}) as WebConsoleConfig;
  if (config.oauth === undefined) return undefined;
  if (config.cli === undefined) return { oauth: config.oauth };
  return { oauth: { ...config.oauth, clientId: config.cli.clientId }, redirectUri: config.cli.redirectUri };
}

export async function signInWithBrowser(url: string, io: Io, openBrowser: boolean): Promise<SignedIn> {
  const settings = await cliSignInSettings(url);
  if (settings === undefined) {
    throw new UsageError(`${url} names no identity provider: sign in with beacon login --token <token>`);
  }
  const { oauth, redirectUri } = settings;
  const server = createServer();
  const fixedPort = redirectUri === undefined ? 0 : Number(new URL(redirectUri).port);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new UsageError(
              `Port ${fixedPort}, where sign-in returns, is in use: is another beacon login running?`,
            )
          : error,
      ),
    );
    server.listen(fixedPort, "127.0.0.1", resolve);
  });
  try {
    const { port } = server.address() as AddressInfo;
    const pending = newSignIn(redirectUri ?? `http://127.0.0.1:${port}${SIGN_IN_CALLBACK_PATH}`);
    const address = await authorizationUrl(oauth, url, pending);
    io.err(`Sign in to Beacon in your browser; if it does not open, open this address:\n  ${address}\n`);
    if (openBrowser) open(address);
    return await callback(server, (query) =>
      redeemCallback(oauth, new URL(oauth.tokenEndpoint, url), pending, query),
    );
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

/** What `redeem` makes of the first request to the callback path; the browser is told how it went. */
function callback(server: Server, redeem: (query: URLSearchParams) => Promise<SignedIn>): Promise<SignedIn> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error("No sign-in came back within 5 minutes")),
      SIGN_IN_TIMEOUT_MS,
    );
    server.on("request", (request, response) => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      if (url.pathname !== SIGN_IN_CALLBACK_PATH) {
        response.writeHead(404).end();
        return;
      }
      redeem(url.searchParams).then(
        (signedIn) => {
          clearTimeout(timer);
          answer(response, 200, "Signed in to Beacon. You may close this tab and return to the terminal.");
          resolve(signedIn);
        },
        (error: Error) => {
          clearTimeout(timer);
          answer(response, 400, `Sign-in failed: ${error.message}`);
          reject(error);
        },
      );
    });
  });
}

function answer(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  response.end(`${text}\n`);
}

/** The system's way to open an address; where there is none, the address printed is the way. */
function open(address: string): void {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [address]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", address]]
        : ["xdg-open", [address]];
  const child = spawn(command as string, args as string[], { stdio: "ignore", detached: true });
  child.on("error", () => undefined);
  child.unref();
}
