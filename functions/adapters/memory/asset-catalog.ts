import type { AssetRecord } from "../../core/assets/model.js";
import type { AssetCatalog } from "../../core/assets/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { pageOf } from "./paging.js";

/** Asset records by tenant and id; `usedBy` is kept by the resource sets, as the table's transactions keep it. */
export class MemoryAssetCatalog implements AssetCatalog {
  readonly records = new Map<string, AssetRecord>();

  async add(tenant: string, record: AssetRecord) {
    const existing = await this.get(tenant, record.assetId);
    if (existing) return { record: existing, created: false };
    const { usedBy: _usedBy, ...written } = structuredClone(record);
    this.records.set(`${tenant}/${record.assetId}`, written);
    return { record: structuredClone(written), created: true };
  }

  async get(tenant: string, assetId: string) {
    const found = this.records.get(`${tenant}/${assetId}`);
    return found && structuredClone(found);
  }

  async list(tenant: string, request: PageRequest) {
    const prefix = `${tenant}/`;
    const entries = [...this.records].filter(([key]) => key.startsWith(prefix));
    return pageOf(
      entries.map(([, record]) => [record.assetId, record] as [string, AssetRecord]),
      request,
    );
  }

  async remove(tenant: string, assetId: string) {
    const record = this.records.get(`${tenant}/${assetId}`);
    if (!record) return "absent" as const;
    if ((record.usedBy ?? []).length > 0) return "in_use" as const;
    this.records.delete(`${tenant}/${assetId}`);
    return "removed" as const;
  }
}
