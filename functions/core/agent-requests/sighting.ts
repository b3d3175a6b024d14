/**
 * What a heartbeat tells Beacon of its agent, and what Beacon decides from it: plain values in, plain
 * values out. The heartbeat use case (record-heartbeat.ts) reads and writes around these decisions.
 */

import { errorBulletinsUntil, isBackPressured } from "../agents/attention.js";
import { newErrorBulletins } from "../agents/bulletins.js";
import { checkpointIntervalOf } from "../agents/checkpoint-interval.js";
import type {
  AgentCheckpoint,
  AgentRecord,
  HotSighting,
  HotSightingResult,
  ReportedBefore,
} from "../agents/ports.js";
import type { UnattributedHeartbeat } from "../c2/heartbeat.js";
import { type SupportedOperations, supportedOperationsOf, supports } from "../c2/manifest.js";
import type { C2Operation, DeviceSummary, Heartbeat, ProcessorStatus } from "../c2/model.js";
import { jsonBodyBytes } from "../c2/operations.js";
import { BeaconError } from "../errors.js";
import type { HeartbeatEvent } from "../events/model.js";
import { type AgentCredential, authorizeAgent } from "../identity/credentials.js";
import type { AgentManifest } from "../manifests/agent-manifest.js";
import { CATCH_UP_CREATOR } from "../operations/delivery.js";
import type { SeenEffects } from "../operations/effects.js";
import { newUpdateConfiguration } from "../operations/lifecycle.js";
import type { OperationRecord } from "../operations/model.js";
import type { IdGenerator } from "../ports.js";

/**
 * Beacon's own DESCRIBE MANIFEST, asked while a manifest is unknown, is tracked on the agent's registry
 * entry; its identifiers start with this, which tells its acknowledgement from an operation's, and end
 * with the agent's id as every operation id does (ids.ts).
 */
export const DESCRIBE_ID_PREFIX = "describe-";

/** The class an agent joins when it reports none. */
export const DEFAULT_AGENT_CLASS = "default";

/**
 * What Beacon knows about the agent after this heartbeat: the cache's answer or, without it, the registry's
 * entry under the heartbeat's values.
 */
export interface AgentView extends Omit<HotSightingResult, "previous" | "sequence"> {
  /** The values before this heartbeat, of an agent the registry is known to hold. */
  previous?: ReportedBefore;
  /** The heartbeat's place among its agent's, when the cache recorded it. */
  sequence?: number;
  /** The registry was read already and has no such agent. */
  knownAbsent?: boolean;
}

/** The heartbeat with the agent it speaks for: the one it names, or the agent certificate's own. */
export function attributed(heartbeat: UnattributedHeartbeat, credential: AgentCredential): Heartbeat {
  const agentId = heartbeat.agentId ?? (credential.kind === "agent" ? credential.agentId : undefined);
  if (!agentId)
    throw new BeaconError("invalid_payload", "The heartbeat names no agent (agentInfo.identifier)");
  authorizeAgent(credential, agentId);
  return { ...heartbeat, agentId };
}

/** What the cache records of this heartbeat in its one round trip, with the agent's own checkpoint interval. */
export function sightingOf(
  tenant: string,
  credential: AgentCredential,
  heartbeat: Heartbeat,
  now: number,
  intervals: Pick<HotSighting, "checkpointIntervalMs" | "catchUpRetryMs"> & {
    errorBulletinWindowMs?: number;
  },
): HotSighting {
  return {
    tenant,
    agentId: heartbeat.agentId,
    serialNumber: credential.serialNumber,
    now,
    agentClass: heartbeat.agentClass,
    manifestHash: heartbeat.manifestHash,
    flowId: heartbeat.flowId,
    runStatus: heartbeat.runStatus,
    status: heartbeat.status,
    device: heartbeat.device,
    repositories: heartbeat.repositories,
    queues: heartbeat.queues,
    bulletins: heartbeat.bulletins,
    bulletinsThrough: heartbeat.bulletinIds?.highest,
    errorBulletinsUntil: errorBulletinsUntil(heartbeat.bulletins, now, intervals.errorBulletinWindowMs),
    backPressured: isBackPressured(heartbeat.queues),
    processors: heartbeat.processors,
    resourceHash: heartbeat.resourceHash,
    system: heartbeat.system,
    configurationChecksums: heartbeat.configurationChecksums,
    checkpointIntervalMs: checkpointIntervalOf(heartbeat.agentId, intervals.checkpointIntervalMs),
    catchUpRetryMs: intervals.catchUpRetryMs,
  };
}

/**
 * The agent as the cache's round trip left it. The values the cache held before count only for an agent it
 * knows registered: of another, the registry's entry tells them, if it has one.
 */
export const viewOfSighting = (sighting: HotSightingResult): AgentView =>
  sighting.registered ? sighting : { ...sighting, previous: undefined };

/**
 * The agent as the registry holds it, when the cache could not answer: the heartbeat's values on top. A
 * checkpoint is due once the registry's last-seen time is the agent's checkpoint interval old.
 */
export function viewOfRecord(
  record: AgentRecord | undefined,
  heartbeat: Heartbeat,
  now: number,
  checkpointIntervalMs: number,
): AgentView {
  if (!record) {
    return {
      registered: false,
      agentClass: heartbeat.agentClass,
      manifestHash: heartbeat.manifestHash,
      flowId: heartbeat.flowId,
      checkpointDue: false,
      knownAbsent: true,
    };
  }
  const checkpointDue = now - record.lastSeen >= checkpointIntervalOf(record.agentId, checkpointIntervalMs);
  return {
    registered: true,
    agentClass: heartbeat.agentClass ?? record.agentClass,
    manifestHash: heartbeat.manifestHash ?? record.manifestHash,
    flowId: heartbeat.flowId ?? record.flowId,
    previous: { agentClass: record.agentClass, manifestHash: record.manifestHash, flowId: record.flowId },
    checkpointDue,
    deviceChanged: checkpointDue && deviceChanged(heartbeat.device, record.device),
    describePendingUntil: record.pendingDescribe?.expiresAt,
  };
}

/**
 * The view of an agent the cache had lost, completed from the registry's entry: what a minimized heartbeat
 * left out, the values before it, a checkpoint that is due, and a DESCRIBE still outstanding.
 */
export function withRegistryEntry(
  view: AgentView,
  record: AgentRecord,
  heartbeat: Heartbeat,
  now: number,
  checkpointIntervalMs: number,
): AgentView {
  return {
    ...view,
    agentClass: view.agentClass ?? record.agentClass,
    manifestHash: view.manifestHash ?? record.manifestHash,
    flowId: view.flowId ?? record.flowId,
    previous: { agentClass: record.agentClass, manifestHash: record.manifestHash, flowId: record.flowId },
    checkpointDue:
      view.checkpointDue ||
      now - record.lastSeen >= checkpointIntervalOf(record.agentId, checkpointIntervalMs),
    // The cache, which had lost the agent, held no device to compare with: the registry's says, now.
    deviceChanged: deviceChanged(heartbeat.device, record.device),
    describePendingUntil: view.describePendingUntil ?? record.pendingDescribe?.expiresAt,
  };
}

/** The view with the agent's manifest of the hash it reports, learned now or read from the registry. */
export const withManifest = (view: AgentView, manifest: AgentManifest): AgentView => ({
  ...view,
  manifestId: manifest.manifestId,
  supportedOperations: supportedOperationsOf(manifest.supportedOperations),
});

/** The registry entry of an agent seen for the first time, with the manifest its heartbeat brought. */
export function newAgentRecord(
  tenant: string,
  heartbeat: Heartbeat,
  agentClass: string,
  now: number,
  manifest: AgentManifest | undefined,
): AgentRecord {
  return {
    tenant,
    agentId: heartbeat.agentId,
    agentClass,
    manifestHash: heartbeat.manifestHash,
    manifest,
    flowId: heartbeat.flowId,
    device: heartbeat.device,
    firstSeen: now,
    lastSeen: now,
  };
}

/** Whether the heartbeat reports a device, and another than the one Beacon holds. */
function deviceChanged(reported: DeviceSummary | undefined, held: DeviceSummary | undefined): boolean {
  if (reported === undefined) return false;
  if (held === undefined) return true;
  const fields = new Set([...Object.keys(reported), ...Object.keys(held)] as (keyof DeviceSummary)[]);
  return [...fields].some((field) => reported[field] !== held[field]);
}

/**
 * What a known agent's heartbeat changes in the registry: its profile (with its last-seen time) at once
 * when its class, manifest hash or flow changed or it brought a manifest Beacon learned, and when its
 * device is to be written (`deviceChanged`); else, when a checkpoint is due, its last-seen time alone
 * (`lastSeen`), which the registry keeps apart from the profile and its indexes. A new class is also
 * ensured in the class catalog.
 */
export function registryChange(
  view: AgentView,
  heartbeat: Heartbeat,
  agentClass: string,
  now: number,
  learned: AgentManifest | undefined,
): { classChanged: boolean; checkpoint?: AgentCheckpoint; lastSeen?: number } {
  const previous = view.previous;
  const classChanged = previous !== undefined && previous.agentClass !== agentClass;
  const changed =
    previous === undefined ||
    classChanged ||
    learned !== undefined ||
    view.deviceChanged === true ||
    previous.manifestHash !== view.manifestHash ||
    previous.flowId !== view.flowId;
  if (!changed) return view.checkpointDue ? { classChanged, lastSeen: now } : { classChanged };
  return {
    classChanged,
    checkpoint: {
      lastSeen: now,
      agentClass,
      manifestHash: view.manifestHash,
      manifest: learned,
      flowId: view.flowId,
      device: heartbeat.device,
    },
  };
}

/** Whether to ask for the unknown manifest now: no DESCRIBE MANIFEST is outstanding. */
export const describeDue = (view: AgentView, now: number): boolean => (view.describePendingUntil ?? 0) <= now;

/**
 * The UPDATE CONFIGURATION that brings the agent to its class's flow, when the cache claimed a catch-up
 * for it and its manifest lists the operation.
 */
export function catchUpOf(
  view: AgentView,
  supportedOperations: SupportedOperations | undefined,
  request: {
    tenant: string;
    agentId: string;
    agentApiUrl: string;
    now: number;
    ids: IdGenerator;
  },
): OperationRecord | undefined {
  if (!view.catchUp || !supportedOperations || !supports(supportedOperations, "UPDATE", "CONFIGURATION"))
    return undefined;
  const { hash, flowId } = view.catchUp;
  return newUpdateConfiguration({
    ...request,
    flowHash: hash,
    renderedFlowId: flowId === hash ? undefined : flowId,
    createdBy: CATCH_UP_CREATOR,
    agentClass: view.agentClass,
    ackTimeoutMs: view.catchUp.ackTimeoutMs,
  });
}

/**
 * What the heartbeat shows that can prove operations' effects: a flow id or resource hash it reports anew,
 * and the run statuses in force (the cache's, which fill in what a minimized heartbeat left out, else its
 * own). The registry keeps no resource hash: while the cache is down, a reported one counts as new.
 */
export function seenEffectsOf(view: AgentView, heartbeat: Heartbeat): SeenEffects {
  const { previous } = view;
  const flowChanged = previous !== undefined && view.flowId !== previous.flowId;
  const resourceHash = heartbeat.resourceHash ?? undefined;
  const resourceHashChanged =
    previous !== undefined && resourceHash !== undefined && resourceHash !== previous.resourceHash;
  return {
    newFlowId: flowChanged ? view.flowId : undefined,
    newResourceHash: resourceHashChanged ? resourceHash : undefined,
    runStatus: view.runStatuses?.runStatus ?? heartbeat.runStatus,
    processors: view.runStatuses?.processors ?? heartbeat.processors,
  };
}

/**
 * Whether the heartbeat reads the agent's queue: for a catch-up, when something was queued for the agent
 * or awaits its effect, when it reports a new flow or resource hash (which may prove an UPDATE
 * CONFIGURATION or SYNC RESOURCE whose acknowledgement was lost), or when the cache could not say (it
 * failed, or lost the agent) and the agent is not new. A steady heartbeat does none of these.
 */
export const looksForOperations = (
  view: AgentView,
  looking: {
    catchUp: OperationRecord | undefined;
    markerUnknown: boolean;
    firstSight: boolean;
    seen: SeenEffects;
  },
): boolean =>
  looking.catchUp !== undefined ||
  view.operationsPending !== undefined ||
  looking.seen.newFlowId !== undefined ||
  looking.seen.newResourceHash !== undefined ||
  (looking.markerUnknown && !looking.firstSight);

/** The heartbeat's event on the stream. */
export function heartbeatEvent(
  heartbeat: Heartbeat,
  view: AgentView,
  recorded: { eventId: string; tenant: string; at: number; agentClass: string; firstSight: boolean },
  reply: { requestedOperations: readonly C2Operation[] },
  bytesIn: number | undefined,
): HeartbeatEvent {
  return {
    type: "heartbeat",
    version: 1,
    eventId: recorded.eventId,
    tenant: recorded.tenant,
    agentId: heartbeat.agentId,
    at: recorded.at,
    sequence: view.sequence,
    agentClass: recorded.agentClass,
    manifestHash: view.manifestHash,
    manifestId: view.manifestId,
    flowId: view.flowId,
    runStatus: heartbeat.runStatus,
    processorsByRunStatus: heartbeat.processors && countByRunStatus(heartbeat.processors),
    resourceHash: heartbeat.resourceHash,
    status: heartbeat.status,
    newErrorBulletins: newErrorBulletins(
      heartbeat.bulletinIds,
      heartbeat.status?.errorBulletins,
      view.previousBulletinsThrough,
    ),
    system: heartbeat.system,
    configurationChecksums: heartbeat.configurationChecksums,
    device: heartbeat.device && {
      deviceId: heartbeat.device.deviceId,
      hostname: heartbeat.device.hostname,
    },
    bytesIn,
    bytesOut: jsonBodyBytes(reply),
    firstSight: recorded.firstSight,
    operationsSent: reply.requestedOperations.map((operation) => operation.identifier),
  };
}

/** How many processors report each run status: the event's compact form of the processors' statuses. */
function countByRunStatus(processors: ProcessorStatus[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { runStatus = "UNKNOWN" } of processors) counts[runStatus] = (counts[runStatus] ?? 0) + 1;
  return counts;
}
