import { reportedLabelsOf } from "../agents/label-sources.js";
import type { Labels } from "../agents/labels.js";
import type { AgentRegistry, ClassFlowPolicies, HotState } from "../agents/ports.js";
import type { DebugBundleStore } from "../bundles/ports.js";
import { isAppliedState, normalizeAcknowledgement } from "../c2/ack.js";
import type { Acknowledgement, DeviceSummary } from "../c2/model.js";
import { ACK_REPLY, jsonBodyBytes } from "../c2/operations.js";
import { BeaconError } from "../errors.js";
import type { AckEvent, BeaconEvent, OperationEvent } from "../events/model.js";
import type { EventSink } from "../events/ports.js";
import { publishBefore } from "../events/publishing.js";
import { type CacheBreaker, type GuardedCache, guardedCache } from "../guarded-cache.js";
import { type AgentCredential, authorizeAgent } from "../identity/credentials.js";
import type { RevocationList } from "../identity/ports.js";
import { makeRevocationCheck } from "../identity/revocation.js";
import type { JsonObject } from "../json.js";
import type { ManifestRegistration } from "../manifests/registration.js";
import { awaitsEffect } from "../operations/effects.js";
import { agentOfOperation } from "../operations/ids.js";
import type { OperationLifecycle } from "../operations/lifecycle.js";
import type { OperationChange, OperationRecord } from "../operations/model.js";
import type { OperationResultStore } from "../operations/ports.js";
import { describeAnswerOf } from "../operations/results.js";
import { isTransferDebug } from "../operations/transfer-debug.js";
import type { Clock, IdGenerator } from "../ports.js";
import type { ClassLabelSources } from "./class-label-sources.js";
import { DESCRIBE_ID_PREFIX } from "./sighting.js";

export interface AckDependencies {
  registry: AgentRegistry;
  /** Where the class's agents' reported labels come from, read with a manifest an ack brings. */
  classFlows: ClassFlowPolicies;
  /** The container's copy of classes' label sources, shared with its heartbeats. */
  labelSources: ClassLabelSources;
  revocations: RevocationList;
  manifests: ManifestRegistration;
  operations: OperationLifecycle;
  hotState: HotState;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  /** Where the answers DESCRIBE acknowledgements bring are kept, and for how long the console serves them. */
  results: OperationResultStore;
  /** The debug bundles agents uploaded, which a TRANSFER DEBUG's acknowledgement must find to be done. */
  debugBundles: Pick<DebugBundleStore, "get">;
  resultRetentionMs: number;
  /** The container's, shared by its requests; without one each request tries the cache afresh. */
  cacheBreaker?: CacheBreaker;
}

/** What an operation records of the answer its acknowledgement brought, and why it could not be kept. */
interface KeptAnswer {
  change: Pick<OperationChange, "result" | "resultLost">;
  error?: unknown;
}

export interface AckOutcome {
  tenant: string;
  agentId?: string;
  operationId: string;
  /** The ack closed an operation Beacon was waiting for, or moved it on to await its effect. */
  matched: boolean;
  manifestStored: boolean;
  /** The size of the answer the ack brought, kept for the console (results.ts). */
  resultBytes?: number;
  /**
   * The ack brought an answer that could not be kept: the operation closed all the same, its result marked
   * lost, for the caller to count and log.
   */
  resultError?: unknown;
  cacheError?: unknown;
  /**
   * The ack's state change is saved, but its events did not reach the stream: they are here, for the
   * caller to log so that they can be recovered. The ack is still accepted: agents never send one twice.
   */
  streamError?: unknown;
  unpublished?: BeaconEvent[];
}

/**
 * The agent an acknowledgement is for: the one its operation id names (ids.ts) or, for an id Beacon did
 * not make, the one the ack or an agent certificate names. Where the ack or the certificate names an
 * agent, it must be that one: 403 identity_mismatch, before anything is recorded.
 */
function agentOfAck(ack: Acknowledgement, credential: AgentCredential): string | undefined {
  const certified = credential.kind === "agent" ? credential.agentId : undefined;
  const agentId = agentOfOperation(ack.operationId) ?? ack.agentId ?? certified;
  if (agentId === undefined) return undefined;
  authorizeAgent(credential, agentId);
  if (ack.agentId !== undefined && ack.agentId !== agentId)
    throw new BeaconError(
      "identity_mismatch",
      "The acknowledgement names another agent than its operation's",
    );
  return agentId;
}

/**
 * Records an acknowledgement. Agents send each at most once (Java drops one that failed, C++ does not
 * queue it again), so nothing may fail once its state change is saved: whatever can refuse it (identity,
 * revocation, a manifest that cannot be stored, the registry itself) does so before, and an event that
 * could not be put on the stream after it is handed back, not thrown. Its cost: one consistent read of the
 * operation and one conditional update, or none for an id that names no agent; an ack that brings a manifest
 * adds its registration (registration.ts) and one update of the agent's record, one that brings a DESCRIBE's
 * answer one put of the answer (results.ts), before the update, and an applied TRANSFER DEBUG one read of its
 * stored bundle (bundles/), and one that closes an operation one cache call (usually one round trip; two
 * when the agent changed class since the operation was queued) keeping the attention index of failed
 * operations. An answer that cannot be kept does not refuse
 * the ack: the agent would not send it again, so the operation closes with its result marked lost.
 */
export function makeRecordAck(deps: AckDependencies) {
  const { registry, manifests, operations, hotState, events, clock, ids, results } = deps;
  const revocationCheck = makeRevocationCheck(deps);

  /** `answerBy` (epoch ms): when the ack must be answered, however slowly the stream takes its events. */
  return async function recordAck(
    credential: AgentCredential,
    body: JsonObject,
    answerBy?: number,
    bytesIn?: number,
  ): Promise<AckOutcome> {
    const ack = normalizeAcknowledgement(body);
    if (!ack)
      throw new BeaconError(
        "invalid_payload",
        "The acknowledgement needs an operationId and a known operationState.state",
      );
    const agentId = agentOfAck(ack, credential);
    const tenant = credential.tenant;
    const now = clock.now();
    const cache = guardedCache(deps.cacheBreaker);
    await revocationCheck.assertNotRevoked(credential, cache);

    const { matched, manifestStored, operationEvents, kept } = !agentId
      ? { matched: false, manifestStored: false, operationEvents: [], kept: undefined }
      : ack.operationId.startsWith(DESCRIBE_ID_PREFIX)
        ? { ...(await closeDescribe(tenant, agentId, ack, now, cache)), operationEvents: [], kept: undefined }
        : await closeOperation(tenant, agentId, ack, body, now, cache);

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
      bytesIn,
      bytesOut: jsonBodyBytes(ACK_REPLY),
    };
    const published = [event, ...operationEvents];
    const streamError = await publishBefore(events, published, answerBy, clock.now());
    return {
      tenant,
      agentId,
      operationId: ack.operationId,
      matched,
      manifestStored,
      ...(matched && kept?.change.result ? { resultBytes: kept.change.result.bytes } : {}),
      ...(matched && kept?.error !== undefined ? { resultError: kept.error } : {}),
      cacheError: cache.error,
      ...(streamError === undefined ? {} : { streamError, unpublished: published }),
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
    const labels = registration && (await reportedLabels(tenant, record.agentClass, ack, record.device));
    const matched = await registry.completeDescribe(
      tenant,
      agentId,
      ack.operationId,
      registration?.manifest,
      labels,
    );
    if (matched && registration) await manifests.remember(tenant, agentId, registration.manifest, cache);
    await cache.attempt(() => hotState.rememberDescribe(tenant, agentId, undefined));
    return { matched, manifestStored: registration?.stored ?? false };
  }

  /**
   * The labels the class's sources read from the manifest an ack brought, with the device the registry holds
   * (only a C++ ack reports its own).
   */
  async function reportedLabels(
    tenant: string,
    agentClass: string,
    ack: Acknowledgement,
    device: DeviceSummary | undefined,
  ): Promise<Labels | undefined> {
    if (!ack.manifest) return undefined;
    const sources = await deps.labelSources.of(tenant, agentClass, clock.now(), () =>
      deps.classFlows.settingsOf(tenant, agentClass),
    );
    return reportedLabelsOf(sources, { device, manifest: ack.manifest });
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
    body: JsonObject,
    now: number,
    cache: GuardedCache,
  ): Promise<{
    matched: boolean;
    manifestStored: boolean;
    operationEvents: OperationEvent[];
    kept?: KeptAnswer;
  }> {
    const record = await operations.find(tenant, ack.operationId, agentId);
    if (record?.state !== "delivered") return { matched: false, manifestStored: false, operationEvents: [] };
    const applied = isAppliedState(ack.state);
    // Both before the state change: a manifest that cannot be kept refuses the ack while it changes nothing.
    const manifestStored = applied ? await keepManifest(tenant, agentId, ack, now, cache) : false;
    // The answer is put before the state change records it: should the change then fail, or lose a race, the
    // answer is an object no operation names, which the store's lifecycle deletes.
    const answer = applied ? describeAnswerOf(record, body) : undefined;
    const kept = answer ? await keepAnswer(record, answer, now) : undefined;
    const bundle = applied && isTransferDebug(record) ? await storedBundle(record) : undefined;
    // The agent's next heartbeats look at its operations until one shows the effect: marked before the state
    // changes, so that no heartbeat in between misses it, and again after it, because a heartbeat in between
    // found the operation not yet awaiting its effect and cleared the marker. Without the cache, the sweeper
    // closes the operation when its time is up, unless a heartbeat answered from the registry (which always
    // looks) saw the effect.
    const watched = applied && awaitsEffect(record, ack.dialect);
    if (watched) await cache.attempt(() => hotState.markOperationsPending(tenant, agentId));
    const { events: operationEvents } = await operations.acknowledge(record, ack, {
      ...kept?.change,
      bundle,
    });
    if (watched) await cache.attempt(() => hotState.markOperationsPending(tenant, agentId));
    const closed = operationEvents.find((event) => event.operationId === ack.operationId);
    // The attention index of failed operations: in for a failure, out for one the agent carried out (one
    // awaiting its effect included: should the effect not show, its timeout puts the agent back in).
    if (closed)
      await cache.attempt(() =>
        hotState.recordOperationOutcome(tenant, agentId, record.agentClass, closed.state === "failed", now),
      );
    return { matched: closed !== undefined, manifestStored, operationEvents, kept };
  }

  /** What a TRANSFER DEBUG records of the bundle its agent uploaded before acknowledging; undefined without one. */
  async function storedBundle(record: OperationRecord): Promise<OperationChange["bundle"]> {
    const bundle = await deps.debugBundles.get(record.tenant, record.operationId);
    return bundle && { bytes: bundle.bytes, storedAt: bundle.storedAt, expiresAt: bundle.expiresAt };
  }

  /** Puts a DESCRIBE's answer in the result store; what the operation records of it, kept or lost. */
  async function keepAnswer(record: OperationRecord, answer: JsonObject, now: number): Promise<KeptAnswer> {
    const bytes = new TextEncoder().encode(JSON.stringify(answer));
    try {
      await results.put(record.tenant, record.operationId, bytes);
      return {
        change: { result: { bytes: bytes.length, storedAt: now, expiresAt: now + deps.resultRetentionMs } },
      };
    } catch (error) {
      return { change: { resultLost: true }, error };
    }
  }

  /** The manifest of a DESCRIBE MANIFEST asked for through the console: registered, and kept with the agent. */
  async function keepManifest(
    tenant: string,
    agentId: string,
    ack: Acknowledgement,
    now: number,
    cache: GuardedCache,
  ): Promise<boolean> {
    const registration = await registerManifest(tenant, ack.manifestHash, ack, now, cache);
    if (!registration) return false;
    // Its class and device, for the labels: a DESCRIBE asked through the console is rare enough to read them.
    const agent = await registry.get(tenant, agentId);
    const labels = agent && (await reportedLabels(tenant, agent.agentClass, ack, agent.device));
    if (await registry.recordManifest(tenant, agentId, registration.manifest, labels))
      await manifests.remember(tenant, agentId, registration.manifest, cache);
    return registration.stored;
  }
}
