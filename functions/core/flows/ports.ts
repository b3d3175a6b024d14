import type { Page, PageRequest } from "../paging.js";
import type { StoredContent } from "../ports.js";
import type { FlowDocument } from "./document.js";
import type { CachedClassFlow, ClassFlowPolicy } from "./policy.js";

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
  /**
   * For a version adopted from what agents ran: the flow id they report for it (another C2 server's), which
   * the class's policy accepts as this version.
   */
  adoptedFlowId?: string;
  /**
   * Its number in the class, 1 for the class's first version, in publish order; absent for a version stored
   * before Beacon numbered them (numbering then went on after the versions the class had).
   */
  version?: number;
  /** What people call it ("kafka tls"): given at publish, changed by an operator later. */
  label?: string;
}

/** What a publisher gives of a version: the catalog numbers it and sizes its content. */
export type NewFlowVersion = Omit<FlowVersionRecord, "gzipBytes" | "version">;

/** Flow versions per class; the content is stored once per tenant and hash, and served to agents by hash. */
export interface FlowCatalog extends FlowContentStore {
  /**
   * Stores the content, then the class's version, each written once, the version with the class's next
   * number taken atomically with it; when the class has the version already, the stored record (its
   * number and label as they were) comes back with `created` false.
   */
  add(
    tenant: string,
    version: NewFlowVersion,
    bytes: Uint8Array,
  ): Promise<{ record: FlowVersionRecord; created: boolean }>;
  /** Sets the version's label, or removes it (undefined); undefined when the class has no such version. */
  setLabel(
    tenant: string,
    className: string,
    hash: string,
    label: string | undefined,
  ): Promise<FlowVersionRecord | undefined>;
  list(tenant: string, className: string, page: PageRequest): Promise<Page<FlowVersionRecord>>;
  get(tenant: string, className: string, hash: string): Promise<FlowVersionRecord | undefined>;
}

/** What the agent API loads of a class into its cache, as the registry holds it. */
export interface ClassFlowSettings {
  /** The class's flow policy in force, its acknowledgement timeout included; absent when it has none. */
  policy?: ClassFlowPolicy;
  /** How often the class's agents are expected to heartbeat; absent for classes nobody configured. */
  heartbeatIntervalSeconds?: number;
}

/** The cache's copy of classes' flow policies and heartbeat periods, which heartbeats read in one round trip. */
export interface ClassFlowCache {
  /**
   * Replaces the cache's copy: the class's policy (undefined records that it has none) and the heartbeat
   * period its agents are held to unless they state their own (heartbeatPeriodMsOf). It expires, so the
   * registry stays the truth.
   */
  rememberClassFlow(
    tenant: string,
    className: string,
    policy: CachedClassFlow | undefined,
    heartbeatPeriodMs: number,
  ): Promise<void>;
}

/**
 * Writes a class's policy to the cache as heartbeats read it, its versions rendered with the class's values
 * (parameters/rendered-flow-ids.ts): what every writer of a policy but the agent API's heartbeat goes through.
 */
export interface ClassFlowWriter {
  rememberClassFlow(
    tenant: string,
    className: string,
    policy: ClassFlowPolicy | undefined,
    heartbeatPeriodMs: number,
  ): Promise<void>;
}
