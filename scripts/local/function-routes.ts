import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { AgentRoutes } from "../../functions/shared/agent-routes.js";
import { consoleOperations } from "../../functions/shared/console-openapi.js";
import { FunctionTimeouts } from "../../functions/shared/function-timeouts.js";
import type { FunctionLog } from "./function-logs.js";
import type { GatewayHandler, GatewayRoute } from "./gateway.js";
import { invoker, type LocalFunction, setLocalLambdaEnvironment } from "./lambda-runtime.js";

type FunctionModule = {
  handler(event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyStructuredResultV2>;
  shutdown(): Promise<void>;
};

export interface LoadedFunction {
  routes: GatewayRoute[];
  shutdown(): Promise<void>;
}

/**
 * Loads a function's handler module exactly as Lambda would. The module reads its environment when it is
 * first imported, so the environment is put in place first: the Lambda and Powertools settings where the user
 * has not set them, then `env` (backends' endpoints and names, test settings). Each request the gateway hands
 * the handler is one invocation of `fn`, writing to `logs`.
 */
async function loadFunction(
  fn: LocalFunction,
  importModule: () => Promise<unknown>,
  env: Record<string, string>,
  logs: FunctionLog,
): Promise<{ handler: GatewayHandler; shutdown(): Promise<void> }> {
  setLocalLambdaEnvironment(logs);
  Object.assign(process.env, env);
  const loaded = (await importModule()) as FunctionModule;
  // Given an HTTP API event, a handler answers in the HTTP API's result shape.
  return { handler: invoker(fn, logs, loaded.handler), shutdown: loaded.shutdown };
}

/** The agent API and the C2 routes the agent domain serves, as the CDK app declares them. */
export async function loadAgentApi(env: Record<string, string>, logs: FunctionLog): Promise<LoadedFunction> {
  const { handler, shutdown } = await loadFunction(
    { name: "agent-api", timeoutSeconds: FunctionTimeouts.agentApi },
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
