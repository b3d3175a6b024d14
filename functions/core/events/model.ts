import type { AckState, DeviceSummary, StatusSummary } from "../c2/model.js";
import type { OperationState } from "../operations/model.js";
import type { RolloutCounts, RolloutState } from "../rollouts/model.js";

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
  agentClass?: string;
  manifestHash?: string;
  /** The canonical identity of the agent's binary, when Beacon knows the manifest of `manifestHash`. */
  manifestId?: string;
  flowId?: string;
  runStatus?: string;
  status?: StatusSummary;
  device?: Pick<DeviceSummary, "deviceId" | "hostname">;
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
}

/** One state change of one operation: created (from absent), delivered, closed. */
export interface OperationEvent {
  type: "operation";
  version: 1;
  eventId: string;
  tenant: string;
  agentId: string;
  at: number;
  operationId: string;
  operation: string;
  operand?: string;
  /** Absent when the operation was created. */
  from?: OperationState;
  state: OperationState;
  ackState?: AckState;
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
  fromFlow?: string;
  toFlow: string;
  /** Absent when the rollout started. */
  from?: RolloutState;
  state: RolloutState;
  reason?: string;
  counts: RolloutCounts;
}

export type BeaconEvent = HeartbeatEvent | AckEvent | OperationEvent | RolloutEvent;

/** Keeps one agent's events, and one rollout's, in order on one shard. */
export function partitionKeyOf(event: BeaconEvent): string {
  if (event.type === "rollout") return `${event.tenant}/rollout/${event.rolloutId}`;
  return `${event.tenant}/${event.agentId ?? (event.type === "ack" ? event.operationId : "")}`;
}
