import { type SupportedOperations, summarizeManifest } from "../c2/manifest.js";
import type { ManifestStore } from "./ports.js";

export interface ManifestRegistration {
  /** Supported operations of the tenant's manifest by this hash, from the store; undefined when unknown. */
  lookup(tenant: string, hash: string): Promise<SupportedOperations | undefined>;
  /**
   * Stores a manifest under its hash unless the tenant has it already. The lookup first keeps a herd
   * of agents with the same new manifest from each writing ~50 KB only to lose the conditional put.
   */
  register(
    tenant: string,
    hash: string,
    manifest: Record<string, unknown>,
    now: number,
  ): Promise<{ supportedOperations: SupportedOperations; stored: boolean }>;
}

export function makeManifestRegistration(manifests: ManifestStore): ManifestRegistration {
  return {
    lookup: (tenant, hash) => manifests.find(tenant, hash),
    async register(tenant, hash, manifest, now) {
      const known = await manifests.find(tenant, hash);
      if (known) return { supportedOperations: known, stored: false };
      const summary = summarizeManifest(manifest);
      const result = await manifests.store(tenant, hash, JSON.stringify(manifest), summary, now);
      return { supportedOperations: summary.supportedOperations, stored: result === "stored" };
    },
  };
}
