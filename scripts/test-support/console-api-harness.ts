import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { inject } from "vitest";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { ensureDevCertificates } from "../local/certs.js";
import {
  type ConsoleIdentity,
  type ConsoleIssuer,
  consoleToken,
  ensureConsoleIssuer,
  makeJwtAuthorizer,
} from "../local/console-issuer.js";
import { openTemporaryFunctionLog } from "../local/function-logs.js";
import { loadConsoleApi } from "../local/function-routes.js";
import { startConsoleGateway } from "../local/gateway.js";
import { startLocalLambdaEndpoint } from "../local/lambda-endpoint.js";
import { loadWebhookDispatcher } from "../local/sweeper-timer.js";
import { startWebhookReceiver, type WebhookReceiver } from "../local/webhook-receiver.js";

export interface ConsoleResponse {
  status: number;
  headers: Headers;
  body: string;
  json(): Record<string, unknown>;
}

export interface ConsoleRequestOptions {
  /** Sent as `Authorization: Bearer <token>`; none when absent. */
  token?: string;
  /** Sent as JSON; a Uint8Array is sent as is (with the content type `headers` give it). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ConsoleApiUnderTest {
  url: string;
  /** The dev issuer the gateway trusts, for tests that sign tokens of their own. */
  issuer: ConsoleIssuer;
  token(identity: ConsoleIdentity): Promise<string>;
  /** The function's log file: its JSON log records and metrics (EMF) lines. */
  functionLog: string;
  request(method: string, requestPath: string, options?: ConsoleRequestOptions): Promise<ConsoleResponse>;
  /** An HTTPS webhook receiver on this machine that subscriptions may name; closed with the console. */
  startReceiver(): Promise<WebhookReceiver>;
  /** Runs `during` while the Lambda endpoint the console invokes the webhook dispatcher through is down. */
  whileLambdaIsDown<T>(during: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The real console-api handler behind the local JWT-verifying gateway, in this test file's own process,
 * on the backends the integration project's global setup started. Agent certificates are issued from
 * the agent API harness's CA, so its gateway trusts them, and operations send agents to its URL. Event
 * subscriptions may name receivers on this machine whose certificate that CA signed (`startReceiver`), as
 * under `npm start`, where the real webhook dispatcher posts the console's tests, invoked through a local
 * Lambda endpoint of the harness's own.
 */
export async function startConsoleApi(
  agentApi: { certsDir: string; url: string },
  overrides: Record<string, string> = {},
): Promise<ConsoleApiUnderTest> {
  const functionLog = openTemporaryFunctionLog();
  const webhookEnv = {
    [EnvNames.webhookAllowedHosts]: "127.0.0.1,localhost",
    [EnvNames.webhookCaFile]: (await ensureDevCertificates(agentApi.certsDir)).caPath,
  };
  // On the console's backends, overrides included: it reads the subscriptions the console made.
  const webhookDispatcher = await loadWebhookDispatcher(
    { ...inject("beaconEnv"), ...webhookEnv, POWERTOOLS_LOG_LEVEL: "ERROR", ...overrides },
    functionLog.log,
  );
  const startLambda = (port: number) =>
    startLocalLambdaEndpoint({ port, functions: [webhookDispatcher], log: (line) => console.error(line) });
  let lambdaEndpoint = await startLambda(0);
  const consoleApi = await loadConsoleApi(
    {
      ...inject("beaconEnv"),
      [EnvNames.agentCaDir]: agentApi.certsDir,
      [EnvNames.agentApiUrl]: agentApi.url,
      [EnvNames.webhookAllowedHosts]: webhookEnv[EnvNames.webhookAllowedHosts],
      [AwsEndpointEnvNames.lambda]: lambdaEndpoint.url,
      [EnvNames.webhookTesterFunction]: webhookDispatcher.name,
      POWERTOOLS_LOG_LEVEL: "ERROR",
      ...overrides,
    },
    functionLog.log,
  );
  const issuerDir = mkdtempSync(path.join(tmpdir(), "beacon-issuer-"));
  const issuer = await ensureConsoleIssuer(issuerDir);
  const gateway = await startConsoleGateway({
    port: 0,
    routes: consoleApi.routes,
    authorizer: await makeJwtAuthorizer(issuer),
  });
  const receivers: WebhookReceiver[] = [];
  return {
    url: gateway.url,
    issuer,
    token: (identity) => consoleToken(issuer, identity),
    functionLog: functionLog.log.file,
    async request(method, requestPath, options = {}) {
      const response = await fetch(new URL(requestPath, gateway.url), {
        method,
        headers: {
          ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
          ...(options.body === undefined ? {} : { "content-type": "application/json" }),
          ...options.headers,
        },
        body:
          options.body === undefined || options.body instanceof Uint8Array
            ? (options.body as Uint8Array | undefined)
            : JSON.stringify(options.body),
        signal: AbortSignal.timeout(30_000),
      });
      const body = await response.text();
      return { status: response.status, headers: response.headers, body, json: () => JSON.parse(body) };
    },
    async startReceiver() {
      const { server } = await ensureDevCertificates(agentApi.certsDir);
      const receiver = await startWebhookReceiver({
        cert: readFileSync(server.certPath, "utf8"),
        key: readFileSync(server.keyPath, "utf8"),
      });
      receivers.push(receiver);
      return receiver;
    },
    async whileLambdaIsDown(during) {
      const port = Number(new URL(lambdaEndpoint.url).port);
      await lambdaEndpoint.close();
      try {
        return await during();
      } finally {
        lambdaEndpoint = await startLambda(port);
      }
    },
    async close() {
      await Promise.all(receivers.map((receiver) => receiver.close()));
      await gateway.close();
      await consoleApi.shutdown();
      await lambdaEndpoint.close();
      await webhookDispatcher.shutdown();
      functionLog.close();
      rmSync(issuerDir, { recursive: true, force: true });
    },
  };
}
