import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type {
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from "aws-lambda";
import { isAudited } from "../core/audit/model.js";
import { type AuditedRequest, recordAudit } from "../core/audit/trail.js";
import { isBeaconError } from "../core/errors.js";
import { type Principal, principalFromClaims, requireRole } from "../core/identity/principal.js";
import type { ConsoleResult } from "../core/result.js";
import { consoleApiConfig } from "../shared/config.js";
import { type ConsoleOperation, operationFor } from "../shared/console-openapi.js";
import { errorResponse, type JsonResponse, jsonResponse } from "../shared/http.js";
import { functionLogger, MetricNames, metrics, reportStreamFailure } from "../shared/observability.js";
import { composeConsoleApi } from "./composition.js";

const logger = functionLogger();
const config = consoleApiConfig();
const consoleApi = composeConsoleApi(config);
const limits = {
  maxInflatedBytes: config.maxBodyBytes,
  maxJsonDepth: config.maxJsonDepth,
  maxDocumentBytes: config.maxFlowBytes,
};

/**
 * The console API behind API Gateway's JWT authorizer, which has verified the token's signature, issuer,
 * audience and lifetime; the tenant and role come from its claims and from nowhere else.
 */
export async function handler(
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  context: Context,
): Promise<APIGatewayProxyStructuredResultV2> {
  logger.addContext(context);
  let response: JsonResponse;
  /** What the audit record of an audited request needs, once the token has named a tenant. */
  let audited: Omit<AuditedRequest, "status" | "errorCode"> | undefined;
  let errorCode: string | undefined;
  try {
    try {
      const operation = operationFor(event.routeKey);
      const principal = principalFromClaims(event.requestContext.authorizer?.jwt?.claims);
      logger.appendKeys({ tenant: principal.tenant, operation: operation.operationId });
      if (isAudited(operation)) audited = requestToAudit(event, principal, operation);
      requireRole(principal, operation.role);
      const input = await operation.parse(event, limits);
      if (audited) audited.exchange = { query: input.query, body: input.body };
      const route = consoleApi.routes[operation.operationId];
      if (!route) throw new Error(`No use case for ${operation.operationId}`);
      const result = await route(principal, input);
      response = await present(operation, result);
      if (audited?.exchange) audited.exchange.answer = result.body;
    } catch (error) {
      response = errorResponse(error);
      errorCode = isBeaconError(error) ? error.code : undefined;
      if (response.statusCode >= 500) logger.error("console request failed", { error: error as Error });
      else logger.warn("console request rejected", { status: response.statusCode, reason: response.body });
    }
    // A request that may change something, or read what agents disclosed, is kept in the audit trail; a tenant
    // answered one may store something. Remembered beside the record's write, not after it: the first change
    // of a tenant's day waits for no more.
    if (audited)
      await Promise.all([
        audit({ ...audited, status: response.statusCode, errorCode }),
        response.statusCode < 400 && rememberTenant(audited),
      ]);
  } finally {
    logger.resetKeys();
  }
  // Most console requests count nothing: metrics go out only when there are some.
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  // Console answers are per caller, and one of them carries a private key: nothing may keep them.
  return {
    ...response,
    headers: { ...response.headers, "cache-control": "no-store" },
    isBase64Encoded: response.isBase64Encoded ?? false,
  };
}

function requestToAudit(
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  principal: Principal,
  operation: ConsoleOperation,
): Omit<AuditedRequest, "status" | "errorCode"> {
  const { requestId, timeEpoch, http } = event.requestContext;
  return {
    principal,
    operation,
    pathParameters: event.pathParameters,
    requestId,
    at: timeEpoch,
    sourceIp: http.sourceIp,
    userAgent: http.userAgent,
  };
}

/**
 * The change is made and answered by now: an audit record that cannot be written (after the SDK's own
 * retries) must not turn it into an error the caller would retry. The record goes to the error log line
 * instead, from which it can be restored, and AuditWriteFailed raises the alarm.
 */
async function audit(request: AuditedRequest): Promise<void> {
  const outcome = await recordAudit(consoleApi.audit, request);
  if (outcome.written === "yes") return;
  metrics.addMetric(MetricNames.auditWriteFailed, MetricUnit.Count, 1);
  logger.error("audit record not written", { error: outcome.error as Error, auditRecord: outcome.record });
}

/**
 * A tenant whose operators changed something may store a flow or an asset before it has any agent: remembered
 * for the daily snapshots of what tenants store. Not remembered is logged, never the request's failure.
 */
async function rememberTenant(request: Omit<AuditedRequest, "status" | "errorCode">): Promise<void> {
  try {
    await consoleApi.noteTenant(request.principal.tenant);
  } catch (error) {
    logger.warn("tenant not remembered for the usage snapshots", { error: error as Error });
  }
}

/** The use case's answer, held to what the document promises before it leaves. */
async function present(operation: ConsoleOperation, result: ConsoleResult): Promise<JsonResponse> {
  if (result.cacheError !== undefined) {
    metrics.addMetric(MetricNames.cacheFallbacks, MetricUnit.Count, 1);
    logger.warn("cache unavailable; answered from DynamoDB", { error: String(result.cacheError) });
  }
  reportStreamFailure(logger, result.streamError, "events");
  const status = result.status ?? 200;
  // Assets go out as their bytes, which Lambda's proxy integration carries base64-encoded.
  if (result.body instanceof Uint8Array) {
    return {
      statusCode: status,
      headers: { "content-type": result.contentType ?? "application/octet-stream" },
      body: Buffer.from(result.body).toString("base64"),
      isBase64Encoded: true,
    };
  }
  // Raw manifests and flows go out exactly as stored, without being parsed again.
  if (typeof result.body === "string") {
    return {
      statusCode: status,
      headers: { "content-type": result.contentType ?? "application/json" },
      body: result.body,
    };
  }
  await operation.assertResponse(status, result.body);
  const response = jsonResponse(status, result.body);
  // A large download is a redirect to where its bytes are served, for a few minutes.
  if (result.location !== undefined) response.headers.location = result.location;
  return response;
}

/** Closes the container's connections; the local stack calls it on shutdown, Lambda never needs to. */
export const shutdown = (): Promise<void> => consoleApi.close();
