import type { IncomingMessage, ServerResponse } from "node:http";
import type { ALBEvent, ALBResult } from "aws-lambda";
import { ALB_CLIENT_CERTIFICATE_HEADER, albClientCertificatePem } from "../shared/agent-request.js";
import { readBody } from "../shared/request-body.js";
import type { RequestHandler } from "./server.js";

/** A handler module's handler as the load balancer invokes a Lambda target: one ALB event, one result. */
export type AlbHandler = (
  event: ALBEvent,
) => Promise<Pick<ALBResult, "statusCode" | "headers" | "body" | "isBase64Encoded">>;

/**
 * Serves requests with a handler written for the load balancer's Lambda target: each request becomes the event the
 * balancer would send (its headers, the `x-amzn-mtls-clientcert-*` ones included, as they came), and the handler's
 * result the response. A body above `maxBodyBytes` is refused with 413 before the handler sees it.
 */
export function albTarget(handler: AlbHandler, maxBodyBytes: number): RequestHandler {
  return async (request, response) => {
    const declaredLength = Number(request.headers["content-length"] ?? 0);
    const body = declaredLength > maxBodyBytes ? undefined : await readBody(request, maxBodyBytes);
    if (body === undefined) {
      // The rest of the body is never read: the connection closes after the answer.
      response.writeHead(413, { "content-type": "application/json", connection: "close" });
      response.end(JSON.stringify({ message: "Request Entity Too Large" }));
      return;
    }
    const result = await handler(albEventOf(request, body));
    writeResult(response, result);
  };
}

/** The PEM of the client certificate the load balancer verified, for handlers that read requests themselves. */
export function clientCertificatePemOf(request: IncomingMessage): string | undefined {
  return albClientCertificatePem(request.headersDistinct[ALB_CLIENT_CERTIFICATE_HEADER]?.[0]);
}

function albEventOf(request: IncomingMessage, body: Buffer): ALBEvent {
  const target = request.url ?? "/";
  const queryStart = target.indexOf("?");
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(request.headersDistinct))
    if (values) headers[name] = values.join(",");
  return {
    // The handler needs to know the balancer sent the event, not which target group it was.
    requestContext: { elb: { targetGroupArn: "" } },
    httpMethod: request.method ?? "GET",
    path: queryStart === -1 ? target : target.slice(0, queryStart),
    // The balancer passes the query string's parameters as they were sent, still encoded.
    queryStringParameters: Object.fromEntries(
      (queryStart === -1 ? "" : target.slice(queryStart + 1))
        .split("&")
        .filter(Boolean)
        .map((pair) => {
          const [name = "", value = ""] = pair.split("=");
          return [name, value];
        }),
    ),
    headers,
    // Base64 carries any body, text or not, exactly; the handler decodes either.
    body: body.toString("base64"),
    isBase64Encoded: body.length > 0,
  };
}

function writeResult(response: ServerResponse, result: Awaited<ReturnType<AlbHandler>>): void {
  response.statusCode = result.statusCode;
  for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, String(value));
  response.end(Buffer.from(result.body ?? "", result.isBase64Encoded ? "base64" : "utf8"));
}
