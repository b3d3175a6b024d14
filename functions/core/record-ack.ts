import { isAppliedState, normalizeAcknowledgement } from "./c2/ack.js";
import type { JsonObject } from "./c2/json.js";
import type { Acknowledgement } from "./c2/model.js";
import { BeaconError } from "./errors.js";
import type { AckEvent } from "./events.js";
import { type GuardedCache, guardedCache } from "./guarded-cache.js";
import { type AgentCredential, authorizeAgent } from "./identity.js";
import type { ManifestRegistration } from "./manifest-registration.js";
import type { AgentRegistry, Clock, EventSink, HotState, IdGenerator, RevocationList } from "./ports.js";
import { makeRevocationCheck } from "./revocation.js";

export interface AckDependencies {
  registry: AgentRegistry;
  revocations: RevocationList;
  manifests: ManifestRegistration;
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
  const { registry, manifests, hotState, events, clock, ids } = deps;
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

    const { matched, manifestStored } = agentId
      ? await closeDescribe(tenant, agentId, ack, now, cache)
      : { matched: false, manifestStored: false };

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
      await events.publish([event]);
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
    const hash = ack.manifestHash ?? record.manifestHash;
    let manifestStored = false;
    if (hash && ack.manifest) {
      const registration = await manifests.register(tenant, hash, ack.manifest, now);
      manifestStored = registration.stored;
      await cache.attempt(() => hotState.rememberManifest(tenant, hash, registration.supportedOperations));
    }
    const matched = await registry.completeDescribe(tenant, agentId, ack.operationId, hash);
    await cache.attempt(() => hotState.rememberDescribe(tenant, agentId, undefined));
    return { matched, manifestStored };
  }
}
