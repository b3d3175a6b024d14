import type { StoredContent } from "../downloads.js";
import type { Page, PageRequest } from "../paging.js";
import type { FlowDocument } from "./document.js";
import type { ClassFlowPolicy } from "./policy.js";

/** A stored flow version's bytes, exactly as uploaded, and how to serve them. */
export type FlowContent = StoredContent;

/** Flow documents by hash within a tenant: what agents download. */
export interface FlowContentStore {
  read(tenant: string, hash: string): Promise<FlowContent | undefined>;
}

/** One immutable flow version of a class: its document's reading, and who published it when. */
export interface FlowVersionRecord extends FlowDocument {
  className: string;
  gzipBytes: number;
  createdAt: number;
  /** Subject of the token that uploaded it. */
  createdBy: string;
}

/** Flow versions per class; the content is stored once per tenant and hash, and served to agents by hash. */
export interface FlowCatalog extends FlowContentStore {
  /**
   * Stores the content, then the class's version, each written once; when the class has the version
   * already, the stored record comes back with `created` false.
   */
  add(
    tenant: string,
    version: Omit<FlowVersionRecord, "gzipBytes">,
    bytes: Uint8Array,
  ): Promise<{ record: FlowVersionRecord; created: boolean }>;
  list(tenant: string, className: string, page: PageRequest): Promise<Page<FlowVersionRecord>>;
  get(tenant: string, className: string, hash: string): Promise<FlowVersionRecord | undefined>;
}

/** The class's flow policy as the registry holds it: what the agent API loads into its cache. */
export interface ClassFlowPolicies {
  policyOf(tenant: string, className: string): Promise<ClassFlowPolicy | undefined>;
}

/** The cache's copy of classes' flow policies, which heartbeats read in their one round trip. */
export interface ClassFlowCache {
  /** Replaces the cache's copy; undefined records that the class has none. It expires, so the registry stays the truth. */
  rememberClassFlow(tenant: string, className: string, policy: ClassFlowPolicy | undefined): Promise<void>;
}
