/**
 * The agent API's door on the agent service: each request to the service's HTTP server, as the load balancer
 * forwards it (the client certificate it verified in `x-amzn-mtls-clientcert-*` headers), is one agent request,
 * given the service's request budget as its deadline, in a scope of its own.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "@aws-lambda-powertools/logger";
import {
  type AgentApp,
  type AgentRequest,
  type AgentResponse,
  ALB_CLIENT_CERTIFICATE_HEADER,
  albClientCertificatePem,
  loadBalancerClientCertificate,
} from "../shared/agent-request.js";
import { inInvocationScope } from "../shared/invocations.js";
import { readBody } from "../shared/request-body.js";
import { pathOf, type RequestHandler } from "./server.js";

export interface AgentAppServing {
  /** A body above this is refused with 413 before the agent API sees it. */
  readonly maxBodyBytes: number;
  /** The time each request is given from when its body is in: the agent API's deadline for it. */
  readonly requestBudgetMs: number;
  /** The agent API's logger, whose records of a request carry its id and `name`, as Lambda's invocations' do. */
  readonly logger: Logger;
  readonly name: string;
}

/** Serves the agent API's requests; a body above `maxBodyBytes` is refused with 413, its rest never read. */
export function agentAppHandler(app: AgentApp, serving: AgentAppServing): RequestHandler {
  return async (request, response) => {
    const declaredLength = Number(request.headers["content-length"] ?? 0);
    const body =
      declaredLength > serving.maxBodyBytes ? undefined : await readBody(request, serving.maxBodyBytes);
    if (body === undefined) {
      // The rest of the body is never read: the connection closes after the answer.
      response.writeHead(413, { "content-type": "application/json", connection: "close" });
      response.end(JSON.stringify({ message: "Request Entity Too Large" }));
      return;
    }
    const requestId = randomUUID();
    const answer = await inInvocationScope(requestId, () => {
      serving.logger.appendKeys({ function_name: serving.name, function_request_id: requestId });
      return app(agentRequestOf(request, body), Date.now() + serving.requestBudgetMs);
    });
    writeResponse(response, answer);
  };
}

/** The PEM of the client certificate the load balancer verified, for handlers that read requests themselves. */
export function clientCertificatePemOf(request: IncomingMessage): string | undefined {
  return albClientCertificatePem(request.headersDistinct[ALB_CLIENT_CERTIFICATE_HEADER]?.[0]);
}

function agentRequestOf(request: IncomingMessage, body: Buffer): AgentRequest {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(request.headersDistinct))
    if (values) headers[name] = values.join(",");
  return {
    method: request.method ?? "GET",
    path: pathOf(request),
    headers,
    body,
    clientCertificate: loadBalancerClientCertificate(headers),
  };
}

function writeResponse(response: ServerResponse, answer: AgentResponse): void {
  response.statusCode = answer.statusCode;
  for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
  response.end(answer.body);
}
