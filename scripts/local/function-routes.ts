import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { AgentRoutes } from "../../functions/shared/agent-routes.js";
import { consoleOperations } from "../../functions/shared/console-openapi.js";
import type { GatewayHandler, GatewayRoute } from "./gateway.js";

type FunctionModule = {
  handler(event: APIGatewayProxyEventV2): Promise<unknown>;
  shutdown(): Promise<void>;
};

export interface LoadedFunction {
  routes: GatewayRoute[];
  shutdown(): Promise<void>;
}

/**
 * What the CDK function construct sets on AWS, with local values. Metrics stay off by default: their
 * EMF lines are for CloudWatch and would bury the log on a terminal.
 */
const LOCAL_POWERTOOLS_DEFAULTS = {
  POWERTOOLS_SERVICE_NAME: "beacon-local",
  POWERTOOLS_METRICS_NAMESPACE: "Beacon",
  POWERTOOLS_METRICS_DISABLED: "true",
  POWERTOOLS_LOG_LEVEL: "INFO",
};

/**
 * Loads a function's handler module exactly as Lambda would. The module reads its environment when it is
 * first imported, so the environment is put in place first: the Powertools defaults where the user has
 * not set them, then `env` (backends' endpoints and names, test settings).
 */
async function loadFunction(
  importModule: () => Promise<unknown>,
  env: Record<string, string>,
): Promise<{ handler: GatewayHandler; shutdown(): Promise<void> }> {
  for (const [name, value] of Object.entries(LOCAL_POWERTOOLS_DEFAULTS)) process.env[name] ??= value;
  Object.assign(process.env, env);
  const loaded = (await importModule()) as FunctionModule;
  // Given an HTTP API event, a handler answers in the HTTP API's result shape.
  const handler = (event: APIGatewayProxyEventV2) =>
    loaded.handler(event) as Promise<APIGatewayProxyStructuredResultV2>;
  return { handler, shutdown: loaded.shutdown };
}

/** The agent API and the C2 routes the agent domain serves, as the CDK app declares them. */
export async function loadAgentApi(env: Record<string, string>): Promise<LoadedFunction> {
  const { handler, shutdown } = await loadFunction(() => import("../../functions/agent-api/handler.js"), env);
  return { routes: AgentRoutes.map(({ method, path }) => ({ method, path, handler })), shutdown };
}

/** The console API and every route of its OpenAPI document, as the CDK app declares them. */
export async function loadConsoleApi(env: Record<string, string>): Promise<LoadedFunction> {
  const { handler, shutdown } = await loadFunction(
    () => import("../../functions/console-api/handler.js"),
    env,
  );
  return {
    routes: consoleOperations.map(({ method, path }) => ({ method, path, handler })),
    shutdown,
  };
}
