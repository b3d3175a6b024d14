import { gzipSync } from "node:zlib";
import type { FlowCatalog, FlowContent, FlowVersionRecord, NewFlowVersion } from "../../core/flows/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { pageOf } from "./paging.js";

export class MemoryFlowCatalog implements FlowCatalog {
  readonly versions = new Map<string, FlowVersionRecord>();
  readonly contents = new Map<string, FlowContent>();

  /** The number each class's last version took, by tenant and class. */
  readonly numbered = new Map<string, number>();

  /**
   * As the table: content once per tenant and hash, then the class's version with the class's next number,
   * each kept as first written.
   */
  async add(tenant: string, version: NewFlowVersion, bytes: Uint8Array) {
    const contentKey = `${tenant}/${version.hash}`;
    if (!this.contents.has(contentKey)) {
      this.contents.set(contentKey, {
        hash: version.hash,
        contentType: version.contentType,
        bytes: structuredClone(bytes),
      });
    }
    const key = `${tenant}/${version.className}/${version.hash}`;
    const existing = this.versions.get(key);
    if (existing) return { record: structuredClone(existing), created: false };
    const classKey = `${tenant}/${version.className}`;
    const number = (this.numbered.get(classKey) ?? 0) + 1;
    this.numbered.set(classKey, number);
    const record = { ...structuredClone(version), gzipBytes: gzipSync(bytes).length, version: number };
    this.versions.set(key, record);
    return { record: structuredClone(record), created: true };
  }

  async list(tenant: string, className: string, request: PageRequest) {
    const entries = [...this.versions.entries()]
      .filter(([key, record]) => key === `${tenant}/${className}/${record.hash}`)
      .map(([, record]) => [record.hash, record] as [string, FlowVersionRecord]);
    return pageOf(entries, request);
  }

  async get(tenant: string, className: string, hash: string) {
    const record = this.versions.get(`${tenant}/${className}/${hash}`);
    return record && structuredClone(record);
  }

  async setLabel(tenant: string, className: string, hash: string, label: string | undefined) {
    const record = this.versions.get(`${tenant}/${className}/${hash}`);
    if (!record) return undefined;
    if (label === undefined) delete record.label;
    else record.label = label;
    return structuredClone(record);
  }

  async read(tenant: string, hash: string) {
    const content = this.contents.get(`${tenant}/${hash}`);
    return content && structuredClone(content);
  }
}
