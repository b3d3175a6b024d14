import { expiryKeyOf } from "../../core/identity/certificates.js";
import type { CertificateRecord, CertificateStore, RevocationReason } from "../../core/identity/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { ofTenant, pageOf } from "./paging.js";

export class MemoryCertificateStore implements CertificateStore {
  readonly records = new Map<string, CertificateRecord>();
  readonly revocationList = new Map<string, number>();

  async add(record: CertificateRecord) {
    const key = `${record.tenant}/${record.serial}`;
    if (this.records.has(key)) return false;
    this.records.set(key, structuredClone(record));
    return true;
  }

  async list(tenant: string, request: PageRequest) {
    return pageOf(
      ofTenant(this.records, tenant, (record) => record.serial),
      request,
    );
  }

  async get(tenant: string, serial: string) {
    const record = this.records.get(`${tenant}/${serial}`);
    return record && structuredClone(record);
  }

  /** By serial, as the tenant's certificates are kept. */
  async ofAgent(tenant: string, agentId: string) {
    return [...this.records.values()]
      .filter((record) => record.tenant === tenant && record.kind === "agent" && record.agentId === agentId)
      .sort((a, b) => (a.serial < b.serial ? -1 : 1))
      .map((record) => structuredClone(record));
  }

  async agentCertificates(tenant: string, agentId: string) {
    return this.ofAgent(tenant, agentId);
  }

  async expiring(tenant: string, window: { from: number; until: number }, request: PageRequest) {
    const live = [...this.records.values()].filter(
      (record) =>
        record.tenant === tenant &&
        record.revokedAt === undefined &&
        record.notAfter >= window.from &&
        record.notAfter <= window.until,
    );
    return pageOf(
      live.map((record) => [expiryKeyOf(record), record]),
      request,
    );
  }

  async dueForExpiryNotice(until: number, limit: number) {
    return [...this.records.values()]
      .filter(
        (record) =>
          record.revokedAt === undefined &&
          record.expiryAnnouncedAt === undefined &&
          record.notAfter <= until,
      )
      .sort((first, second) => first.notAfter - second.notAfter)
      .slice(0, limit)
      .map((record) => structuredClone(record));
  }

  async markExpiryAnnounced(tenant: string, serial: string, at: number) {
    const record = this.records.get(`${tenant}/${serial}`);
    if (!record || record.revokedAt !== undefined || record.expiryAnnouncedAt !== undefined) return false;
    record.expiryAnnouncedAt = at;
    return true;
  }

  async revoke(tenant: string, serial: string, now: number, reason: RevocationReason) {
    const record = this.records.get(`${tenant}/${serial}`);
    if (!record) return undefined;
    if (record.revokedAt === undefined) {
      record.revokedAt = now;
      record.revocationReason = reason;
    }
    this.revocationList.set(`${tenant}/${serial}`, record.revokedAt);
    return structuredClone(record);
  }
}
