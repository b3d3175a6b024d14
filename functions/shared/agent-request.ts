import { STATUS_CODES } from "node:http";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { Logger } from "@aws-lambda-powertools/logger";
import type {
  ALBEvent,
  ALBResult,
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
} from "aws-lambda";
import { type AgentRoute, agentRouteUrl } from "../core/c2/routes.js";
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
 * Sends a streamed body as it is read, at the pace `destination` takes it (the pipeline's backpressure), so that a
 * download of any size holds a few chunks at a time.
 */
export async function pipeStreamedBody(
  body: StreamedBody,
  destination: Writable,
  logger: Logger,
): Promise<void> {
  try {
    await pipeline(Readable.fromWeb(body.stream as NodeReadableStream<Uint8Array>), destination);
  } catch (error) {
    // The agent went away, or the bucket's stream broke: the response ends short of its Content-Length, which
    // the agent takes as a failed download.
    logger.warn("download ended before its last byte", { error: error as Error });
  }
}

/**
 * The agent API: answers one request, its change saved by `deadline` (epoch milliseconds) however slowly the
 * stream takes its events, in the shape its door carries.
 */
export type AgentApp = (request: AgentRequest, deadline: number) => Promise<AgentResponse>;

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
  return {
    method: context.http.method,
    path: event.rawPath,
    headers: event.headers ?? {},
    body: bodyOf(event),
    clientCertificate: apiGatewayClientCertificate(context.authentication?.clientCert),
  };
}

/**
 * The request of an API Gateway REST API event (payload 1.0) for `route`, which the REST API serves below an API
 * mapping of the agent domain: its resources are the route's path below the mapping key, so the route's own path
 * is rebuilt from the event's path parameters, whether or not the event's path kept the mapping's base path.
 */
export function restApiAgentRequest(event: APIGatewayProxyEvent, route: AgentRoute): AgentRequest {
  return {
    method: event.httpMethod,
    path: agentRouteUrl("", route, definedValues(event.pathParameters)),
    headers: lowerCaseHeaders(event),
    body: bodyOf(event),
    clientCertificate: apiGatewayClientCertificate(event.requestContext.identity.clientCert),
  };
}

const definedValues = (values: Record<string, string | undefined> | null): Record<string, string> =>
  Object.fromEntries(
    Object.entries(values ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

/**
 * The certificate API Gateway verified on its custom domain's mutual TLS, as it reports it: in the HTTP API's
 * `requestContext.authentication.clientCert`, in the REST API's `requestContext.identity.clientCert`.
 */
function apiGatewayClientCertificate(
  clientCert: {
    subjectDN?: string;
    issuerDN?: string;
    serialNumber?: string;
    clientCertPem?: string;
  } | null = null,
): ClientCertificate | undefined {
  if (!clientCert?.subjectDN || !clientCert.serialNumber) return undefined;
  return clientCertificateOf(clientCert.clientCertPem, {
    subjectDN: clientCert.subjectDN,
    serialNumber: clientCert.serialNumber,
    issuerDN: clientCert.issuerDN,
  });
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

/**
 * ALB sends either single-value or multi-value headers, depending on the target group setting; a REST API sends
 * both, as the client spelled their names.
 */
function lowerCaseHeaders(
  event: Pick<ALBEvent | APIGatewayProxyEvent, "headers" | "multiValueHeaders">,
): Record<string, string | undefined> {
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
    throw new Error(
      "a Lambda invocation answers with one body: streamed content goes through a door that streams",
    );
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
