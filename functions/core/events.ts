import type { AckState, DeviceSummary, StatusSummary } from "./c2/model.js";

/**
 * Compact records of what agents said, one per accepted heartbeat or ack, for analysis downstream.
 * Never a manifest: only its hash. Shapes are fixed by schemas/events/*.json.
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

export type BeaconEvent = HeartbeatEvent | AckEvent;

/** Keeps one agent's events in order on one shard. */
export const partitionKeyOf = (event: BeaconEvent): string =>
  `${event.tenant}/${event.agentId ?? (event.type === "ack" ? event.operationId : "")}`;
