import { isAppliedState, normalizeAcknowledgement } from "../c2/ack.js";
import type { JsonObject } from "../c2/json.js";
import type { Acknowledgement } from "../c2/model.js";
import { BeaconError } from "../errors.js";
import type { AckEvent, OperationEvent } from "../events/model.js";
import type { EventSink } from "../events/ports.js";
import { type GuardedCache, guardedCache } from "../guarded-cache.js";
import { type AgentCredential, authorizeAgent } from "../identity/credentials.js";
import type { RevocationList } from "../identity/ports.js";
import { makeRevocationCheck } from "../identity/revocation.js";
import type { ManifestRegistration } from "../manifests/registration.js";
import type { OperationLifecycle } from "../operations/lifecycle.js";
import type { Clock, IdGenerator } from "../ports.js";
import type { AgentRegistry, HotState } from "./ports.js";
import { DESCRIBE_ID_PREFIX } from "./sighting.js";

export interface AckDependencies {
  registry: AgentRegistry;
  revocations: RevocationList;
  manifests: ManifestRegistration;
  operations: OperationLifecycle;
  hotState: HotState;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
}

export interface AckOutcome {
  tenant: string;
  agentId?: string;
  operationId: string;
  /** The ack closed an operation Beacon was waiting for. */
  matched: boolean;
  manifestStored: boolean;
  cacheError?: unknown;
}

/**
 * Records an acknowledgement. Its state change is in the registry before this resolves; the event
 * must reach the stream too, or the ack is refused (stream_unavailable) so that the agent sends it
 * again — a repeated ack changes nothing, the conditional writes see to that.
 */
export function makeRecordAck(deps: AckDependencies) {
  const { registry, manifests, operations, hotState, events, clock, ids } = deps;
  const revocationCheck = makeRevocationCheck(deps);

  return async function recordAck(credential: AgentCredential, body: JsonObject): Promise<AckOutcome> {
    const ack = normalizeAcknowledgement(body);
    if (!ack)
      throw new BeaconError(
        "invalid_payload",
        "The acknowledgement needs an operationId and a known operationState.state",
      );
    const agentId = ack.agentId ?? (credential.kind === "agent" ? credential.agentId : undefined);
    if (agentId) authorizeAgent(credential, agentId);
    const tenant = credential.tenant;
    const now = clock.now();
    const cache = guardedCache();
    await revocationCheck.assertNotRevoked(credential, cache);

    const { matched, manifestStored, operationEvents } = !agentId
      ? { matched: false, manifestStored: false, operationEvents: [] }
      : ack.operationId.startsWith(DESCRIBE_ID_PREFIX)
        ? { ...(await closeDescribe(tenant, agentId, ack, now, cache)), operationEvents: [] }
        : await closeOperation(tenant, agentId, ack, now, cache);

    const event: AckEvent = {
      type: "ack",
      version: 1,
      eventId: ids.newId(),
      tenant,
      agentId,
      at: now,
      operationId: ack.operationId,
      state: ack.state,
      details: ack.details,
      matched,
    };
    try {
      await events.publish([event, ...operationEvents]);
    } catch (error) {
      throw new BeaconError(
        "stream_unavailable",
        `The acknowledgement could not be recorded on the stream: ${String(error)}`,
      );
    }
    return {
      tenant,
      agentId,
      operationId: ack.operationId,
      matched,
      manifestStored,
      cacheError: cache.error,
    };
  };

  async function closeDescribe(
    tenant: string,
    agentId: string,
    ack: Acknowledgement,
    now: number,
    cache: GuardedCache,
  ): Promise<{ matched: boolean; manifestStored: boolean }> {
    const record = await registry.get(tenant, agentId);
    if (!record || record.pendingDescribe?.operationId !== ack.operationId)
      return { matched: false, manifestStored: false };
    // A DESCRIBE the agent could not carry out stays outstanding until it expires, then Beacon asks again.
    if (!isAppliedState(ack.state)) return { matched: true, manifestStored: false };
    const registration = await registerManifest(
      tenant,
      ack.manifestHash ?? record.manifestHash,
      ack,
      now,
      cache,
    );
    const matched = await registry.completeDescribe(tenant, agentId, ack.operationId, registration?.manifest);
    if (matched && registration) await manifests.remember(tenant, agentId, registration.manifest, cache);
    await cache.attempt(() => hotState.rememberDescribe(tenant, agentId, undefined));
    return { matched, manifestStored: registration?.stored ?? false };
  }

  /** The manifest a DESCRIBE MANIFEST's ack brings, Beacon's own or one asked for through the console. */
  async function registerManifest(
    tenant: string,
    hash: string | undefined,
    ack: Acknowledgement,
    now: number,
    cache: GuardedCache,
  ) {
    if (!hash || !ack.manifest) return undefined;
    return manifests.register(tenant, hash, ack.manifest, now, cache);
  }

  async function closeOperation(
    tenant: string,
    agentId: string,
    ack: Acknowledgement,
    now: number,
    cache: GuardedCache,
  ): Promise<{ matched: boolean; manifestStored: boolean; operationEvents: OperationEvent[] }> {
    const { events: operationEvents } = await operations.acknowledge(tenant, agentId, ack);
    const closed = operationEvents.find((event) => event.operationId === ack.operationId);
    const registration =
      closed?.state === "done"
        ? await registerManifest(tenant, ack.manifestHash, ack, now, cache)
        : undefined;
    if (registration && (await registry.recordManifest(tenant, agentId, registration.manifest)))
      await manifests.remember(tenant, agentId, registration.manifest, cache);
    return { matched: closed !== undefined, manifestStored: registration?.stored ?? false, operationEvents };
  }
}
