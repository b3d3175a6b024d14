import { gzipSync } from "node:zlib";
import type { FlowCatalog, FlowContent, FlowVersionRecord } from "../../core/flows/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { pageOf } from "./paging.js";

export class MemoryFlowCatalog implements FlowCatalog {
  readonly versions = new Map<string, FlowVersionRecord>();
  readonly contents = new Map<string, FlowContent>();

  /** As the table: content once per tenant and hash, then the class's version, each kept as first written. */
  async add(tenant: string, version: Omit<FlowVersionRecord, "gzipBytes">, bytes: Uint8Array) {
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
    const record = { ...structuredClone(version), gzipBytes: gzipSync(bytes).length };
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

  async read(tenant: string, hash: string) {
    const content = this.contents.get(`${tenant}/${hash}`);
    return content && structuredClone(content);
  }
}
