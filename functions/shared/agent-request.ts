import { STATUS_CODES } from "node:http";
import type {
  ALBEvent,
  ALBResult,
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
} from "aws-lambda";
import { certificateIdentity } from "../core/identity/certificate-identity.js";

/**
 * One agent request as the agent API reads it, whichever door it came through: the Lambda function's (an API
 * Gateway HTTP API event, or a load balancer's) or the agent service's (a request to its HTTP server).
 */
export interface AgentRequest {
  method: string;
  /** Without the query, still percent-encoded. */
  path: string;
  /** By lower-case name; a header sent more than once, its values joined with commas. */
  headers: Record<string, string | undefined>;
  /** The bytes as sent, still gzipped if they were. */
  body: Buffer;
  /** The certificate the ingress verified, if the client presented one. */
  clientCertificate?: ClientCertificate;
}

/** A client certificate as the ingress reported it, with its PEM where the ingress passed it. */
export interface ClientCertificate {
  subjectDN: string;
  serialNumber: string;
  issuerDN?: string;
  pem?: string;
}

/** A body sent as it is read, never held whole: an asset's bytes as they come from the bucket. */
export interface StreamedBody {
  /** In bytes: the response's Content-Length. */
  length: number;
  stream: ReadableStream<Uint8Array>;
}

/** The agent API's answer: a text body (JSON, a flow) as text, any other as its bytes or as a stream of them. */
export interface AgentResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string | Buffer | StreamedBody;
}

export const isStreamedBody = (body: AgentResponse["body"]): body is StreamedBody =>
  typeof body === "object" && !Buffer.isBuffer(body);

/**
 * How the door a request came through carries answers. A door whose answer is one buffered body (a Lambda
 * invocation's result) gives `bufferedBodyMaxBytes`: content that would stream is read whole up to it and refused
 * above it. A door that streams (the agent service, the local gateway's streamed routes) gives none.
 */
export interface AgentDoor {
  bufferedBodyMaxBytes?: number;
}

/**
 * The most a binary body the agent-api function answers with may hold: an invocation's response carries 6 MB,
 * and the body goes in it base64-encoded (4 MiB are 5.6 MB so), beside the status and headers.
 */
export const FUNCTION_RESPONSE_BODY_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The agent API: answers one request, its change saved by `deadline` (epoch milliseconds) however slowly the
 * stream takes its events, in the shape its door carries.
 */
export type AgentApp = (request: AgentRequest, deadline: number, door?: AgentDoor) => Promise<AgentResponse>;

export type AgentEvent = APIGatewayProxyEventV2 | ALBEvent;

const isAlbEvent = (event: AgentEvent): event is ALBEvent => "elb" in (event.requestContext ?? {});

/** The request of a Lambda event: API Gateway's (payload 2.0) or a load balancer's. */
export function agentRequestOf(event: AgentEvent): AgentRequest {
  return isAlbEvent(event) ? fromAlb(event) : fromHttpApi(event);
}

const bodyOf = (event: { body?: string | null; isBase64Encoded: boolean }): Buffer =>
  Buffer.from(event.body ?? "", event.isBase64Encoded ? "base64" : "utf8");

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
    body: bodyOf(event),
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
  return {
    method: event.httpMethod,
    path: event.path,
    headers,
    body: bodyOf(event),
    clientCertificate: loadBalancerClientCertificate(headers),
  };
}

/**
 * The certificate an Application Load Balancer in mutual TLS verify mode verified, from the
 * `x-amzn-mtls-clientcert-*` headers it adds to the request (to a Lambda target's event, or to a request to the
 * agent service).
 */
export function loadBalancerClientCertificate(
  headers: Record<string, string | undefined>,
): AgentRequest["clientCertificate"] {
  const subject = headers["x-amzn-mtls-clientcert-subject"];
  const serialNumber = headers["x-amzn-mtls-clientcert-serial-number"];
  if (!subject || !serialNumber) return undefined;
  return clientCertificateOf(albClientCertificatePem(headers[ALB_CLIENT_CERTIFICATE_HEADER]), {
    subjectDN: subject,
    serialNumber,
    issuerDN: headers["x-amzn-mtls-clientcert-issuer"],
  });
}

/**
 * The header in which an Application Load Balancer in mutual TLS verify mode passes the client certificate it
 * verified, as URL-encoded PEM (beside it, its subject, issuer, serial number and validity).
 */
const ALB_CLIENT_CERTIFICATE_HEADER = "x-amzn-mtls-clientcert-leaf";

/** The PEM of the verified certificate, from the value of ALB_CLIENT_CERTIFICATE_HEADER. */
const albClientCertificatePem = (headerValue: string | undefined): string | undefined =>
  headerValue ? decodeURIComponent(headerValue) : undefined;

/**
 * Serial and issuer as the certificate itself states them (the serial in hex, the issuer as Beacon spells
 * names), when the ingress passed the certificate; how each ingress spells them in its own fields is not
 * something to depend on. The subject stays as the ingress reports it, which both report alike.
 */
export function clientCertificateOf(
  certificatePem: string | undefined,
  reported: { subjectDN: string; serialNumber: string; issuerDN?: string },
): ClientCertificate {
  const certificate = certificatePem ? certificateIdentity(certificatePem) : undefined;
  const issuerDN = certificate?.issuerDN ?? reported.issuerDN;
  return {
    subjectDN: reported.subjectDN,
    serialNumber: certificate?.serialNumber ?? reported.serialNumber,
    ...(issuerDN === undefined ? {} : { issuerDN }),
    ...(certificate && certificatePem ? { pem: certificatePem } : {}),
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

/** A response as the Lambda event's sender takes it: API Gateway's payload 2.0 result, or a load balancer's. */
export function agentResult(
  event: AgentEvent,
  response: AgentResponse,
): APIGatewayProxyStructuredResultV2 | ALBResult {
  if (isStreamedBody(response.body))
    throw new Error("a Lambda invocation answers with one body: serve it with bufferedBodyMaxBytes");
  // Lambda's proxy integrations carry a binary body base64-encoded.
  const isBase64Encoded = typeof response.body !== "string";
  const body = typeof response.body === "string" ? response.body : response.body.toString("base64");
  if (!isAlbEvent(event))
    return { statusCode: response.statusCode, headers: response.headers, body, isBase64Encoded };
  const result: ALBResult = {
    statusCode: response.statusCode,
    statusDescription: `${response.statusCode} ${STATUS_CODES[response.statusCode] ?? ""}`.trim(),
    isBase64Encoded,
    body,
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
