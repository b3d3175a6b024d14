/**
 * The agent API's door on Lambda: an API Gateway HTTP API event, or a load balancer's, is one agent request, given
 * the invocation's remaining time as its deadline and the invocation's context for its log records.
 */
import type { Context } from "aws-lambda";
import {
  type AgentEvent,
  agentRequestOf,
  agentResult,
  FUNCTION_RESPONSE_BODY_MAX_BYTES,
} from "../shared/agent-request.js";
import { logger, serveAgentRequest } from "./app.js";

export async function handler(event: AgentEvent, context: Context) {
  logger.addContext(context);
  const deadline = Date.now() + context.getRemainingTimeInMillis();
  // An invocation answers with one body: assets are read whole up to what it carries.
  const door = { bufferedBodyMaxBytes: FUNCTION_RESPONSE_BODY_MAX_BYTES };
  return agentResult(event, await serveAgentRequest(agentRequestOf(event), deadline, door));
}

export { shutdown } from "./app.js";
