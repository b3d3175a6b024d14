import type {
  CachedAttentionFacts,
  CachedAttentionReason,
  ListedAttentionReason,
} from "../agents/attention.js";
import type { LabelRequirement, Labels } from "../agents/labels.js";
import type { LoadSample } from "../agents/load-samples.js";
import type {
  AgentAssignment,
  AgentPin,
  AgentRecord,
  AssignmentCache,
  HotSighting,
  OperationOutcomeCache,
  OwnValuesCache,
  PinCache,
  SilentAgent,
  SilentAgentIndex,
} from "../agents/ports.js";
import type { AgentDecommissionedEvent } from "../events/model.js";
import type { ClassFlowCache } from "../flows/ports.js";
import type { RevocationNotices } from "../identity/ports.js";
import type { Page, PageRequest } from "../paging.js";
import type { AttentionPageRequest, AttentionPosition } from "./attention-pages.js";

/** Filters the registry evaluates within its index query (never a scan). */
export interface RegistryFilters {
  agentClass?: string;
  /** Agents of any of these classes, read from the tenant's index (one class reads its own). */
  agentClasses?: readonly string[];
  /** The hash the agent reports (its own). */
  manifestHash?: string;
  /** The canonical identity of the binary the agent runs, by the manifest of the hash it reports. */
  manifestId?: string;
  /** Any of these binaries, as `manifestId` is matched. */
  manifestIds?: readonly string[];
  flowId?: string;
  /** Matches a substring of the agent id or the device's hostname. */
  text?: string;
  /** Every one met by the agent's labels. */
  labels?: readonly LabelRequirement[];
  /** As the device the agent reported, exactly. */
  operatingSystem?: string;
  machineArch?: string;
}

export interface AgentQuery extends RegistryFilters, PageRequest {}

/**
 * Why and when an agent was decommissioned, with its last heartbeat. The console's decommission is a person's;
 * the sweeper's (`silent`) holds only while the agent is still silent since `lastSeen` (SilentAgentIndex).
 */
export type Decommissioning =
  | { at: number; reason: "console"; lastSeen: number }
  | {
      at: number;
      reason: "silent";
      lastSeen: number;
      /** Staged in the same write: announced once, even when the sweeper dies before it publishes. */
      event: AgentDecommissionedEvent;
    };

export interface FleetRegistry extends SilentAgentIndex {
  /** One index query page: by class when one is given, otherwise the tenant's whole fleet, by agent id. */
  query(tenant: string, query: AgentQuery): Promise<Page<AgentRecord>>;
  get(tenant: string, agentId: string): Promise<AgentRecord | undefined>;
  /** Those of these agents still registered, each as `get` reads it, in the order asked; a few reads for many. */
  getMany(tenant: string, agentIds: string[]): Promise<AgentRecord[]>;
  /**
   * Takes the agent out of reads, lists, counts and the silent index, keeping its entry marked with the
   * decommissioning (for the audit) until it registers again; its periodic last-seen times go. False when
   * there was no such agent registered, or, for `silent`, when it is no longer silent since `lastSeen`.
   */
  decommission(tenant: string, agentId: string, decommissioning: Decommissioning): Promise<boolean>;
  /** Up to `limit` of the class's agents announced offline whose last heartbeat was before `before`, earliest first. */
  silentBefore(tenant: string, agentClass: string, before: number, limit: number): Promise<SilentAgent[]>;
  /** Takes the agent out of the silent index, unless it went silent again since (another `lastSeen`). */
  clearSilent(tenant: string, agentId: string, lastSeen: number): Promise<void>;
  /** Replaces the agent's labels (the last writer wins); false when there was no such agent. */
  putLabels(tenant: string, agentId: string, labels: Labels): Promise<boolean>;
  /** Pins the agent, or unpins it (undefined); false when there was no such agent. */
  putPin(tenant: string, agentId: string, pin: AgentPin | undefined): Promise<boolean>;
  /** Holds the agent on a rollout's version over its class's target, or drops that (undefined); false when there was no such agent. */
  putAssignment(tenant: string, agentId: string, assignment: AgentAssignment | undefined): Promise<boolean>;
  /**
   * The flow id each agent of the class reports, by agent id, read from the class's index with nothing else
   * of the agents: what grouping a class by its running flows needs.
   */
  reportedFlows(tenant: string, agentClass: string): Promise<{ agentId: string; flowId?: string }[]>;
  /**
   * The tenant's agents the filters pick, counted by the index query that `query` pages through, without
   * returning them (on AWS, `Select=COUNT`: each page still reads up to 1 MB of the index).
   */
  countMatching(tenant: string, filters: RegistryFilters): Promise<number>;
  /** Agents of a class, optionally only those the registry saw at or after `seenSince` (ms). */
  count(tenant: string, agentClass: string, seenSince?: number): Promise<number>;
}

/** What the cache holds of one agent, as the agent API's sightings left it; every field may be missing. */
export type HotAgentState = Pick<
  HotSighting,
  | "agentClass"
  | "manifestHash"
  | "flowId"
  | "runStatus"
  | "status"
  | "device"
  | "repositories"
  | "queues"
  | "bulletins"
  | "processors"
  | "resourceHash"
  | "system"
  | "configurationChecksums"
> & { lastSeen?: number };

export interface ClassAgentCounts {
  total: number;
  online: number;
}

/** The console's reads and removals of the agent API's hot state. Every call throws when the cache does. */
export interface FleetHotState
  extends ClassFlowCache,
    RevocationNotices,
    OwnValuesCache,
    PinCache,
    AssignmentCache,
    OperationOutcomeCache {
  agents(tenant: string, agentIds: string[]): Promise<Map<string, HotAgentState>>;
  /** Agents per class from the cache's per-class index, online meaning seen at or after `onlineSince`. */
  classCounts(
    tenant: string,
    classes: { name: string; onlineSince: number }[],
  ): Promise<Map<string, ClassAgentCounts>>;
  /** Per class, how many of its agents each reason the cache keeps holds at `now`. */
  attentionCounts(
    tenant: string,
    classes: string[],
    now: number,
  ): Promise<Map<string, Record<CachedAttentionReason, number>>>;
  /**
   * A page of the agents of these classes the reason holds at `now`, in (score, agent id) order: offline
   * ones from the class indexes (last seen before their class's `onlineSince`), the others from the attention
   * indexes. Reads at most `limit` entries of each class's index, and those sharing the score it starts after.
   */
  attentionPage(
    tenant: string,
    classes: { name: string; onlineSince: number }[],
    reason: ListedAttentionReason,
    now: number,
    request: AttentionPageRequest,
  ): Promise<AttentionPosition[]>;
  /** What the cache's attention indexes hold of each of these agents (by agent id, in its class) at `now`. */
  attentionOf(
    tenant: string,
    agents: { agentId: string; agentClass: string }[],
    now: number,
  ): Promise<Map<string, CachedAttentionFacts>>;
  /** The load samples of the agent's latest heartbeats (at most LOAD_SAMPLES_KEPT), oldest first. */
  loadSamples(tenant: string, agentId: string): Promise<LoadSample[]>;
  /** Heartbeats the agent API counted in each of these minutes (epoch minutes). */
  heartbeatsPerMinute(tenant: string, epochMinutes: number[]): Promise<number[]>;
  /** Heartbeats the agent API ever took from the tenant's agents of each of these classes (0 for none). */
  heartbeatTotals(tenant: string, classes: string[]): Promise<Map<string, number>>;
  /** Drops the agent's hot state and its entries in these classes' indexes. */
  forgetAgent(tenant: string, agentId: string, agentClasses: string[]): Promise<void>;
  /**
   * Bumps the agents' pending-operation markers, so their next heartbeats look at their queues.
   * Called before the operations are written: a marker without an operation costs one look.
   */
  markOperationsPending(tenant: string, agentIds: string[]): Promise<void>;
  /**
   * After a change of a group holding parameter values (its query, its priority, its parameters, its
   * deletion) is written: replaces the version of the tenant's groups the cache holds, so that no container's
   * copy of them read before the change serves a registering agent (group-values.ts).
   */
  groupsChanged(tenant: string): Promise<void>;
}

/** What a tenant set for its whole fleet; a field absent was never set, or was unset. */
export interface TenantSettings {
  /**
   * How many days an agent may stay silent before the sweeper decommissions it, for classes without their own
   * `cleanUpAfterDays`; never when absent.
   */
  cleanUpAfterDays?: number;
  /** The IANA time zone the tenant's maintenance windows keep; UTC when absent. */
  timeZone?: string;
  updatedAt?: number;
}

/** A change of the tenant's settings: a field given is set, `null` unsets it, one left out keeps its value. */
export interface TenantSettingsChange {
  cleanUpAfterDays?: number | null;
  timeZone?: string | null;
}

/** The tenant's settings, one item per tenant. */
export interface TenantSettingsStore {
  /** Empty settings for a tenant that never set any. */
  get(tenant: string): Promise<TenantSettings>;
  put(tenant: string, change: TenantSettingsChange, now: number): Promise<TenantSettings>;
}
