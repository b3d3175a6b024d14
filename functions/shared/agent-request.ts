import { STATUS_CODES } from "node:http";
import type {
  ALBEvent,
  ALBResult,
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
} from "aws-lambda";
import { certificateIdentity } from "../core/identity/certificate-identity.js";
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
  clientCertificate?: { subjectDN: string; serialNumber: string; issuerDN?: string };
}

export type AgentEvent = APIGatewayProxyEventV2 | ALBEvent;

const isAlbEvent = (event: AgentEvent): event is ALBEvent => "elb" in (event.requestContext ?? {});

export function agentRequestOf(event: AgentEvent): AgentRequest {
  return isAlbEvent(event) ? fromAlb(event) : fromHttpApi(event);
}

function fromHttpApi(event: APIGatewayProxyEventV2): AgentRequest {
  // The SDK's type leaves authentication out of payload 2.0, but API Gateway sends it with mutual TLS.
  const context = event.requestContext as APIGatewayProxyEventV2["requestContext"] & {
    authentication?: {
      clientCert?: { subjectDN?: string; issuerDN?: string; serialNumber?: string; clientCertPem?: string };
    };
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
        ? clientCertificateOf(clientCert.clientCertPem, {
            subjectDN: clientCert.subjectDN,
            serialNumber: clientCert.serialNumber,
            issuerDN: clientCert.issuerDN,
          })
        : undefined,
  };
}

function fromAlb(event: ALBEvent): AgentRequest {
  const headers = lowerCaseHeaders(event);
  const subject = headers["x-amzn-mtls-clientcert-subject"];
  const leaf = albClientCertificatePem(headers[ALB_CLIENT_CERTIFICATE_HEADER]);
  const serialNumber = headers["x-amzn-mtls-clientcert-serial-number"];
  return {
    method: event.httpMethod,
    path: event.path,
    headers,
    body: event.body ?? undefined,
    isBase64Encoded: event.isBase64Encoded,
    clientCertificate:
      subject && serialNumber
        ? clientCertificateOf(leaf, {
            subjectDN: subject,
            serialNumber,
            issuerDN: headers["x-amzn-mtls-clientcert-issuer"],
          })
        : undefined,
  };
}

/**
 * The header in which an Application Load Balancer in mutual TLS verify mode passes the client certificate it
 * verified, as URL-encoded PEM (beside it, its subject, issuer, serial number and validity).
 */
export const ALB_CLIENT_CERTIFICATE_HEADER = "x-amzn-mtls-clientcert-leaf";

/** The PEM of the verified certificate, from the value of ALB_CLIENT_CERTIFICATE_HEADER. */
export const albClientCertificatePem = (headerValue: string | undefined): string | undefined =>
  headerValue ? decodeURIComponent(headerValue) : undefined;

/**
 * Serial and issuer as the certificate itself states them (the serial in hex, the issuer as Beacon spells
 * names), when the ingress passed the certificate; how each ingress spells them in its own fields is not
 * something to depend on. The subject stays as the ingress reports it, which both report alike.
 */
function clientCertificateOf(
  certificatePem: string | undefined,
  reported: { subjectDN: string; serialNumber: string; issuerDN?: string },
): NonNullable<AgentRequest["clientCertificate"]> {
  const certificate = certificatePem ? certificateIdentity(certificatePem) : undefined;
  const issuerDN = certificate?.issuerDN ?? reported.issuerDN;
  return {
    subjectDN: reported.subjectDN,
    serialNumber: certificate?.serialNumber ?? reported.serialNumber,
    ...(issuerDN === undefined ? {} : { issuerDN }),
  };
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
  const isBase64Encoded = response.isBase64Encoded ?? false;
  if (!isAlbEvent(event)) return { ...response, isBase64Encoded };
  const result: ALBResult = {
    statusCode: response.statusCode,
    statusDescription: `${response.statusCode} ${STATUS_CODES[response.statusCode] ?? ""}`.trim(),
    isBase64Encoded,
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
