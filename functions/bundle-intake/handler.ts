/**
 * The streaming intake of debug bundles (core/c2/routes.ts' debugBundle route), multipart/form-data with the
 * bundle in the part `file`, as TRANSFER DEBUG's agents send it. It reads the body as it arrives and streams the
 * part to S3, one part of the upload in memory at a time, counting its bytes (receive.ts): past
 * DEBUG_BUNDLE_MAX_BYTES it stops, aborts the upload and answers 413, so that nothing is stored. The parser is
 * busboy: it streams each part with backpressure and never holds a whole body, is what Node's HTTP frameworks
 * build on, and has no dependencies of its own. A Lambda behind API Gateway takes a 6 MB
 * invocation at most; this runs where a request's body may stream (the long-running agent service behind the
 * ALB, and the local gateway), which is what lets a bundle be as large as the incumbent's.
 */
import { X509Certificate } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { certificateEvidence } from "../adapters/x509/certificate-evidence.js";
import { DEBUG_BUNDLE_MAX_BYTES } from "../core/bundles/model.js";
import { matchAgentRoute, noAgentRoute } from "../core/c2/routes.js";
import { BeaconError } from "../core/errors.js";
import type { DistinguishedCertificate } from "../core/identity/ca-bindings.js";
import { distinguishedName } from "../core/identity/distinguished-name.js";
import { bundleIntakeConfig } from "../shared/config.js";
import { errorResponse, type JsonResponse, jsonResponse } from "../shared/http.js";
import { functionLogger } from "../shared/observability.js";
import { composeBundleIntake } from "./composition.js";
import { bundleOperationId, bundleReceipt, receiveDebugBundle } from "./receive.js";

const logger = functionLogger();

let composed: ReturnType<typeof composeBundleIntake> | undefined;
/** Built at the first upload, from the environment, and kept for the process's life. */
const intake = () => {
  composed ??= composeBundleIntake(bundleIntakeConfig());
  return composed.intake;
};

/**
 * Takes one upload and answers it: 201 with the bundle's size and expiry, or the refusal's status and code.
 * `clientCertificatePem` is the caller's verified certificate (the TLS peer's, or what the ALB forwarded in
 * X-Amzn-Mtls-Clientcert, URL-decoded).
 */
export async function handleDebugBundleUpload(
  request: IncomingMessage,
  response: ServerResponse,
  clientCertificatePem: string | undefined,
): Promise<void> {
  let reply: JsonResponse;
  try {
    const upload = {
      operationId: operationIdOf(request),
      certificate: certificateOf(clientCertificatePem),
      headers: request.headers,
      body: request,
    };
    const bundle = await receiveDebugBundle(intake(), upload, DEBUG_BUNDLE_MAX_BYTES);
    logger.info("debug bundle stored", {
      tenant: bundle.tenant,
      operationId: bundle.operationId,
      bytes: bundle.bytes,
    });
    reply = jsonResponse(201, bundleReceipt(bundle));
  } catch (error) {
    reply = errorResponse(error);
    if (reply.statusCode >= 500) logger.error("debug bundle upload failed", { error: error as Error });
    else logger.warn("debug bundle refused", { status: reply.statusCode, reason: reply.body });
  }
  answer(request, response, reply);
}

/** The operation id the path names, decoded; 404 for any other path. */
function operationIdOf(request: IncomingMessage): string {
  const method = request.method ?? "";
  const path = (request.url ?? "").split("?")[0] as string;
  const route = matchAgentRoute(method, path);
  if (route?.name !== "debugBundle") throw noAgentRoute(method, path);
  return bundleOperationId(route.params.operationId);
}

function certificateOf(pem: string | undefined): DistinguishedCertificate {
  if (!pem)
    throw new BeaconError("missing_client_certificate", "Agents authenticate with a client certificate");
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch {
    throw new BeaconError("invalid_client_certificate", "The client certificate cannot be read");
  }
  return {
    subjectDN: distinguishedName(certificate.subject),
    issuerDN: distinguishedName(certificate.issuer),
    serialNumber: certificate.serialNumber,
    evidence: certificateEvidence(pem),
  };
}

/**
 * Answers, and closes the connection when the body was not read to its end (a refusal before or while it
 * arrived): what the client still sends is never read.
 */
function answer(request: IncomingMessage, response: ServerResponse, reply: JsonResponse): void {
  if (response.headersSent || response.destroyed) return;
  const unread = !request.readableEnded;
  response.writeHead(reply.statusCode, { ...reply.headers, ...(unread ? { connection: "close" } : {}) });
  response.end(reply.body);
  if (unread) request.unpipe();
}

/** Closes the intake's connections; the local stack and the agent service call it on shutdown. */
export async function shutdown(): Promise<void> {
  await composed?.close();
  composed = undefined;
}
