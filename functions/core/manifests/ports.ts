import type { ManifestSummary, SupportedOperations } from "../c2/manifest.js";
import type { Page, PageRequest } from "../paging.js";

export interface ManifestStore {
  /** Supported operations of a stored manifest, or undefined when the tenant has no manifest by that hash. */
  find(tenant: string, hash: string): Promise<SupportedOperations | undefined>;
  /** Content-addressed and write-once: storing a hash that exists changes nothing. */
  store(
    tenant: string,
    hash: string,
    manifestJson: string,
    summary: ManifestSummary,
    now: number,
  ): Promise<"stored" | "exists">;
  /** The manifest exactly as stored (compact JSON). */
  read(tenant: string, hash: string): Promise<string | undefined>;
}

export interface ManifestRecord {
  hash: string;
  agentType?: string;
  version?: string;
  bundleCount: number;
  processorTypeCount: number;
  controllerServiceTypeCount: number;
  supportedOperations: SupportedOperations;
  jsonBytes: number;
  gzipBytes: number;
  createdAt: number;
}

export interface ManifestCatalog {
  list(tenant: string, page: PageRequest): Promise<Page<ManifestRecord>>;
  /** The manifest exactly as stored (compact JSON), or undefined. */
  read(tenant: string, hash: string): Promise<string | undefined>;
  get(tenant: string, hash: string): Promise<ManifestRecord | undefined>;
}
