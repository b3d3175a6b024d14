/** The C2 payloads as Beacon understands them, after both dialects have been normalised. */

export interface DeviceSummary {
  deviceId?: string;
  hostname?: string;
  ipAddress?: string;
  operatingSystem?: string;
  machineArch?: string;
  vCores?: number;
  physicalMemory?: number;
}

export interface StatusSummary {
  uptime?: number;
  /** Sum over every queue of the flow: a cheap, comparable fill level. */
  queuedFlowFiles?: number;
  queuedBytes?: number;
  queueCount?: number;
  errorBulletins?: number;
  warningBulletins?: number;
  repositoriesFull?: number;
}

/** One content, flowfile or provenance repository; Java and C++ report different subsets. */
export interface RepositoryStatus {
  name: string;
  size?: number;
  maxSize?: number;
  dataSize?: number;
  dataSizeMax?: number;
  entryCount?: number;
  full?: boolean;
  running?: boolean;
}

export interface QueueStatus {
  id: string;
  name?: string;
  size?: number;
  sizeMax?: number;
  dataSize?: number;
  dataSizeMax?: number;
}

export interface Bulletin {
  level?: string;
  message?: string;
  category?: string;
  sourceName?: string;
  timestamp?: number;
}

export interface Heartbeat {
  agentId: string;
  /** The class the agent reports, when it is a valid class name (agents/class-name.ts). */
  agentClass?: string;
  /** A class the agent reported that is no valid class name: ignored, as if it had reported none. */
  refusedAgentClass?: string;
  manifestHash?: string;
  /** Present only in full heartbeats; the raw manifest object as the agent sent it. */
  manifest?: Record<string, unknown>;
  device?: DeviceSummary;
  flowId?: string;
  runStatus?: string;
  status?: StatusSummary;
  /** Details kept only as hot state, for the console; bounded in count and length. */
  repositories?: RepositoryStatus[];
  queues?: QueueStatus[];
  bulletins?: Bulletin[];
}

export const AckStates = [
  "FULLY_APPLIED",
  "PARTIALLY_APPLIED",
  "OPERATION_NOT_UNDERSTOOD",
  "NO_OPERATION",
  "NOT_APPLIED",
] as const;
export type AckState = (typeof AckStates)[number];

export interface Acknowledgement {
  operationId: string;
  state: AckState;
  details?: string;
  failureCause?: string;
  /** The agent the ack speaks for, when the ack names it. */
  agentId?: string;
  manifestHash?: string;
  manifest?: Record<string, unknown>;
  flowId?: string;
}

export interface C2Operation {
  identifier: string;
  operation: string;
  operand?: string;
  args?: Record<string, string>;
  dependencies?: string[];
}
