import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import type { AgentTrust } from "../../functions/adapters/x509/trust.js";
import { AgentRoutes, c2ApiRoutes, servedRouteKeys } from "../../functions/core/c2/routes.js";
import { clientCertificateOf } from "../../functions/shared/agent-request.js";
import { consoleOperations } from "../../functions/shared/console-openapi.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { FunctionTimeouts } from "../../functions/shared/function-timeouts.js";
import { certificateSummary } from "./certs.js";
import type { FunctionLog } from "./function-logs.js";
import type { GatewayRoute, StreamingHandler } from "./gateway.js";
import { invoker, type LocalFunction, setLocalLambdaEnvironment } from "./lambda-runtime.js";

/** What every function's handler module exports. */
export type FunctionModule<Event, Result> = {
  handler(event: Event, context: Context): Promise<Result>;
  shutdown(): Promise<void>;
};

type HttpFunctionModule = FunctionModule<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

/** A function loaded on the local stack: each call of `invoke` one invocation of its handler. */
export interface LocalInvokedFunction<Event, Result> {
  readonly name: string;
  invoke(event: Event): Promise<Result>;
  shutdown(): Promise<void>;
}

export interface LoadedFunction {
  routes: GatewayRoute[];
  shutdown(): Promise<void>;
}

/**
 * Loads a function's handler module exactly as Lambda would. The module reads its environment when it is
 * first imported, so the environment is put in place first: the Lambda and Powertools settings where the user
 * has not set them, then `env` (backends' endpoints and names, test settings). Each call of `invoke` (a request
 * the gateway hands on, a schedule's tick, an Invoke of the local Lambda endpoint) is one invocation of `fn`,
 * writing to `logs`.
 */
export async function loadFunction<Event, Result>(
  fn: LocalFunction,
  importModule: () => Promise<FunctionModule<Event, Result>>,
  env: Record<string, string>,
  logs: FunctionLog,
): Promise<LocalInvokedFunction<Event, Result>> {
  setLocalLambdaEnvironment(logs);
  Object.assign(process.env, env);
  const loaded = await importModule();
  return { name: fn.name, invoke: invoker(fn, logs, loaded.handler), shutdown: loaded.shutdown };
}

/** An HTTP function's handler as the gateway calls it: given an HTTP API event, it answers in that API's shape. */
const loadHttpFunction = (
  fn: LocalFunction,
  importModule: () => Promise<unknown>,
  env: Record<string, string>,
  logs: FunctionLog,
): Promise<LocalInvokedFunction<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>> =>
  loadFunction(fn, importModule as () => Promise<HttpFunctionModule>, env, logs);

/** The name the streaming bundle intake's records carry in the function log and on the terminal. */
export const BUNDLE_INTAKE_LOG_NAME = "bundle-intake";

/**
 * What takes debug bundles: the streaming intake, as the agent service behind the ALB does (bundles of 16 MiB),
 * or the agent-api function, as the HTTP API ingress does (what an invocation carries). Assets stream on both.
 */
export type BundleIngress = "streaming" | "function";

/**
 * Hands the agent API loaded in this process the bindings of the trust store as it is now: the gateway's
 * onTrust, so that both change together, as one deployment changes them.
 */
export function followAgentTrust(trust: AgentTrust): void {
  process.env[EnvNames.agentCaBindings] = JSON.stringify(trust.bindings);
}

/** The agent API and the C2 routes the agent domain serves, as the CDK app declares them. */
export async function loadAgentApi(
  env: Record<string, string>,
  logs: FunctionLog,
  bundles: BundleIngress = "streaming",
): Promise<LoadedFunction> {
  const { invoke: handler, shutdown } = await loadHttpFunction(
    { name: "agent-api", timeoutSeconds: FunctionTimeouts.agentApi },
    () => import("../../functions/agent-api/handler.js"),
    env,
    logs,
  );
  const intake = await loadBundleIntake(logs);
  const streamed = bundles === "streaming";
  const functionRoutes = servedRouteKeys(c2ApiRoutes)
    .filter(({ path }) => path !== AgentRoutes.assetContent.path)
    .map(({ method, path }) => ({ method, path, handler }));
  return {
    routes: [
      ...functionRoutes,
      await loadAssetDownloads(logs),
      streamed ? intake.route : { ...AgentRoutes.debugBundle, handler },
    ],
    shutdown: async () => {
      await shutdown();
      await intake.shutdown();
    },
  };
}

/**
 * Asset downloads stream from the bucket to the agent, as the load balancer's rule sends them to the agent service
 * and the agent domain's mapping to the asset stream's function on AWS: the agent API loaded in this process (the handler's module) answers them through the agent service's
 * door, each request a scope of its own writing to `logs` under the function's name, the certificate the one the
 * gateway verified.
 */
async function loadAssetDownloads(logs: FunctionLog): Promise<GatewayRoute> {
  const agentApi = await import("../../functions/agent-api/app.js");
  const { agentAppHandler } = await import("../../functions/agent-service/agent-app.js");
  const serve = agentAppHandler(agentApi.serveAgentRequest, {
    // A download's request carries no body.
    maxBodyBytes: 0,
    requestBudgetMs: FunctionTimeouts.agentApi * 1000,
    logger: agentApi.logger,
    name: "agent-api",
  });
  const stream: StreamingHandler = (request, response, clientCertificatePem) =>
    logs.run("agent-api", () =>
      serve(request, response, clientCertificatePem ? verifiedCertificate(clientCertificatePem) : undefined),
    );
  return { ...AgentRoutes.assetContent, stream };
}

/** The gateway's verified certificate as the HTTP API's event would report it. */
function verifiedCertificate(pem: string) {
  const { subjectDN, serialNumber, issuerDN } = certificateSummary(pem);
  return clientCertificateOf(pem, { subjectDN, serialNumber, issuerDN });
}

/**
 * Debug bundles stream past what a Lambda invocation carries: the agent service's intake takes them, here as
 * behind the ALB on AWS, in this process, with the agent API's environment. Each upload writes to `logs` as a
 * function's invocation does, so the terminal shows what the intake logs as one line each, at the level chosen.
 */
export async function loadBundleIntake(
  logs: FunctionLog,
): Promise<{ route: GatewayRoute; shutdown(): Promise<void> }> {
  const intake = await import("../../functions/bundle-intake/handler.js");
  const stream: StreamingHandler = (request, response, clientCertificatePem) =>
    logs.run(BUNDLE_INTAKE_LOG_NAME, () =>
      intake.handleDebugBundleUpload(request, response, clientCertificatePem),
    );
  return { route: { ...AgentRoutes.debugBundle, stream }, shutdown: intake.shutdown };
}

/** The console API and every route of its OpenAPI document, as the CDK app declares them. */
export async function loadConsoleApi(
  env: Record<string, string>,
  logs: FunctionLog,
): Promise<LoadedFunction> {
  const { invoke: handler, shutdown } = await loadHttpFunction(
    { name: "console-api", timeoutSeconds: FunctionTimeouts.consoleApi },
    () => import("../../functions/console-api/handler.js"),
    env,
    logs,
  );
  return {
    routes: consoleOperations.map(({ method, path }) => ({ method, path, handler })),
    shutdown,
  };
}
