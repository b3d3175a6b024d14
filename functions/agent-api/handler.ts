/**
 * The agent API's door on Lambda: an API Gateway HTTP API event, or a load balancer's, is one agent request, given
 * the invocation's remaining time as its deadline and the invocation's context for its log records.
 */
import type { Context } from "aws-lambda";
import { type AgentEvent, agentRequestOf, agentResult } from "../shared/agent-request.js";
import { logger, serveAgentRequest } from "./app.js";

export async function handler(event: AgentEvent, context: Context) {
  logger.addContext(context);
  const deadline = Date.now() + context.getRemainingTimeInMillis();
  return agentResult(event, await serveAgentRequest(agentRequestOf(event), deadline));
}

export { shutdown } from "./app.js";
