import type { ResourceSetStore } from "../../core/assets/ports.js";
import type { ResourceSet } from "../../core/assets/resource-set.js";
import type { MemoryAssetCatalog } from "./asset-catalog.js";

/** Resource sets, keeping the catalog's `usedBy` in step as the table's transaction does. */
export class MemoryResourceSetStore implements ResourceSetStore {
  readonly sets = new Map<string, ResourceSet>();

  constructor(private readonly assets: MemoryAssetCatalog) {}

  async get(tenant: string, className: string) {
    const set = this.sets.get(`${tenant}/${className}`);
    return set && structuredClone(set);
  }

  async replace(tenant: string, set: ResourceSet, previous: ResourceSet | undefined) {
    const current = this.sets.get(`${tenant}/${set.className}`);
    if (current?.digest !== previous?.digest || current?.updatedAt !== previous?.updatedAt)
      return "conflict" as const;
    const before = new Set(previous?.entries.map((entry) => entry.assetId));
    const after = new Set(set.entries.map((entry) => entry.assetId));
    const recordOf = (assetId: string) => this.assets.records.get(`${tenant}/${assetId}`);
    if ([...after].some((assetId) => !before.has(assetId) && !recordOf(assetId))) return "conflict" as const;
    for (const assetId of new Set([...before, ...after])) {
      const record = recordOf(assetId);
      if (!record) continue;
      const others = (record.usedBy ?? []).filter((className) => className !== set.className);
      const usedBy = after.has(assetId) ? [...others, set.className].sort() : others;
      record.usedBy = usedBy.length > 0 ? usedBy : undefined;
    }
    this.sets.set(`${tenant}/${set.className}`, structuredClone(set));
    return "replaced" as const;
  }
}
