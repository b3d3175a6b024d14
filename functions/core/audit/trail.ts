import type { Principal } from "../identity/principal.js";
import { dropUndefined } from "../json.js";
import type { AuditRecord } from "./model.js";
import type { AuditLog } from "./ports.js";
import { type AuditedExchange, summaryOf } from "./summaries.js";

/** Longest path parameter or user agent kept: the gateway takes URLs and headers far longer than any id. */
const MAX_TEXT = 512;

/** A console request as its handler saw it through: whoever the token named, whatever the answer was. */
export interface AuditedRequest {
  principal: Principal;
  operation: { operationId: string; method: string; path: string };
  /** As the gateway matched them, checked or not. */
  pathParameters: Record<string, string | undefined> | undefined;
  /** What the request carried once parsed against the document; absent when it was refused before that. */
  exchange?: AuditedExchange;
  status: number;
  errorCode?: string;
  requestId: string;
  at: number;
  sourceIp?: string;
  userAgent?: string;
}

const bounded = (text: string | undefined) =>
  text === undefined || text === "" ? undefined : text.slice(0, MAX_TEXT);

export function auditRecordOf(request: AuditedRequest): AuditRecord {
  const { principal, operation, exchange } = request;
  const target = Object.fromEntries(
    Object.entries(request.pathParameters ?? {}).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, value.slice(0, MAX_TEXT)]],
    ),
  );
  return dropUndefined<AuditRecord>({
    tenant: principal.tenant,
    at: request.at,
    requestId: request.requestId,
    actor: {
      subject: principal.subject,
      role: principal.role,
      ...(principal.classes && { classes: [...principal.classes] }),
    },
    operationId: operation.operationId,
    method: operation.method,
    route: operation.path,
    target,
    status: request.status,
    errorCode: request.errorCode,
    sourceIp: bounded(request.sourceIp),
    userAgent: bounded(request.userAgent),
    summary: exchange && summaryOf(operation.operationId, exchange),
  });
}

export type AuditOutcome =
  | { written: "yes"; record: AuditRecord }
  | { written: "no"; record: AuditRecord; error: unknown };

/**
 * Keeps one record of a request the caller found audited (see isAudited). The change, if any, is made by then:
 * a record that cannot be written is answered as such, for the caller to report, and never undoes or fails it.
 */
export async function recordAudit(log: AuditLog, request: AuditedRequest): Promise<AuditOutcome> {
  const record = auditRecordOf(request);
  try {
    await log.add(record);
    return { written: "yes", record };
  } catch (error) {
    return { written: "no", record, error };
  }
}
