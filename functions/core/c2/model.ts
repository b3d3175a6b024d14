import type { JsonObject } from "../json.js";

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
  /** Queues at their object or size limit: their upstream processors are held back. */
  backPressuredQueues?: number;
}

/** The host's load as the agent reported it (`deviceInfo.systemInfo`). */
export interface SystemLoad {
  /** Fraction of all cores in use, 0 to 1. */
  cpuUtilization?: number;
  cpuLoadAverage?: number;
  /** Bytes of memory in use. */
  memoryUsage?: number;
}

/** One processor's run status, upper-cased (C++ before 0.99.1 reports `Running`, later `RUNNING`). */
export interface ProcessorStatus {
  id: string;
  runStatus?: string;
}

/** C++ `configurationChecksums`: per algorithm, each configuration file's digest (drift detection). */
export type ConfigurationChecksums = Record<string, Record<string, string>>;

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
  /** At its object or size limit; absent when the agent reports no limit. */
  backPressure?: boolean;
}

/**
 * The ids of the bulletins a heartbeat lists: agents number their bulletins in order (from 1 again when they
 * restart) and list each again in every heartbeat while they keep it (NiFi keeps one five minutes).
 */
export interface BulletinIds {
  /** The highest id listed; absent when no bulletin carries one. */
  highest?: number;
  /** The ids of the ERROR bulletins listed, those that carry one. */
  errors: number[];
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
  /** Upper-cased: `RUNNING` or `STOPPED`. */
  runStatus?: string;
  status?: StatusSummary;
  /** Details kept only as hot state, for the console; bounded in count and length. */
  repositories?: RepositoryStatus[];
  queues?: QueueStatus[];
  bulletins?: Bulletin[];
  /** What tells a bulletin listed again from a new one (bulletins.ts); absent when the heartbeat lists none. */
  bulletinIds?: BulletinIds;
  processors?: ProcessorStatus[];
  /** `resourceInfo.hash`: the digest of the last SYNC RESOURCE; null when the agent holds none (C++ "null"). */
  resourceHash?: string | null;
  system?: SystemLoad;
  configurationChecksums?: ConfigurationChecksums;
}

export const AckStates = [
  "FULLY_APPLIED",
  "PARTIALLY_APPLIED",
  "OPERATION_NOT_UNDERSTOOD",
  "NO_OPERATION",
  "NOT_APPLIED",
] as const;
export type AckState = (typeof AckStates)[number];

/**
 * Which agent wrote an acknowledgement, told by its shape: the C++ agent adds `"operation": "acknowledge"`,
 * the Java library never does. It matters because the C++ agent acknowledges some operations FULLY_APPLIED
 * whatever happened.
 */
export type AckDialect = "cpp" | "java";

export interface Acknowledgement {
  operationId: string;
  dialect: AckDialect;
  state: AckState;
  details?: string;
  failureCause?: string;
  /** The agent the ack speaks for, when the ack names it. */
  agentId?: string;
  manifestHash?: string;
  manifest?: Record<string, unknown>;
  flowId?: string;
}

/**
 * An operation's args as sent. Agents take strings only (`"true"`, not `true`: Java reads anything else as
 * absent), except the object form SYNC RESOURCE documents: `globalHash` an object and `resourceList` an
 * array of objects (MiNiFi Java 2.0 and later, C++).
 */
export type OperationArgs = Record<string, string | JsonObject | JsonObject[]>;

export interface C2Operation {
  identifier: string;
  operation: string;
  operand?: string;
  args?: OperationArgs;
  dependencies?: string[];
}
