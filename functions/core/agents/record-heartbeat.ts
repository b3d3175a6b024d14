import { normalizeHeartbeat } from "../c2/heartbeat.js";
import type { JsonObject } from "../c2/json.js";
import { type SupportedOperations, supports } from "../c2/manifest.js";
import type { C2Operation, Heartbeat } from "../c2/model.js";
import { describeManifest, heartbeatReply } from "../c2/operations.js";
import { BeaconError } from "../errors.js";
import type { HeartbeatEvent, OperationEvent } from "../events/model.js";
import type { EventSink } from "../events/ports.js";
import type { ClassFlowPolicies } from "../flows/ports.js";
import { type GuardedCache, guardedCache } from "../guarded-cache.js";
import { type AgentCredential, authorizeAgent } from "../identity/credentials.js";
import type { RevocationList } from "../identity/ports.js";
import { makeRevocationCheck } from "../identity/revocation.js";
import type { ManifestRegistration } from "../manifests/registration.js";
import { newUpdateConfiguration, type OperationLifecycle } from "../operations/lifecycle.js";
import type { Clock, IdGenerator } from "../ports.js";
import type {
  AgentClassRegistry,
  AgentRecord,
  AgentRegistry,
  HotSighting,
  HotSightingResult,
  HotState,
} from "./ports.js";

/**
 * Beacon's own DESCRIBE MANIFEST, asked while a manifest is unknown, is tracked on the agent's registry
 * entry; its identifiers start with this, which tells its acknowledgement from an operation's.
 */
export const DESCRIBE_ID_PREFIX = "describe-";

/** The class an agent joins when it reports none. */
export const DEFAULT_AGENT_CLASS = "default";

/** Who created the UPDATE CONFIGURATION that brings an agent to its class's flow. */
export const CATCH_UP_CREATOR = "beacon:catch-up";

export interface HeartbeatSettings {
  /** How often a steady agent's last-seen time is written to the registry. */
  checkpointIntervalMs: number;
  /** How long a DESCRIBE MANIFEST stays outstanding before Beacon asks again. */
  describeRetryMs: number;
  /** Most operations one heartbeat reply carries. */
  maxOperationsPerReply: number;
  /** How long a catch-up sent to an agent holds off the next one, which an agent that failed it gets. */
  catchUpRetryMs: number;
  /** The agent API's public base URL (`https://host[:port]`), for the flow downloads catch-up sends. */
  agentApiUrl: string;
}

export interface HeartbeatDependencies {
  registry: AgentRegistry;
  revocations: RevocationList;
  classes: AgentClassRegistry;
  classFlows: ClassFlowPolicies;
  manifests: ManifestRegistration;
  operations: OperationLifecycle;
  hotState: HotState;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  settings: HeartbeatSettings;
}

export interface HeartbeatOutcome {
  reply: { requestedOperations: C2Operation[] };
  tenant: string;
  agentId: string;
  agentClass: string;
  firstSight: boolean;
  manifestStored: boolean;
  describeSent: boolean;
  /** The cache failed and the registry answered instead. */
  cacheError?: unknown;
  /** The event could not be put on the stream; the reply still goes out (agents cannot act on errors). */
  streamError?: unknown;
}

/** What Beacon knows about the agent after this heartbeat, from the cache or, without it, the registry. */
interface AgentView {
  registered: boolean;
  agentClass?: string;
  manifestHash?: string;
  flowId?: string;
  previous?: { agentClass?: string; manifestHash?: string; flowId?: string };
  supportedOperations?: SupportedOperations;
  checkpointDue: boolean;
  describePendingUntil?: number;
  /** The registry was read already and has no such agent. */
  knownAbsent?: boolean;
  /** The pending-operation marker's version, when the cache holds one. */
  operationsPending?: string;
  /** The cache claimed a catch-up for the agent: the flow to send it. */
  catchUp?: HotSightingResult["catchUp"];
  /** The cache holds no copy of the class's flow policy. */
  classFlowUnknown?: boolean;
}

export function makeRecordHeartbeat(deps: HeartbeatDependencies) {
  const {
    registry,
    classes,
    classFlows,
    manifests,
    operations: lifecycle,
    hotState,
    events,
    clock,
    ids,
    settings,
  } = deps;
  const revocationCheck = makeRevocationCheck(deps);

  return async function recordHeartbeat(
    credential: AgentCredential,
    body: JsonObject,
  ): Promise<HeartbeatOutcome> {
    const parsed = normalizeHeartbeat(body);
    const agentId = parsed.agentId ?? (credential.kind === "agent" ? credential.agentId : undefined);
    if (!agentId)
      throw new BeaconError("invalid_payload", "The heartbeat names no agent (agentInfo.identifier)");
    authorizeAgent(credential, agentId);
    const heartbeat: Heartbeat = { ...parsed, agentId };
    const tenant = credential.tenant;
    const now = clock.now();
    const cache = guardedCache();

    const recordSighting = () =>
      cache.attempt(() => hotState.recordSighting(sightingOf(tenant, credential, heartbeat, now)));
    let outcome = await recordSighting();
    if (!outcome?.recorded) {
      await revocationCheck.assertNotRevoked(credential, cache, outcome?.revocation);
      // The cache lacked the tenant's revocation list, which it holds now: record the sighting after all.
      if (outcome) outcome = await recordSighting();
    }
    const view = outcome?.recorded
      ? viewOf(outcome.sighting)
      : await viewFromRegistry(tenant, heartbeat, now);
    let firstSight = false;
    // Without the cache's word (it failed, or lost the agent) the pending marker is unknown: look at the queue.
    const markerUnknown = !outcome?.recorded || !view.registered;

    if (!view.registered) {
      const existing = view.knownAbsent ? undefined : await registry.get(tenant, agentId);
      if (existing) {
        view.agentClass ??= existing.agentClass;
        view.manifestHash ??= existing.manifestHash;
        view.flowId ??= existing.flowId;
        view.previous = {
          agentClass: existing.agentClass,
          manifestHash: existing.manifestHash,
          flowId: existing.flowId,
        };
        view.checkpointDue ||= now - existing.lastSeen >= settings.checkpointIntervalMs;
        const pendingUntil = existing.pendingDescribe?.expiresAt;
        if (pendingUntil !== undefined && view.describePendingUntil === undefined) {
          view.describePendingUntil = pendingUntil;
          await cache.attempt(() => hotState.rememberDescribe(tenant, agentId, pendingUntil));
        }
      } else {
        const agentClass = view.agentClass ?? DEFAULT_AGENT_CLASS;
        firstSight = (await registry.register(newRecord(tenant, heartbeat, agentClass, now))) === "created";
        await ensureClass(tenant, agentClass, now, cache);
      }
      await cache.attempt(() => hotState.markRegistered(tenant, agentId, now));
    }

    const agentClass = view.agentClass ?? DEFAULT_AGENT_CLASS;
    if (!firstSight) {
      const previous = view.previous;
      const classChanged = previous !== undefined && previous.agentClass !== agentClass;
      const changed =
        previous === undefined ||
        classChanged ||
        previous.manifestHash !== view.manifestHash ||
        previous.flowId !== view.flowId;
      if (classChanged) await ensureClass(tenant, agentClass, now, cache);
      if (changed || view.checkpointDue) {
        await registry.checkpoint(tenant, agentId, {
          lastSeen: now,
          agentClass,
          manifestHash: view.manifestHash,
          flowId: view.flowId,
          device: heartbeat.device,
        });
      }
    }

    const operations: C2Operation[] = [];
    let manifestStored = false;
    let supportedOperations = view.supportedOperations;
    if (view.manifestHash && !supportedOperations) {
      const hash = view.manifestHash;
      if (heartbeat.manifest) {
        const registration = await manifests.register(tenant, hash, heartbeat.manifest, now);
        supportedOperations = registration.supportedOperations;
        manifestStored = registration.stored;
      } else {
        supportedOperations = await manifests.lookup(tenant, hash);
      }
      if (supportedOperations) {
        const known = supportedOperations;
        await cache.attempt(() => hotState.rememberManifest(tenant, hash, known));
      } else if ((view.describePendingUntil ?? 0) <= now) {
        const describe = await requestDescribe(tenant, agentId, now, cache);
        if (describe) operations.push(describe);
      }
    }

    if (view.classFlowUnknown) {
      // Loaded for the next heartbeat, whose one round trip claims the catch-up if one is due.
      const policy = await classFlows.policyOf(tenant, agentClass);
      await cache.attempt(() => hotState.rememberClassFlow(tenant, agentClass, policy));
    }
    // Only the cache's one round trip claims a catch-up: while the cache is down (the registry answered)
    // no agent is caught up, and none costs a registry request for it; they are once the cache is back.
    const catchUp =
      view.catchUp && supportedOperations && supports(supportedOperations, "UPDATE", "CONFIGURATION")
        ? newUpdateConfiguration({
            tenant,
            agentId,
            flowId: view.catchUp.flowId,
            agentApiUrl: settings.agentApiUrl,
            createdBy: CATCH_UP_CREATOR,
            now,
            ids,
            ackTimeoutMs: view.catchUp.ackTimeoutMs,
          })
        : undefined;

    const operationEvents: OperationEvent[] = [];
    const lookForOperations =
      catchUp !== undefined || view.operationsPending !== undefined || (markerUnknown && !firstSight);
    if (lookForOperations && supportedOperations) {
      const delivery = await lifecycle.deliver(
        tenant,
        agentId,
        supportedOperations,
        settings.maxOperationsPerReply - operations.length,
        catchUp,
      );
      operations.push(...delivery.operations);
      operationEvents.push(...delivery.events);
      const version = view.operationsPending;
      if (!delivery.remaining && version !== undefined)
        await cache.attempt(() => hotState.clearOperationsPending(tenant, agentId, version));
    }

    const reply = heartbeatReply(operations, { supportedOperations });
    const event: HeartbeatEvent = {
      type: "heartbeat",
      version: 1,
      eventId: ids.newId(),
      tenant,
      agentId,
      at: now,
      agentClass,
      manifestHash: view.manifestHash,
      flowId: view.flowId,
      runStatus: heartbeat.runStatus,
      status: heartbeat.status,
      device: heartbeat.device && {
        deviceId: heartbeat.device.deviceId,
        hostname: heartbeat.device.hostname,
      },
      firstSight,
      operationsSent: reply.requestedOperations.map((operation) => operation.identifier),
    };
    let streamError: unknown;
    try {
      await events.publish([event, ...operationEvents]);
    } catch (error) {
      streamError = error;
    }

    return {
      reply,
      tenant,
      agentId,
      agentClass,
      firstSight,
      manifestStored,
      describeSent: operations.some((operation) => operation.identifier.startsWith(DESCRIBE_ID_PREFIX)),
      cacheError: cache.error,
      streamError,
    };
  };

  function sightingOf(
    tenant: string,
    credential: AgentCredential,
    heartbeat: Heartbeat,
    now: number,
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
      checkpointIntervalMs: settings.checkpointIntervalMs,
      catchUpRetryMs: settings.catchUpRetryMs,
    };
  }

  async function viewFromRegistry(tenant: string, heartbeat: Heartbeat, now: number): Promise<AgentView> {
    const record = await registry.get(tenant, heartbeat.agentId);
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
    return {
      registered: true,
      agentClass: heartbeat.agentClass ?? record.agentClass,
      manifestHash: heartbeat.manifestHash ?? record.manifestHash,
      flowId: heartbeat.flowId ?? record.flowId,
      previous: { agentClass: record.agentClass, manifestHash: record.manifestHash, flowId: record.flowId },
      checkpointDue: now - record.lastSeen >= settings.checkpointIntervalMs,
      describePendingUntil: record.pendingDescribe?.expiresAt,
    };
  }

  async function ensureClass(tenant: string, agentClass: string, now: number, cache: GuardedCache) {
    const newToCache = await cache.attempt(() => hotState.rememberClass(tenant, agentClass));
    if (newToCache !== false) await classes.ensure(tenant, agentClass, now);
  }

  async function requestDescribe(tenant: string, agentId: string, now: number, cache: GuardedCache) {
    const operationId = `${DESCRIBE_ID_PREFIX}${ids.newId()}`;
    const expiresAt = now + settings.describeRetryMs;
    const claimed = await registry.beginDescribe(tenant, agentId, operationId, now, expiresAt);
    // Unclaimed, another DESCRIBE is outstanding that the cache had lost track of: the cache holds off
    // the next attempt for a window too, so the registry is not asked again on every heartbeat.
    await cache.attempt(() => hotState.rememberDescribe(tenant, agentId, expiresAt));
    return claimed ? describeManifest(operationId) : undefined;
  }
}

function viewOf(sighting: HotSightingResult): AgentView {
  return {
    registered: sighting.registered,
    agentClass: sighting.agentClass,
    manifestHash: sighting.manifestHash,
    flowId: sighting.flowId,
    previous: sighting.registered
      ? {
          agentClass: sighting.previousAgentClass,
          manifestHash: sighting.previousManifestHash,
          flowId: sighting.previousFlowId,
        }
      : undefined,
    supportedOperations: sighting.supportedOperations,
    checkpointDue: sighting.checkpointDue,
    describePendingUntil: sighting.describePendingUntil,
    operationsPending: sighting.operationsPending,
    catchUp: sighting.catchUp,
    classFlowUnknown: sighting.classFlowUnknown,
  };
}

function newRecord(tenant: string, heartbeat: Heartbeat, agentClass: string, now: number): AgentRecord {
  return {
    tenant,
    agentId: heartbeat.agentId,
    agentClass,
    manifestHash: heartbeat.manifestHash,
    flowId: heartbeat.flowId,
    device: heartbeat.device,
    firstSeen: now,
    lastSeen: now,
  };
}
