/**
 * The agent API's door on the agent service: each request to the service's HTTP server, as the load balancer
 * forwards it (the client certificate it verified in `x-amzn-mtls-clientcert-*` headers) or as the service's own
 * mutual TLS admitted it (the connection's peer certificate), is one agent request, given the service's request
 * budget as its deadline, in a scope of its own.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { TLSSocket } from "node:tls";
import type { Logger } from "@aws-lambda-powertools/logger";
import { distinguishedName } from "../core/identity/distinguished-name.js";
import {
  type AgentApp,
  type AgentRequest,
  type AgentResponse,
  type ClientCertificate,
  clientCertificateOf,
  isStreamedBody,
  loadBalancerClientCertificate,
  pipeStreamedBody,
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

/**
 * Serves the agent API's requests; a body above `maxBodyBytes` is refused with 413, its rest never read. The
 * client certificate is the one a door that verified it itself gives (the local gateway's TLS peer), or else the
 * one verifiedClientCertificate finds.
 */
export function agentAppHandler(
  app: AgentApp,
  serving: AgentAppServing,
): (...args: [...Parameters<RequestHandler>, certificate?: ClientCertificate]) => Promise<void> {
  return async (request, response, certificate) => {
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
      return app(agentRequestOf(request, body, certificate), Date.now() + serving.requestBudgetMs);
    });
    await writeResponse(response, answer, serving.logger);
  };
}

/** The PEM of the client certificate verified, for handlers that read requests themselves. */
export function clientCertificatePemOf(request: IncomingMessage): string | undefined {
  return verifiedClientCertificate(request, headersOf(request))?.pem;
}

/**
 * The client certificate verified for a request: the connection's peer certificate where the service terminated
 * mutual TLS itself, whose handshake admits no other, or the one the ALB's `x-amzn-mtls-clientcert-*` headers
 * carry. A client that reached the service's own TLS could write those headers itself: they are never read there.
 */
function verifiedClientCertificate(
  request: IncomingMessage,
  headers: Record<string, string | undefined>,
): ClientCertificate | undefined {
  return request.socket instanceof TLSSocket
    ? peerCertificateOf(request.socket)
    : loadBalancerClientCertificate(headers);
}

/** One reading per connection: a kept-alive agent presents its certificate once, in its handshake. */
const peerCertificates = new WeakMap<TLSSocket, ClientCertificate>();

function peerCertificateOf(socket: TLSSocket): ClientCertificate | undefined {
  let certificate = peerCertificates.get(socket);
  if (certificate === undefined) {
    const peer = socket.getPeerX509Certificate();
    if (peer === undefined) return undefined;
    certificate = clientCertificateOf(peer.toString(), {
      subjectDN: distinguishedName(peer.subject),
      serialNumber: peer.serialNumber,
      issuerDN: distinguishedName(peer.issuer),
    });
    peerCertificates.set(socket, certificate);
  }
  return certificate;
}

function agentRequestOf(
  request: IncomingMessage,
  body: Buffer,
  certificate: ClientCertificate | undefined,
): AgentRequest {
  const headers = headersOf(request);
  return {
    method: request.method ?? "GET",
    path: pathOf(request),
    headers,
    body,
    clientCertificate: certificate ?? verifiedClientCertificate(request, headers),
  };
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(request.headersDistinct))
    if (values) headers[name] = values.join(",");
  return headers;
}

/** Writes the answer; a streamed body goes out as it is read (pipeStreamedBody). */
async function writeResponse(response: ServerResponse, answer: AgentResponse, logger: Logger): Promise<void> {
  response.statusCode = answer.statusCode;
  for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
  const { body } = answer;
  if (!isStreamedBody(body)) {
    response.end(body);
    return;
  }
  response.setHeader("content-length", body.length);
  await pipeStreamedBody(body, response, logger);
}
