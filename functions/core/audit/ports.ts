import type { Page } from "../paging.js";
import type { AuditRecord } from "./model.js";

export interface AuditQuery {
  /** Records at or after this time, epoch ms; from the first when absent. */
  from?: number;
  /** Records before this time, epoch ms; up to the newest when absent. */
  to?: number;
  /** Only this actor's (the token's subject) and this operation's records, once read. */
  actor?: string;
  operationId?: string;
  limit: number;
  /** The key (auditKey) of the last record already returned; always within `from` and `to`. */
  after?: string;
}

/** A tenant's audit trail: records kept by time and request id, for the retention the deployment sets. */
export interface AuditLog {
  /** Keeps the record once, by its time and request id, however often it is added. */
  add(record: AuditRecord): Promise<void>;
  /**
   * The tenant's records within the query's times, newest first, a page of `limit` read then narrowed by
   * actor and operation, as a filter narrows a query's page: a page may hold fewer, and `last` goes on.
   */
  list(tenant: string, query: AuditQuery): Promise<Page<AuditRecord>>;
}
