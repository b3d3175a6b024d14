import type { ManifestCatalog, ManifestRecord } from "../../core/manifests/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { ofTenant, pageOf } from "./paging.js";

export class MemoryManifestCatalog implements ManifestCatalog {
  readonly manifests = new Map<string, { tenant: string; record: ManifestRecord; json: string }>();

  add(tenant: string, record: ManifestRecord, json: string) {
    this.manifests.set(`${tenant}/${record.manifestId}`, { tenant, record: structuredClone(record), json });
  }

  async list(tenant: string, request: PageRequest) {
    const page = pageOf(
      ofTenant(this.manifests, tenant, (entry) => entry.record.manifestId),
      request,
    );
    return { items: page.items.map((entry) => entry.record), last: page.last };
  }

  async get(tenant: string, manifestId: string) {
    const record = this.manifests.get(`${tenant}/${manifestId}`)?.record;
    return record && structuredClone(record);
  }

  async read(tenant: string, manifestId: string) {
    return this.manifests.get(`${tenant}/${manifestId}`)?.json;
  }
}
