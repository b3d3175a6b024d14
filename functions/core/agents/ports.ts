import type { SupportedOperations } from "../c2/manifest.js";
import type {
  Bulletin,
  ConfigurationChecksums,
  DeviceSummary,
  ProcessorStatus,
  QueueStatus,
  RepositoryStatus,
  StatusSummary,
  SystemLoad,
} from "../c2/model.js";
import type { ClassFlowPolicy } from "../flows/policy.js";
import type { ClassFlowCache, ClassFlowSettings } from "../flows/ports.js";
import type { CachedRevocation, RevocationCache } from "../identity/ports.js";
import type { AgentManifest, KnownManifest } from "../manifests/agent-manifest.js";
import type { ManifestCache } from "../manifests/ports.js";
import type { Page, PageRequest } from "../paging.js";
import type { MaintenanceWindow } from "../schedules/windows.js";
import type { LabelSource } from "./label-sources.js";
import type { Labels } from "./labels.js";

/** The durable registry entry of one agent (DynamoDB on AWS). */
export interface AgentRecord {
  tenant: string;
  agentId: string;
  agentClass: string;
  /** The hash the agent reports now. */
  manifestHash?: string;
  /** The agent's manifest as Beacon last learned it: the agent's current one when its hash is `manifestHash`. */
  manifest?: AgentManifest;
  flowId?: string;
  device?: DeviceSummary;
  firstSeen: number;
  lastSeen: number;
  /** The DESCRIBE MANIFEST Beacon is waiting on, if any; expired ones may be replaced. */
  pendingDescribe?: { operationId: string; expiresAt: number };
  /** The labels operators set on the agent through the console. */
  labels?: Labels;
  /**
   * The labels its class's label sources read from what the agent reported with its manifest; an operator's
   * label of the same key wins (effectiveLabels).
   */
  reportedLabels?: Labels;
  /** The flow version an operator pinned the agent to, if any. */
  pin?: AgentPin;
  /** The version a rollout to part of its class brought it to, held while the class's target stays `over`. */
  assignment?: AgentAssignment;
}

/**
 * The flow version an agent is pinned to: catch-up and rollouts leave it there until it is unpinned, and
 * catch-up sends it back there when it reports another flow.
 */
export interface AgentPin {
  /** The version's hash, which the agent downloads it by. */
  flowHash: string;
  /**
   * The flow ids the agent reports running it: first its rendering with its values when it was pinned (the
   * version's hash when it declares no parameters), which catch-up sends it; then an adopted version's flow id.
   */
  flowIds: string[];
  pinnedAt: number;
  pinnedBy: string;
}

/**
 * The version a rollout to a group or a selector brought the agent to, over its class's target: catch-up holds
 * the agent to it (after a pin, before the class's target) only while the class's target is still `over`, so
 * a later target (another rollout completed, a target set) makes it lapse without a write.
 */
export interface AgentAssignment {
  /** The version's hash, which the agent downloads it by. */
  flow: string;
  /** The flow ids the agent reports running it, the first the one catch-up sends (as a pin's). */
  flowIds: string[];
  /** The class's target when it was assigned; absent when the class had none. */
  over?: string;
  rolloutId: string;
}

/** What changed since the registry last heard from the agent, written to its profile on change. */
export interface AgentCheckpoint {
  lastSeen: number;
  agentClass?: string;
  manifestHash?: string;
  /** A manifest learned in this heartbeat. */
  manifest?: AgentManifest;
  flowId?: string;
  device?: DeviceSummary;
  /** Read anew with a manifest learned, replacing those read before. */
  reportedLabels?: Labels;
}

export interface AgentRegistry {
  /** Registered agents only: a decommissioned agent's kept entry is none. */
  get(tenant: string, agentId: string): Promise<AgentRecord | undefined>;
  /**
   * Conditional create: a second registration of the same agent changes nothing. A decommissioned agent's
   * entry (FleetRegistry.decommission) is replaced: the agent registers anew (`returned`). `created`: the
   * registry never held the agent, so nothing was set for it through its entry (its own parameter values).
   */
  register(record: AgentRecord): Promise<"created" | "returned" | "exists">;
  /** Writes what changed to the agent's profile, the item the console's agent lists read. */
  checkpoint(tenant: string, agentId: string, checkpoint: AgentCheckpoint): Promise<void>;
  /**
   * The periodic checkpoint of an agent whose profile did not change: its last-seen time alone, kept
   * apart from the profile (so on AWS in a small item no index copies). Reads take the later of the two.
   */
  recordSeen(tenant: string, agentId: string, lastSeen: number): Promise<void>;
  /** Claims the DESCRIBE slot when none is outstanding or the outstanding one expired. */
  beginDescribe(
    tenant: string,
    agentId: string,
    operationId: string,
    now: number,
    expiresAt: number,
  ): Promise<boolean>;
  /**
   * Closes the DESCRIBE when it is still the outstanding one, keeping the manifest it brought and the labels
   * read from it; false for unknown or late acks.
   */
  completeDescribe(
    tenant: string,
    agentId: string,
    operationId: string,
    manifest: AgentManifest | undefined,
    reportedLabels?: Labels,
  ): Promise<boolean>;
  /**
   * Keeps a manifest the agent sent otherwise (a DESCRIBE asked through the console), and the labels read
   * from it; false for no such agent.
   */
  recordManifest(
    tenant: string,
    agentId: string,
    manifest: AgentManifest,
    reportedLabels?: Labels,
  ): Promise<boolean>;
}

/** An agent announced offline: its class, and its last heartbeat, since when it is silent. */
export interface SilentAgent {
  agentId: string;
  agentClass: string;
  lastSeen: number;
}

/**
 * The registry's index of the agents announced offline, by class and since when they are silent: what the
 * sweeper's clean-up reads instead of the whole registry (FleetRegistry reads it).
 */
export interface SilentAgentIndex {
  /** Files the agent by its last heartbeat; nothing for an agent the registry does not hold. */
  markSilent(tenant: string, agent: SilentAgent): Promise<void>;
}

/** What the agent API reads of an agent's class: its flow settings, and where its reported labels come from. */
export interface ClassAgentSettings extends ClassFlowSettings {
  labelSources?: LabelSource[];
}

export interface ClassFlowPolicies {
  settingsOf(tenant: string, className: string): Promise<ClassAgentSettings>;
}

export interface AgentClassRegistry {
  /** Creates the class on first sight, conditionally; later sightings change nothing. */
  ensure(tenant: string, agentClass: string, now: number): Promise<void>;
}

/** Hot per-agent state as the heartbeat sees it in one cache round trip. */
export interface HotSighting {
  tenant: string;
  agentId: string;
  /**
   * The calling certificate's serial: a revoked one is refused before anything is recorded; the reply says
   * whether it is the one recorded for the agent (rememberCertificate).
   */
  serialNumber: string;
  now: number;
  agentClass?: string;
  manifestHash?: string;
  flowId?: string;
  runStatus?: string;
  status?: StatusSummary;
  device?: DeviceSummary;
  repositories?: RepositoryStatus[];
  queues?: QueueStatus[];
  bulletins?: Bulletin[];
  /** The highest bulletin id the heartbeat lists, kept to tell the next heartbeat's new bulletins. */
  bulletinsThrough?: number;
  /** Until when its ERROR bulletins hold the agent in need of attention (attention.ts); absent for none. */
  errorBulletinsUntil?: number;
  /** Whether a queue it reports is back-pressured; absent when it reports none. */
  backPressured?: boolean;
  processors?: ProcessorStatus[];
  resourceHash?: string | null;
  system?: SystemLoad;
  configurationChecksums?: ConfigurationChecksums;
  /** The agent's own checkpoint interval (checkpoint-interval.ts). */
  checkpointIntervalMs: number;
  /** How long a catch-up claimed for the agent holds off the next one (an update it failed is retried after it). */
  catchUpRetryMs: number;
}

/** What the agent reported before a heartbeat, to tell a change (written at once) from a steady state. */
export interface ReportedBefore {
  agentClass?: string;
  manifestHash?: string;
  flowId?: string;
  /** Absent when the agent reported none (or null). */
  resourceHash?: string;
}

/** What the heartbeat learns of its agent from the cache's one round trip. */
export interface HotSightingResult {
  /** The registry is known to hold this agent. */
  registered: boolean;
  /** Values in force after this heartbeat, filling in what a minimized heartbeat left out. */
  agentClass?: string;
  manifestHash?: string;
  flowId?: string;
  /** Values before this heartbeat, as the cache held them: none of an agent it did not hold. */
  previous: ReportedBefore;
  /** The highest bulletin id the agent listed before this heartbeat, when the cache holds one. */
  previousBulletinsThrough?: number;
  /** The agent's manifest when the cache knows the one of the hash it reports now: its binary and operations. */
  manifestId?: string;
  supportedOperations?: SupportedOperations;
  /** This heartbeat claimed the periodic registry checkpoint. */
  checkpointDue: boolean;
  /**
   * The agent reports another device than the registry's profile holds, to be written now: at a due
   * checkpoint (an address that flaps costs one profile write an interval at most), or at once when the
   * cache had lost the agent (which it does not do often).
   */
  deviceChanged?: boolean;
  /**
   * This sighting's place among the agent's, from 1: the heartbeat event carries it, so that the archive
   * shows events lost. It starts again from 1 when the cache loses the agent.
   */
  sequence: number;
  /** A DESCRIBE MANIFEST is outstanding until this time. */
  describePendingUntil?: number;
  /**
   * The agent's pending-operation marker: absent when nothing was queued for it since the last
   * heartbeat that found its queue empty; otherwise a version to clear it with.
   */
  operationsPending?: string;
  /** The sweeper had marked the agent offline (its last heartbeat before): this heartbeat cleared the mark. */
  offlineLastSeen?: number;
  /**
   * The agent reports a flow its class's policy does not accept, and this heartbeat claimed the
   * catch-up: the flow to send it, and the class's acknowledgement timeout when it has one.
   */
  /**
   * The catch-up claimed for the agent: the version to download by its hash and the flow id the agent
   * reports once it runs it, the rendering's with its own values when the version declares parameters.
   */
  catchUp?: { hash: string; flowId: string; ackTimeoutMs?: number };
  /** The cache holds no copy of the class's flow policy: load it from the registry. */
  classFlowUnknown?: boolean;
  /** The calling certificate is the one the certificate store was last said to hold for the agent. */
  certificateRecorded?: boolean;
  /**
   * For an agent the cache does not hold as registered: the version of the tenant's groups the cache holds,
   * which every change of a group holding parameter values replaces (ValuesOverClassHints.groupsVersion).
   */
  groupsVersion?: string;
  /**
   * While the pending-operation marker is set (an operation may await its effect): the run statuses in
   * force after this heartbeat, which a minimized C++ heartbeat may have left out.
   */
  runStatuses?: { runStatus?: string; processors?: ProcessorStatus[] };
}

/** An agent's own parameter values (parameters/), by name: a value or a secret's reference, never a secret. */
export type AgentOwnValues = ReadonlyMap<string, { value: string } | { secretRef: string }>;

/** The cache's copy of agents' own parameter values, which the console writes through. */
export interface OwnValuesCache {
  /**
   * Replaces the agent's own parameter values in its cache entry, which catch-up compares its flow id with;
   * an agent the cache does not hold as registered reads them with its registry entry at its next heartbeat.
   */
  rememberOwnValues(tenant: string, agentId: string, ownValues: AgentOwnValues): Promise<void>;
}

/** The cache's copy of agents' pins, which the console writes through. */
export interface PinCache {
  /**
   * Replaces the agent's pin (none: unpinned) in its cache entry, which catch-up reads; an agent the cache
   * does not hold as registered reads it with its registry entry at its next heartbeat.
   */
  rememberPin(tenant: string, agentId: string, pin: AgentPin | undefined): Promise<void>;
}

/** The cache's copy of agents' assignments, which the rollout engine writes through. */
export interface AssignmentCache {
  /**
   * Replaces the agent's assignment (none: dropped) in its cache entry, which catch-up reads; an agent the
   * cache does not hold as registered reads it with its registry entry at its next heartbeat.
   */
  rememberAssignment(tenant: string, agentId: string, assignment: AgentAssignment | undefined): Promise<void>;
}

/**
 * The cache's copy of how agents' last operations ended, for the attention indexes (attention.ts): written
 * where an operation closes off the heartbeat (its acknowledgement, the sweeper's timeouts).
 */
export interface OperationOutcomeCache {
  /**
   * Keeps the agent in its class's `operationFailed` index from `at` (an earlier failure's time stays), or
   * drops it for an operation it carried out. `agentClass` is the class the operation was queued for: the
   * class the cache holds for the agent wins when it changed since (a second round trip); without either,
   * nothing is kept.
   */
  recordOperationOutcome(
    tenant: string,
    agentId: string,
    agentClass: string | undefined,
    failed: boolean,
    at: number,
  ): Promise<void>;
}

/** What the cache keeps of an agent the registry holds (HotState.markRegistered). */
export interface CacheRegistration {
  now: number;
  ownValues: AgentOwnValues;
  pin?: AgentPin;
  assignment?: AgentAssignment;
  /** The agent's class, which the tenant's classes take in. */
  agentClass: string;
  /** The manifest the registry holds for the agent since it registered with it, when it brought one. */
  manifest?: KnownManifest;
}

/** Nothing is recorded unless the certificate is known not to be revoked. */
export type SightingOutcome =
  | { recorded: true; sighting: HotSightingResult }
  | { recorded: false; revocation: Exclude<CachedRevocation, "clear"> };

export interface HotState extends ClassFlowCache, RevocationCache, ManifestCache, OperationOutcomeCache {
  /** One round trip: checks revocation, records the sighting and returns what the heartbeat needs to decide. */
  recordSighting(sighting: HotSighting): Promise<SightingOutcome>;
  /**
   * The registry holds the agent, whose own parameter values (its agent layer) the cache keeps from now on
   * for catch-up to compare its flow id with its own rendering's, and its pin, which catch-up holds it to;
   * with its class remembered (as rememberClass, whose answer it returns) and the manifest it registered
   * with (as rememberAgentManifest), in one round trip.
   */
  markRegistered(tenant: string, agentId: string, registration: CacheRegistration): Promise<boolean>;
  /**
   * The certificate store holds the certificate of this serial, with which the agent calls: its next
   * sightings say so, and record nothing more of it, while the cache keeps the agent.
   */
  rememberCertificate(tenant: string, agentId: string, serial: string): Promise<void>;
  /** Returns true when the class was not known to the cache yet. */
  rememberClass(tenant: string, agentClass: string): Promise<boolean>;
  /**
   * The agent's registration and its class unknown to the cache again, as after a flush: the agent's next
   * heartbeat registers it with the cache again, and learns its class again unless another agent of it did.
   */
  forgetRegistration(tenant: string, agentId: string, agentClass: string): Promise<void>;
  rememberDescribe(tenant: string, agentId: string, pendingUntil: number | undefined): Promise<void>;
  /** Bumps the agent's pending-operation marker, so that its next heartbeat looks at its operations. */
  markOperationsPending(tenant: string, agentId: string): Promise<void>;
  /** Clears the pending-operation marker unless something was queued since it read this version. */
  clearOperationsPending(tenant: string, agentId: string, version: string): Promise<void>;
  /**
   * The agent restarts for an operation just delivered, which should be over by `deadline`: until then
   * its silence is no outage (PresenceState.markOverdue). Its next heartbeat ends this.
   */
  rememberRestart(tenant: string, agentId: string, deadline: number): Promise<void>;
}

export interface AgentClassRecord {
  tenant: string;
  name: string;
  description?: string;
  /** How often the class's agents are expected to heartbeat; absent for classes nobody configured. */
  heartbeatIntervalSeconds?: number;
  /** How long the class's agents may take to acknowledge an operation; the service default when absent. */
  ackTimeoutSeconds?: number;
  /**
   * How many days an agent of the class may stay silent before the sweeper decommissions it; the tenant's
   * default when absent (cleanUpAgeOf).
   */
  cleanUpAfterDays?: number;
  /** Where the class's agents' reported labels come from. */
  labelSources?: LabelSource[];
  /**
   * When rollouts and console operations may reach the class's agents, in the tenant's time zone; always
   * when absent.
   */
  maintenanceWindows?: MaintenanceWindow[];
  /** Which flow the class's agents should run, once a flow version was published to it. */
  flowPolicy?: ClassFlowPolicy;
  /** How changes of the class's parameter values reach its agents; `immediate` when absent. */
  valueChanges?: ValueChanges;
  /** A rollout to the class waits until an operator other than its creator approves it (four eyes). */
  requireApproval?: boolean;
  /** The rollout under way or waiting to start, if any: a class has at most one. */
  activeRolloutId?: string;
  createdAt: number;
  updatedAt?: number;
  /** Created by the agent API on first sight rather than by a person. */
  autoCreated: boolean;
}

/**
 * How a class's value changes reach its agents: at once, by catch-up (`immediate`), or staged until a rollout
 * brings them in batches gated on health (`rollout`).
 */
export type ValueChanges = "immediate" | "rollout";

export interface AgentClassChange {
  description?: string;
  heartbeatIntervalSeconds?: number;
  ackTimeoutSeconds?: number;
  /** `null` unsets the class's own value, so that the tenant's default applies. */
  cleanUpAfterDays?: number | null;
  /** An empty list removes the class's windows: its agents are always open to changes. */
  maintenanceWindows?: MaintenanceWindow[];
  valueChanges?: ValueChanges;
  labelSources?: LabelSource[];
  requireApproval?: boolean;
}

export interface ClassCatalog {
  list(tenant: string, page: PageRequest): Promise<Page<AgentClassRecord>>;
  get(tenant: string, name: string): Promise<AgentClassRecord | undefined>;
  /** Creates the class or changes the given fields of an existing one. */
  put(
    tenant: string,
    name: string,
    change: AgentClassChange,
    now: number,
  ): Promise<{ record: AgentClassRecord; created: boolean }>;
}
