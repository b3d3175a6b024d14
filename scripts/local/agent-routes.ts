import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { GatewayRoute } from "./gateway.js";

type AgentApiModule = {
  handler(event: APIGatewayProxyEventV2): Promise<unknown>;
  shutdown(): Promise<void>;
};

/**
 * What the CDK function construct sets on AWS, with local values. Metrics stay off by default: their
 * EMF lines are for CloudWatch and would bury the log on a terminal.
 */
const LOCAL_POWERTOOLS_DEFAULTS = {
  POWERTOOLS_SERVICE_NAME: "agent-api-local",
  POWERTOOLS_METRICS_NAMESPACE: "Beacon",
  POWERTOOLS_METRICS_DISABLED: "true",
  POWERTOOLS_LOG_LEVEL: "INFO",
};

/**
 * Loads the agent API exactly as Lambda would. The module reads its environment when it is first
 * imported, so the environment is put in place first: the Powertools defaults where the user has not
 * set them, then `env` (backends' endpoints and names, test settings).
 */
export async function loadAgentApi(
  env: Record<string, string>,
): Promise<{ routes: GatewayRoute[]; shutdown(): Promise<void> }> {
  for (const [name, value] of Object.entries(LOCAL_POWERTOOLS_DEFAULTS)) process.env[name] ??= value;
  Object.assign(process.env, env);
  const agentApi = (await import("../../functions/agent-api/handler.js")) as AgentApiModule;
  // Given an HTTP API event, the handler answers in the HTTP API's result shape.
  const handler = (event: APIGatewayProxyEventV2) =>
    agentApi.handler(event) as Promise<APIGatewayProxyStructuredResultV2>;
  return {
    routes: [
      { method: "POST", path: "/c2/api/heartbeat", handler },
      { method: "POST", path: "/c2/api/acknowledge", handler },
    ],
    shutdown: agentApi.shutdown,
  };
}
