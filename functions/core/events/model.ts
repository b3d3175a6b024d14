import type {
  AckState,
  ConfigurationChecksums,
  DeviceSummary,
  StatusSummary,
  SystemLoad,
} from "../c2/model.js";

/**
 * An operation's lifecycle. Queued waits for the agent's next heartbeat, delivered went out in a
 * heartbeat reply. Awaiting_effect was acknowledged as applied by an agent whose word is no proof of it
 * (the C++ agent's START and STOP, see operations/effects.ts): it is done once a later heartbeat shows the effect,
 * or timed out by the sweeper when none does in time. The other four are final: nothing moves an
 * operation out of them.
 */
export const OperationStates = [
  "queued",
  "delivered",
  "awaiting_effect",
  "done",
  "failed",
  "timed_out",
  "cancelled",
] as const;
export type OperationState = (typeof OperationStates)[number];

/**
 * How a done operation was confirmed: by its acknowledgement, by a heartbeat that showed its effect, or (TRANSFER
 * DEBUG) by its acknowledgement together with the debug bundle it uploaded, stored.
 */
export type Confirmation = "ack" | "heartbeat" | "bundle";

/**
 * A rollout's life. awaiting_approval waits for a second operator, scheduled for its start time: neither
 * touches the class or its agents. canary and rolling update agents; paused holds (a person or the failure
 * threshold stopped it); rolling_back returns the agents it updated to the previous version. following is a
 * continuous rollout's, which has passed its class once and keeps adding agents that join its group or
 * selector until it is finished. The last four are final; refused ends a rollout that never started.
 */
export const RolloutStates = [
  "awaiting_approval",
  "scheduled",
  "canary",
  "rolling",
  "following",
  "paused",
  "rolling_back",
  "completed",
  "rolled_back",
  "aborted",
  "refused",
] as const;
export type RolloutState = (typeof RolloutStates)[number];

export interface RolloutCounts {
  /** Agents the rollout sent the new version to. */
  selected: number;
  updating: number;
  soaking: number;
  healthy: number;
  /**
   * Agents the health gate failed, for good: one returned to the previous version since still counts here,
   * beside the rollback count it is in now.
   */
  failed: number;
  /** Agents of the class it passed over: offline, already on the version, or unable to take it. */
  skipped: number;
  rollingBack: number;
  rolledBack: number;
  rollbackFailed: number;
}

/**
 * Compact records of what agents said, one per accepted heartbeat or ack, for analysis downstream.
 * Never a manifest: only the agent's hash and its binary's canonical identity. Shapes are fixed by
 * schemas/events/*.json.
 */
export interface HeartbeatEvent {
  type: "heartbeat";
  version: 1;
  eventId: string;
  tenant: string;
  agentId: string;
  at: number;
  /**
   * The heartbeat's place among its agent's, from 1, which shows events lost; it starts again from 1 when
   * the cache loses the agent, and is absent when the cache was down (the registry answered).
   */
  sequence?: number;
  agentClass?: string;
  manifestHash?: string;
  /** The canonical identity of the agent's binary, when Beacon knows the manifest of `manifestHash`. */
  manifestId?: string;
  flowId?: string;
  runStatus?: string;
  /** How many of the flow's processors report each run status. */
  processorsByRunStatus?: Record<string, number>;
  resourceHash?: string | null;
  status?: StatusSummary;
  /**
   * Of the ERROR bulletins `status` counts, those the agent had not listed before (agents/bulletins.ts):
   * what fleet history counts. Absent when the heartbeat lists no bulletins.
   */
  newErrorBulletins?: number;
  system?: SystemLoad;
  configurationChecksums?: ConfigurationChecksums;
  device?: Pick<DeviceSummary, "deviceId" | "hostname">;
  /**
   * The heartbeat's body in bytes as it came over the wire, compressed if the agent compressed it; absent
   * when the agent API did not say.
   */
  bytesIn?: number;
  /** The heartbeat reply's body in bytes. */
  bytesOut?: number;
  firstSight: boolean;
  operationsSent: string[];
}

export interface AckEvent {
  type: "ack";
  version: 1;
  eventId: string;
  tenant: string;
  agentId?: string;
  at: number;
  operationId: string;
  state: AckState;
  details?: string;
  /** Whether the ack closed an operation Beacon was waiting for. */
  matched: boolean;
  /**
   * The acknowledgement's body in bytes as it came over the wire, compressed if the agent compressed it; absent
   * when the agent API did not say.
   */
  bytesIn?: number;
  /** The acknowledgement reply's body in bytes. */
  bytesOut?: number;
}

/** One state change of one operation: created (from absent), delivered, closed. */
export interface OperationEvent {
  type: "operation";
  version: 1;
  eventId: string;
  tenant: string;
  agentId: string;
  /** The agent's class when the operation was created; absent for operations created before Beacon kept it. */
  agentClass?: string;
  at: number;
  operationId: string;
  operation: string;
  operand?: string;
  /** Absent when the operation was created. */
  from?: OperationState;
  state: OperationState;
  ackState?: AckState;
  /** When it became done: by its acknowledgement, or by a heartbeat that showed its effect. */
  confirmedBy?: Confirmation;
  details?: string;
  failureCause?: string;
  reason?: string;
}

/** One state change of one rollout, with its counts at that moment. */
export interface RolloutEvent {
  type: "rollout";
  version: 1;
  eventId: string;
  tenant: string;
  at: number;
  rolloutId: string;
  className: string;
  /** The group, or the agent list's filters, that narrow the class's agents it takes; neither: all of them. */
  group?: string;
  selector?: Record<string, unknown>;
  fromFlow?: string;
  toFlow: string;
  /** Absent when the rollout started. */
  from?: RolloutState;
  state: RolloutState;
  reason?: string;
  /** Who approved or refused it, in the change that did. */
  by?: string;
  counts: RolloutCounts;
}

/**
 * A certificate has entered the expiry warning window: announced once per certificate, by the sweeper, so
 * that whoever looks after the device renews it before the agent is locked out.
 */
export interface CertificateExpiringEvent {
  type: "certificate.expiring";
  version: 1;
  eventId: string;
  tenant: string;
  at: number;
  serial: string;
  kind: "agent" | "fleet";
  agentId?: string;
  fleetName?: string;
  subjectDN: string;
  /** Epoch milliseconds; in the past when the certificate expired before the sweeper could announce it. */
  notAfter: number;
  /** The window it entered: days before notAfter. */
  warningDays: number;
}

/**
 * An agent stayed silent longer than its class's clean-up age: the sweeper dropped its hot state and kept its
 * registry entry as decommissioned, once. It registers again at its next heartbeat.
 */
export interface AgentDecommissionedEvent extends SilentAgentEvent {
  type: "agent.decommissioned";
  /** The clean-up age the decision used: the class's. */
  cleanUpAfterDays: number;
}

/** What the sweeper's events about an agent that went silent share. */
interface SilentAgentEvent {
  version: 1;
  eventId: string;
  tenant: string;
  agentId: string;
  at: number;
  agentClass: string;
  /** Epoch milliseconds: the agent's last heartbeat. */
  lastSeen: number;
}

/**
 * An agent missed its heartbeats for MISSED_HEARTBEATS_OFFLINE times its period: announced once per outage,
 * by the sweeper. Not announced while an operation that restarts the agent is open.
 */
export interface AgentOfflineEvent extends SilentAgentEvent {
  type: "agent.offline";
  /** The heartbeat period the decision used: the one the agent's manifest states, else its class's interval. */
  heartbeatPeriodMs: number;
}

/** An agent announced offline heartbeat again: put on the stream beside that heartbeat's event. */
export interface AgentOnlineEvent {
  type: "agent.online";
  version: 1;
  eventId: string;
  tenant: string;
  agentId: string;
  at: number;
  agentClass?: string;
  /** Epoch milliseconds: the last heartbeat before the outage. */
  lastSeen: number;
}

/**
 * Beacon disabled an event subscription whose receiver kept failing (functions/core/webhooks/policy.ts): put on
 * the stream once, by whoever disabled it, so the tenant's own tools can tell it stopped hearing from Beacon.
 */
export interface WebhookDisabledEvent {
  type: "webhook.disabled";
  version: 1;
  eventId: string;
  tenant: string;
  at: number;
  subscriptionId: string;
  reason: string;
  deliveryId?: string;
}

/**
 * The agent API served an agent content it downloads, answered 200: one event per download, so that usage
 * counts the bytes each tenant's agents downloaded (a 304 or a refusal puts none).
 */
export interface DownloadEvent {
  type: "download";
  version: 1;
  eventId: string;
  tenant: string;
  /** The agent whose certificate downloaded it; absent for a fleet certificate. */
  agentId?: string;
  at: number;
  what: "flow" | "asset" | "debugBundle";
  /** The content's bytes as sent: the response's body; for a link, the object's size. */
  bytesOut: number;
  /** Through a link to the bucket the console API granted an operator, counted when granted. */
  link?: true;
}

/**
 * An agent's upload Beacon stored (a debug bundle the intake took, answered 201): one event per upload, so that
 * usage counts the bytes each tenant's agents uploaded (a refusal puts none).
 */
export interface UploadEvent {
  type: "upload";
  version: 1;
  eventId: string;
  tenant: string;
  /** The agent whose operation the upload answers. */
  agentId: string;
  at: number;
  what: "debugBundle";
  /** The content's bytes as received: the form's part holding it. */
  bytesIn: number;
}

/**
 * Marks an event put on the stream again after a put whose outcome was unknown (the stream may have taken it),
 * or by a relay (a run before it may have): an earlier record may carry the same eventId. The consumers look for
 * that earlier record before they take a marked one (events/copies.ts); an event never marked is the only record
 * of its eventId, or the first.
 */
export interface ResentMark {
  resent?: true;
}

export type BeaconEvent = (
  | HeartbeatEvent
  | AckEvent
  | OperationEvent
  | RolloutEvent
  | CertificateExpiringEvent
  | AgentOfflineEvent
  | AgentOnlineEvent
  | AgentDecommissionedEvent
  | WebhookDisabledEvent
  | DownloadEvent
  | UploadEvent
) &
  ResentMark;

/** The event as put again: marked, so that whoever takes it looks for an earlier record of it first. */
export const resentOf = (event: BeaconEvent): BeaconEvent =>
  event.resent ? event : { ...event, resent: true };

/**
 * Events written in the same transaction as the state change they record (the operation store and the
 * registry's decommissioning stage them in the event outbox): a publish that fails leaves them there, for the
 * relay, and nowhere else.
 */
export type StagedEvent = OperationEvent | AgentDecommissionedEvent;

export const isStagedEvent = (event: BeaconEvent): event is StagedEvent & ResentMark =>
  event.type === "operation" || event.type === "agent.decommissioned";

/** Keeps one agent's events, and one rollout's, in order on one shard. */
export function partitionKeyOf(event: BeaconEvent): string {
  if (event.type === "rollout") return `${event.tenant}/rollout/${event.rolloutId}`;
  if (event.type === "certificate.expiring") return `${event.tenant}/certificate/${event.serial}`;
  if (event.type === "webhook.disabled") return `${event.tenant}/webhook/${event.subscriptionId}`;
  return `${event.tenant}/${event.agentId ?? (event.type === "ack" ? event.operationId : "")}`;
}
