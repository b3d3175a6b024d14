import type { Role } from "../identity/principal.js";
import { timeOrderedKey } from "../paging.js";

/** How long audit records are kept unless the deployment says otherwise: over a year, for yearly reviews. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

/**
 * One console request that asked for a change, whatever became of it: who asked (from the verified token), in
 * which tenant, for which operation of the console's document and on what, how it was answered, and when. It
 * holds no request body; `summary` holds only what the operation's entry in AUDIT_SUMMARIES picks.
 */
export interface AuditRecord {
  tenant: string;
  /** When the request arrived, epoch ms. */
  at: number;
  /** API Gateway's id of the request, which its access log and the function's log lines carry too. */
  requestId: string;
  /** Who asked, with the classes the token limited the role to, if it did. */
  actor: { subject: string; role: Role; classes?: string[] };
  /** The console document's operationId, method and path template. */
  operationId: string;
  method: string;
  route: string;
  /** The request's path parameters: what it acted on. */
  target: Record<string, string>;
  /** The HTTP status it was answered with, refusals included. */
  status: number;
  /** Beacon's error code when it was refused or failed. */
  errorCode?: string;
  sourceIp?: string;
  userAgent?: string;
  summary?: Record<string, unknown>;
}

/**
 * Reads that are audited all the same: what agents answered a DESCRIBE holds their configuration values and
 * components' state, and a debug bundle their logs and configuration, so who saw them is kept as who changed
 * things is.
 */
const AUDITED_READS: ReadonlySet<string> = new Set(["getOperationResult", "downloadDebugBundle"]);

/**
 * Requests that change nothing are not audited (every method but GET may change something), except the reads
 * of what agents disclosed.
 */
export const isAudited = (operation: { method: string; operationId: string }): boolean =>
  operation.method.toUpperCase() !== "GET" || AUDITED_READS.has(operation.operationId);

/** A tenant's audit trail is ordered by time, then request id. */
export const auditKey = (record: Pick<AuditRecord, "at" | "requestId">): string =>
  timeOrderedKey(record.at, record.requestId);
