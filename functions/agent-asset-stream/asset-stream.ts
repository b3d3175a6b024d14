/**
 * The agent API's door for asset downloads behind the REST API that streams (`agentIngress=api`): an API Gateway
 * REST API event (payload 1.0) for the asset route is one agent request, answered by the same agent app as every
 * other door, its asset's bytes piped to the invocation's response stream as the bucket gives them, never held
 * whole. Lambda's runtime opens the response (status and headers first); handler.ts gives its way to.
 */
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { logger, serveAgentRequest } from "../agent-api/app.js";
import { AgentRoutes } from "../core/c2/routes.js";
import { isStreamedBody, pipeStreamedBody, restApiAgentRequest } from "../shared/agent-request.js";

/** What API Gateway reads first of a streamed response, before its body. */
export interface HttpResponseMetadata {
  statusCode: number;
  headers: Record<string, string>;
}

/** Starts the HTTP response on the invocation's stream, as `awslambda.HttpResponseStream.from` does. */
export type HttpResponseOpener = (responseStream: Writable, metadata: HttpResponseMetadata) => Writable;

export type StreamingHandler = (
  event: APIGatewayProxyEvent,
  responseStream: Writable,
  context: Context,
) => Promise<void>;

/**
 * Answers one asset download on `responseStream`. Tenancy comes from the certificate API Gateway verified, as on
 * every door; a refusal (no certificate, another tenant's or no such asset) is the usual JSON error answer, sent
 * before any byte of content could be.
 */
export const assetStreamHandler =
  (openHttpResponse: HttpResponseOpener): StreamingHandler =>
  async (event, responseStream, context) => {
    logger.addContext(context);
    const deadline = Date.now() + context.getRemainingTimeInMillis();
    const answer = await serveAgentRequest(restApiAgentRequest(event, AgentRoutes.assetContent), deadline);
    const { body } = answer;
    if (!isStreamedBody(body)) {
      const response = openHttpResponse(responseStream, {
        statusCode: answer.statusCode,
        headers: answer.headers,
      });
      response.end(body);
      await finished(response);
      return;
    }
    const headers = { ...answer.headers, "content-length": String(body.length) };
    await pipeStreamedBody(
      body,
      openHttpResponse(responseStream, { statusCode: answer.statusCode, headers }),
      logger,
    );
  };
