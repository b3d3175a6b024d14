import { type AuditRecord, auditKey } from "../../core/audit/model.js";
import type { AuditLog, AuditQuery } from "../../core/audit/ports.js";
import { timeKeyPrefix } from "../../core/paging.js";
import { pageOf } from "./paging.js";

/** Each tenant's records by key, read as the table's key query and filter read them. */
export class MemoryAuditLog implements AuditLog {
  readonly records = new Map<string, Map<string, AuditRecord>>();
  /** As a table that refuses writes. */
  failing = false;

  async add(record: AuditRecord) {
    if (this.failing) throw new Error("audit log unavailable");
    const trail = this.records.get(record.tenant) ?? new Map<string, AuditRecord>();
    trail.set(auditKey(record), structuredClone(record));
    this.records.set(record.tenant, trail);
  }

  async list(tenant: string, query: AuditQuery) {
    const first = timeKeyPrefix(query.from ?? 0);
    const entries = [...(this.records.get(tenant) ?? new Map<string, AuditRecord>()).entries()].filter(
      ([key]) => key >= first && (query.to === undefined || key < timeKeyPrefix(query.to)),
    );
    return pageOf(
      entries,
      { limit: query.limit, after: query.after, descending: true },
      (record) =>
        (query.actor === undefined || record.actor.subject === query.actor) &&
        (query.operationId === undefined || record.operationId === query.operationId),
    );
  }
}
