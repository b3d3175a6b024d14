import type { ManifestSummary } from "../../core/c2/manifest.js";
import type { ManifestStore } from "../../core/manifests/ports.js";

export class MemoryManifestStore implements ManifestStore {
  readonly manifests = new Map<string, { json: string; summary: ManifestSummary }>();
  calls = 0;
  writes = 0;
  /** As a table that refuses writes: core's tests see what a manifest that cannot be stored changes. */
  failing = false;

  async has(tenant: string, manifestId: string) {
    this.calls++;
    return this.manifests.has(`${tenant}/${manifestId}`);
  }

  async store(tenant: string, manifestId: string, contentJson: string, summary: ManifestSummary) {
    this.calls++;
    if (this.failing) throw new Error("manifest store unavailable");
    this.writes++;
    const key = `${tenant}/${manifestId}`;
    if (this.manifests.has(key)) return "exists" as const;
    this.manifests.set(key, { json: contentJson, summary: structuredClone(summary) });
    return "stored" as const;
  }

  async read(tenant: string, manifestId: string) {
    this.calls++;
    return this.manifests.get(`${tenant}/${manifestId}`)?.json;
  }
}
