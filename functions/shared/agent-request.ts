import { X509Certificate } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type {
  ALBEvent,
  ALBResult,
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
} from "aws-lambda";
import type { JsonResponse } from "./http.js";

/**
 * One agent request, whichever ingress delivered it: API Gateway HTTP API (payload 2.0), which hands
 * the verified certificate over in requestContext, or an Application Load Balancer in mutual TLS
 * verify mode, which hands it over in X-Amzn-Mtls-Clientcert-* headers.
 */
export interface AgentRequest {
  method: string;
  path: string;
  headers: Record<string, string | undefined>;
  body: string | undefined;
  isBase64Encoded: boolean;
  clientCertificate?: { subjectDN: string; serialNumber: string };
}

export type AgentEvent = APIGatewayProxyEventV2 | ALBEvent;

const isAlbEvent = (event: AgentEvent): event is ALBEvent => "elb" in (event.requestContext ?? {});

export function agentRequestOf(event: AgentEvent): AgentRequest {
  return isAlbEvent(event) ? fromAlb(event) : fromHttpApi(event);
}

function fromHttpApi(event: APIGatewayProxyEventV2): AgentRequest {
  // The SDK's type leaves authentication out of payload 2.0, but API Gateway sends it with mutual TLS.
  const context = event.requestContext as APIGatewayProxyEventV2["requestContext"] & {
    authentication?: { clientCert?: { subjectDN?: string; serialNumber?: string; clientCertPem?: string } };
  };
  const clientCert = context.authentication?.clientCert;
  return {
    method: context.http.method,
    path: event.rawPath,
    headers: event.headers ?? {},
    body: event.body,
    isBase64Encoded: event.isBase64Encoded,
    clientCertificate:
      clientCert?.subjectDN && clientCert.serialNumber
        ? {
            subjectDN: clientCert.subjectDN,
            serialNumber: serialOf(clientCert.clientCertPem, clientCert.serialNumber),
          }
        : undefined,
  };
}

function fromAlb(event: ALBEvent): AgentRequest {
  const headers = lowerCaseHeaders(event);
  const subject = headers["x-amzn-mtls-clientcert-subject"];
  const leaf = headers["x-amzn-mtls-clientcert-leaf"];
  const reportedSerial = headers["x-amzn-mtls-clientcert-serial-number"];
  const serialNumber = reportedSerial && serialOf(leaf && decodeURIComponent(leaf), reportedSerial);
  return {
    method: event.httpMethod,
    path: event.path,
    headers,
    body: event.body ?? undefined,
    isBase64Encoded: event.isBase64Encoded,
    clientCertificate: subject && serialNumber ? { subjectDN: subject, serialNumber } : undefined,
  };
}

/**
 * The serial as the certificate itself states it (hex), when the ingress passed the certificate;
 * how each ingress spells the serial in its own field is not something to depend on.
 */
function serialOf(certificatePem: string | undefined, reported: string): string {
  if (!certificatePem) return reported;
  try {
    return new X509Certificate(certificatePem).serialNumber;
  } catch {
    return reported;
  }
}

/** ALB sends either single-value or multi-value headers, depending on the target group setting. */
function lowerCaseHeaders(event: ALBEvent): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) {
    headers[name.toLowerCase()] = values?.join(",");
  }
  return headers;
}

export function agentResult(
  event: AgentEvent,
  response: JsonResponse,
): APIGatewayProxyStructuredResultV2 | ALBResult {
  if (!isAlbEvent(event)) return { ...response, isBase64Encoded: false };
  const result: ALBResult = {
    statusCode: response.statusCode,
    statusDescription: `${response.statusCode} ${STATUS_CODES[response.statusCode] ?? ""}`.trim(),
    isBase64Encoded: false,
    body: response.body,
  };
  if (event.multiValueHeaders) {
    result.multiValueHeaders = Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name, [value]]),
    );
  } else {
    result.headers = response.headers;
  }
  return result;
}
