import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { AgentRoutes } from "../../functions/shared/agent-routes.js";
import { consoleOperations } from "../../functions/shared/console-openapi.js";
import type { FunctionLog } from "./function-logs.js";
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
 * What the CDK function construct sets on AWS, with local values. Metrics are on, as on AWS: their EMF
 * lines go to the function log's file, as Lambda's go to CloudWatch Logs.
 */
export function setLocalPowertoolsDefaults(logs: FunctionLog): void {
  process.env.POWERTOOLS_SERVICE_NAME ??= "beacon-local";
  process.env.POWERTOOLS_METRICS_NAMESPACE ??= "Beacon";
  process.env.POWERTOOLS_LOG_LEVEL ??= logs.powertoolsLogLevel;
}

/**
 * Loads a function's handler module exactly as Lambda would. The module reads its environment when it is
 * first imported, so the environment is put in place first: the Powertools defaults where the user has
 * not set them, then `env` (backends' endpoints and names, test settings). What the function writes
 * while it handles an event goes to `logs`.
 */
async function loadFunction(
  functionName: string,
  importModule: () => Promise<unknown>,
  env: Record<string, string>,
  logs: FunctionLog,
): Promise<{ handler: GatewayHandler; shutdown(): Promise<void> }> {
  setLocalPowertoolsDefaults(logs);
  Object.assign(process.env, env);
  const loaded = (await importModule()) as FunctionModule;
  // Given an HTTP API event, a handler answers in the HTTP API's result shape.
  const handler = (event: APIGatewayProxyEventV2) =>
    logs.run(functionName, () => loaded.handler(event) as Promise<APIGatewayProxyStructuredResultV2>);
  return { handler, shutdown: loaded.shutdown };
}

/** The agent API and the C2 routes the agent domain serves, as the CDK app declares them. */
export async function loadAgentApi(env: Record<string, string>, logs: FunctionLog): Promise<LoadedFunction> {
  const { handler, shutdown } = await loadFunction(
    "agent-api",
    () => import("../../functions/agent-api/handler.js"),
    env,
    logs,
  );
  return { routes: AgentRoutes.map(({ method, path }) => ({ method, path, handler })), shutdown };
}

/** The console API and every route of its OpenAPI document, as the CDK app declares them. */
export async function loadConsoleApi(
  env: Record<string, string>,
  logs: FunctionLog,
): Promise<LoadedFunction> {
  const { handler, shutdown } = await loadFunction(
    "console-api",
    () => import("../../functions/console-api/handler.js"),
    env,
    logs,
  );
  return {
    routes: consoleOperations.map(({ method, path }) => ({ method, path, handler })),
    shutdown,
  };
}
