import type { ManifestSummary } from "../c2/manifest.js";
import type { Page, PageRequest } from "../paging.js";
import type { KnownManifest } from "./agent-manifest.js";

/** The content of a tenant's binaries (see canonical.ts), once per tenant and canonical identity. */
export interface ManifestStore {
  /** Whether the tenant holds the content of this binary. */
  has(tenant: string, manifestId: string): Promise<boolean>;
  /** Write-once: storing content the tenant holds already changes nothing. */
  store(
    tenant: string,
    manifestId: string,
    contentJson: string,
    summary: ManifestSummary,
    now: number,
  ): Promise<"stored" | "exists">;
  /** The content exactly as stored (compact JSON). */
  read(tenant: string, manifestId: string): Promise<string | undefined>;
}

/**
 * The cache's part in registration: which binaries' content the tenant holds, so that an agent of a known
 * binary registers its manifest without a manifest store request, and each agent's manifest. Every call
 * throws when the cache does.
 */
export interface ManifestCache {
  isManifestStored(tenant: string, manifestId: string): Promise<boolean>;
  rememberManifestStored(tenant: string, manifestId: string): Promise<void>;
  /** The agent's manifest for the hash it was reported with; a heartbeat reporting that hash needs nothing else. */
  rememberAgentManifest(tenant: string, agentId: string, manifest: KnownManifest): Promise<void>;
}

export interface ManifestRecord {
  manifestId: string;
  agentType?: string;
  version?: string;
  bundleCount: number;
  processorTypeCount: number;
  controllerServiceTypeCount: number;
  jsonBytes: number;
  gzipBytes: number;
  createdAt: number;
}

export interface ManifestCatalog {
  list(tenant: string, page: PageRequest): Promise<Page<ManifestRecord>>;
  /** The content exactly as stored (compact JSON), or undefined. */
  read(tenant: string, manifestId: string): Promise<string | undefined>;
  get(tenant: string, manifestId: string): Promise<ManifestRecord | undefined>;
}
