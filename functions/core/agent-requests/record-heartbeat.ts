import { reportedLabelsOf } from "../agents/label-sources.js";
import type {
  AgentClassRegistry,
  AgentRecord,
  AgentRegistry,
  ClassAgentSettings,
  ClassFlowPolicies,
  HotState,
} from "../agents/ports.js";
import { heartbeatPeriodMsOf, onlineEvent } from "../agents/presence.js";
import { normalizeHeartbeat } from "../c2/heartbeat.js";
import type { C2Operation, Heartbeat } from "../c2/model.js";
import { describeManifest, heartbeatReply, NO_OPERATIONS_REPLY } from "../c2/operations.js";
import { BeaconError } from "../errors.js";
import type { OperationEvent } from "../events/model.js";
import type { EventSink } from "../events/ports.js";
import { publishBefore } from "../events/publishing.js";
import { type CacheBreaker, type GuardedCache, guardedCache } from "../guarded-cache.js";
import { tenantCaCertificateRecord } from "../identity/certificates.js";
import type { AgentCredential } from "../identity/credentials.js";
import type { CertificateStore, RevocationList } from "../identity/ports.js";
import { makeRevocationCheck } from "../identity/revocation.js";
import type { JsonObject } from "../json.js";
import { type AgentManifest, currentManifest, knownManifestOf } from "../manifests/agent-manifest.js";
import type { ManifestRegistration } from "../manifests/registration.js";
import { operationIdOf } from "../operations/ids.js";
import type { OperationLifecycle } from "../operations/lifecycle.js";
import type { ValuesOverClassOf } from "../parameters/over-class.js";
import { type FlowRenderings, ownValuesOf } from "../parameters/rendered-flow-ids.js";
import type { Clock, IdGenerator } from "../ports.js";
import type { ClassLabelSources } from "./class-label-sources.js";
import {
  attributed,
  catchUpOf,
  DEFAULT_AGENT_CLASS,
  DESCRIBE_ID_PREFIX,
  describeDue,
  heartbeatEvent,
  looksForOperations,
  newAgentRecord,
  registryChange,
  seenEffectsOf,
  sightingOf,
  viewOfRecord,
  viewOfSighting,
  withManifest,
  withRegistryEntry,
} from "./sighting.js";

export interface HeartbeatSettings {
  /** How often a steady agent's last-seen time is written to the registry, give or take each agent's jitter. */
  checkpointIntervalMs: number;
  /** How long a DESCRIBE MANIFEST stays outstanding before Beacon asks again. */
  describeRetryMs: number;
  /** Most operations one heartbeat reply carries. */
  maxOperationsPerReply: number;
  /** How long a catch-up sent to an agent holds off the next one, which an agent that failed it gets. */
  catchUpRetryMs: number;
  /** How long an ERROR bulletin holds its agent in need of attention (attention.ts' window unless given). */
  errorBulletinWindowMs?: number;
  /** The agent API's public base URL (`https://host[:port]`), for the flow downloads catch-up sends. */
  agentApiUrl: string;
}

export interface HeartbeatDependencies {
  registry: AgentRegistry;
  revocations: RevocationList;
  /** Where a tenant CA's certificate is recorded when its agent first presents it. */
  certificates: Pick<CertificateStore, "add">;
  classes: AgentClassRegistry;
  classFlows: ClassFlowPolicies;
  /** The container's copy of classes' label sources, shared with its acknowledgements. */
  labelSources: ClassLabelSources;
  /** The class's policy as the cache holds it, its versions rendered with the class's values. */
  renderings: Pick<FlowRenderings, "classFlow">;
  /**
   * The agent's values over its class (its groups' and its own), which the cache keeps once it learns the
   * agent: read as it registers, so a steady heartbeat reads none.
   */
  valuesOverClass: ValuesOverClassOf;
  manifests: ManifestRegistration;
  operations: OperationLifecycle;
  hotState: HotState;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  settings: HeartbeatSettings;
  /** The container's, shared by its requests; without one each request tries the cache afresh. */
  cacheBreaker?: CacheBreaker;
}

export interface HeartbeatOutcome {
  reply: { requestedOperations: C2Operation[] };
  tenant: string;
  agentId: string;
  agentClass: string;
  /** The class the agent reported that is no valid class name, which Beacon ignored. */
  refusedAgentClass?: string;
  firstSight: boolean;
  manifestStored: boolean;
  describeSent: boolean;
  /** The cache failed and the registry answered instead. */
  cacheError?: unknown;
  /** The event could not be put on the stream; the reply still goes out (agents cannot act on errors). */
  streamError?: unknown;
}

/** `answerBy` (epoch ms): when the heartbeat must be answered; `bytesIn`: its body's size on the wire. */
interface RequestContext {
  answerBy?: number;
  bytesIn?: number;
}

export function makeRecordHeartbeat(deps: HeartbeatDependencies) {
  const {
    registry,
    classes,
    classFlows,
    renderings,
    manifests,
    operations: lifecycle,
    hotState,
    events,
    clock,
    ids,
    settings,
  } = deps;
  const revocationCheck = makeRevocationCheck(deps);

  /**
   * `answerBy` (epoch ms): when the heartbeat must be answered, however slowly the stream takes its event. A
   * heartbeat that fails on the way (a backend out of its share of the answer budget) is answered all the
   * same, so its event still goes on the stream, with what the heartbeat itself says; one Beacon refuses (a
   * revoked certificate, say) has none.
   */
  return async function recordHeartbeat(
    credential: AgentCredential,
    body: JsonObject,
    answerBy?: number,
    bytesIn?: number,
  ): Promise<HeartbeatOutcome> {
    const heartbeat = attributed(normalizeHeartbeat(body), credential);
    const now = clock.now();
    try {
      return await recordAccepted(credential, heartbeat, now, { answerBy, bytesIn });
    } catch (error) {
      if (!(error instanceof BeaconError))
        await recordUnfinished(credential.tenant, heartbeat, now, { answerBy, bytesIn });
      throw error;
    }
  };

  /** The event of a heartbeat whose work did not finish: what it says, without what the registry would add. */
  async function recordUnfinished(
    tenant: string,
    heartbeat: Heartbeat,
    now: number,
    request: RequestContext,
  ) {
    const view = viewOfRecord(undefined, heartbeat, now, settings.checkpointIntervalMs);
    const agentClass = heartbeat.agentClass ?? DEFAULT_AGENT_CLASS;
    const event = heartbeatEvent(
      heartbeat,
      view,
      { eventId: ids.newId(), tenant, at: now, agentClass, firstSight: false },
      NO_OPERATIONS_REPLY,
      request.bytesIn,
    );
    await publishBefore(events, [event], request.answerBy, clock.now());
  }

  async function recordAccepted(
    credential: AgentCredential,
    heartbeat: Heartbeat,
    now: number,
    { answerBy, bytesIn }: RequestContext,
  ): Promise<HeartbeatOutcome> {
    const { agentId } = heartbeat;
    const tenant = credential.tenant;
    const cache = guardedCache(deps.cacheBreaker);

    const sighting = sightingOf(tenant, credential, heartbeat, now, settings);
    const recordSighting = () => cache.attempt(() => hotState.recordSighting(sighting));
    let outcome = await recordSighting();
    if (!outcome?.recorded) {
      await revocationCheck.assertNotRevoked(credential, cache, outcome?.revocation);
      // The cache lacked the tenant's revocation list, which it holds now: record the sighting after all.
      if (outcome) outcome = await recordSighting();
    }
    // The registry's entry, when this heartbeat reads it: the cache failed, or lost the agent.
    let record: AgentRecord | undefined = outcome?.recorded ? undefined : await registry.get(tenant, agentId);
    let view = outcome?.recorded
      ? viewOfSighting(outcome.sighting)
      : viewOfRecord(record, heartbeat, now, settings.checkpointIntervalMs);
    let firstSight = false;
    /** The manifest learned, once the agent's registration holds it: a new agent's entry. */
    const registeredWith = (learned: AgentManifest | undefined) =>
      firstSight && learned ? knownManifestOf(learned) : undefined;
    // Without the cache's word (it failed, or lost the agent) the pending marker is unknown: look at the queue.
    const markerUnknown = !outcome?.recorded || !view.registered;

    /** Reads the agent's registry entry into the view, when the registry holds the agent. */
    const readRegistryEntry = async () => {
      record = await registry.get(tenant, agentId);
      if (!record) return;
      const known = withRegistryEntry(view, record, heartbeat, now, settings.checkpointIntervalMs);
      const pendingUntil = known.describePendingUntil;
      if (pendingUntil !== undefined && view.describePendingUntil === undefined)
        await cache.attempt(() => hotState.rememberDescribe(tenant, agentId, pendingUntil));
      view = known;
    };
    // An agent new to the cache that brings its manifest is almost always new to Beacon (a herd of agents
    // started at once): its registration's conditional put comes first, and only an agent the registry holds
    // already (the cache lost it) costs the read of its entry as well.
    const registersFirst = !view.registered && !view.knownAbsent && heartbeat.manifest !== undefined;
    if (!view.registered && !view.knownAbsent && !registersFirst) await readRegistryEntry();

    // The manifest of the hash the agent reports, when the cache does not know it.
    const hash = view.manifestHash;
    const {
      manifest,
      learned,
      stored: manifestStored,
    } = hash && !view.supportedOperations
      ? await manifestOf(tenant, agentId, hash, heartbeat, {
          record,
          // The cache lost it, or failed when it was learned; while a DESCRIBE is outstanding its ack brings it.
          lookUp: !markerUnknown && describeDue(view, now),
          now,
          cache,
        })
      : { stored: false };
    if (manifest) view = withManifest(view, manifest);

    // Read once, by whichever needs it first: the labels of a manifest learned, the class's flow unknown.
    let classSettings: Promise<ClassAgentSettings> | undefined;
    const settingsOf = (agentClass: string) => {
      classSettings ??= classFlows.settingsOf(tenant, agentClass).then((settings) => {
        // The acknowledgement of the DESCRIBE this heartbeat may send reads them then.
        deps.labelSources.remember(tenant, agentClass, settings.labelSources ?? [], now);
        return settings;
      });
      return classSettings;
    };
    // Only a manifest the heartbeat brought and Beacon learned says what the class's sources read.
    const reportedLabels = async (agentClass: string) => {
      if (!learned || !heartbeat.manifest) return undefined;
      const sources = await deps.labelSources.of(tenant, agentClass, now, () => settingsOf(agentClass));
      return reportedLabelsOf(sources, { device: heartbeat.device, manifest: heartbeat.manifest });
    };

    if (!view.registered) {
      // The entry the agent's groups are matched against: the one registered now, else the registry's (read
      // for the values when some group holds any and it was not read already).
      let entry = record;
      let registered: Awaited<ReturnType<AgentRegistry["register"]>> | undefined;
      if (!record) {
        const agentClass = view.agentClass ?? DEFAULT_AGENT_CLASS;
        const registration = {
          ...newAgentRecord(tenant, heartbeat, agentClass, now, learned),
          reportedLabels: await reportedLabels(agentClass),
        };
        registered = await registry.register(registration);
        firstSight = registered !== "exists";
        if (!firstSight && registersFirst) await readRegistryEntry();
        entry = firstSight ? registration : record;
      }
      // An agent new to the registry has no values of its own: no read of them for a herd of new agents.
      const ownValues = ownValuesOf(
        await deps.valuesOverClass(tenant, agentId, entry, {
          neverRegistered: registered === "created",
          groupsVersion: outcome?.recorded ? outcome.sighting.groupsVersion : undefined,
          cacheUnanswered: outcome === undefined,
        }),
      );
      const { pin, assignment } = record ?? {};
      const entryClass = view.agentClass ?? record?.agentClass ?? DEFAULT_AGENT_CLASS;
      // The class, also when the cache lost the agent: it may have lost the tenant's classes with it (a flush),
      // and the sweeper finds the tenant's silent agents only through them. The manifest the agent registered
      // with goes along, the registry holding it now; one the registry learns later is remembered then.
      const newToCache = await cache.attempt(() =>
        hotState.markRegistered(tenant, agentId, {
          now,
          ownValues,
          pin,
          assignment,
          agentClass: entryClass,
          manifest: registeredWith(learned),
        }),
      );
      if (newToCache !== false) await ensureClassEntry(tenant, agentId, entryClass, now, cache);
    }

    // A tenant CA's certificate new to the agent, as the cache's round trip tells: recorded once per agent and
    // certificate (again only once the cache loses the agent), never while the cache is down.
    const { tenantCa } = credential;
    if (tenantCa && outcome?.recorded && !outcome.sighting.certificateRecorded) {
      const validity = tenantCa.validity();
      if (validity) {
        await deps.certificates.add(tenantCaCertificateRecord(credential, tenantCa, validity, now));
        await cache.attempt(() => hotState.rememberCertificate(tenant, agentId, credential.serialNumber));
      }
    }

    const agentClass = view.agentClass ?? DEFAULT_AGENT_CLASS;
    if (!firstSight) {
      const change = registryChange(view, heartbeat, agentClass, now, learned);
      if (change.classChanged) await ensureClass(tenant, agentId, agentClass, now, cache);
      if (change.checkpoint)
        await registry.checkpoint(tenant, agentId, {
          ...change.checkpoint,
          reportedLabels: await reportedLabels(agentClass),
        });
      if (change.lastSeen !== undefined) await registry.recordSeen(tenant, agentId, change.lastSeen);
    }

    const operations: C2Operation[] = [];
    const supportedOperations = view.supportedOperations;
    // Once the registry has it: the cache's copy is what spares the next heartbeats any registry request.
    if (manifest) {
      // A new agent's went with its registration.
      if (!registeredWith(learned)) await manifests.remember(tenant, agentId, manifest, cache);
    } else if (hash && !supportedOperations && describeDue(view, now)) {
      const describe = await requestDescribe(tenant, agentId, now, cache);
      if (describe) operations.push(describe);
    }

    if (view.classFlowUnknown) {
      // Loaded for the next heartbeat, whose one round trip claims the catch-up if one is due.
      const loaded = await settingsOf(agentClass);
      const period = heartbeatPeriodMsOf(loaded);
      const policy = loaded.policy && (await renderings.classFlow(tenant, agentClass, loaded.policy));
      await cache.attempt(() => hotState.rememberClassFlow(tenant, agentClass, policy, period));
    }
    // Only the cache's one round trip claims a catch-up: while the cache is down (the registry answered)
    // no agent is caught up, and none costs a registry request for it; they are once the cache is back.
    const catchUp = catchUpOf(view, supportedOperations, {
      tenant,
      agentId,
      agentApiUrl: settings.agentApiUrl,
      now,
      ids,
    });

    const operationEvents: OperationEvent[] = [];
    const seen = seenEffectsOf(view, heartbeat);
    if (looksForOperations(view, { catchUp, markerUnknown, firstSight, seen }) && supportedOperations) {
      const delivery = await lifecycle.deliver(
        tenant,
        agentId,
        supportedOperations,
        settings.maxOperationsPerReply - operations.length,
        { ensure: catchUp, seen },
      );
      operations.push(...delivery.operations);
      operationEvents.push(...delivery.events);
      const version = view.operationsPending;
      if (!delivery.remaining && version !== undefined)
        await cache.attempt(() => hotState.clearOperationsPending(tenant, agentId, version));
      // Without the cache the agent's restart goes unremembered: its silence may be announced, as any other.
      const deadline = delivery.restartDeadline;
      if (deadline !== undefined)
        await cache.attempt(() => hotState.rememberRestart(tenant, agentId, deadline));
    }

    const reply = heartbeatReply(operations, { supportedOperations });
    const event = heartbeatEvent(
      heartbeat,
      view,
      { eventId: ids.newId(), tenant, at: now, agentClass, firstSight },
      reply,
      bytesIn,
    );
    // An agent the sweeper announced offline is back: said in the heartbeat's own put on the stream.
    const online =
      view.offlineLastSeen === undefined
        ? []
        : [onlineEvent({ eventId: ids.newId(), tenant, agentId, at: now, agentClass }, view.offlineLastSeen)];
    const streamError = await publishBefore(
      events,
      [event, ...online, ...operationEvents],
      answerBy,
      clock.now(),
    );

    return {
      reply,
      tenant,
      agentId,
      agentClass,
      refusedAgentClass: heartbeat.refusedAgentClass,
      firstSight,
      manifestStored,
      describeSent: operations.some((operation) => operation.identifier.startsWith(DESCRIBE_ID_PREFIX)),
      cacheError: cache.error,
      streamError,
    };
  }

  /**
   * The manifest of `hash`: the one the heartbeat brings, registered (and `learned`, for the registry), or
   * the registry's: the entry the heartbeat read already, or, for `lookUp`, a read of it.
   */
  async function manifestOf(
    tenant: string,
    agentId: string,
    hash: string,
    heartbeat: Heartbeat,
    context: { record: AgentRecord | undefined; lookUp: boolean; now: number; cache: GuardedCache },
  ): Promise<{ manifest?: AgentManifest; learned?: AgentManifest; stored: boolean }> {
    const { now, cache } = context;
    if (heartbeat.manifest) {
      const registration = await manifests.register(tenant, hash, heartbeat.manifest, now, cache);
      return { manifest: registration.manifest, learned: registration.manifest, stored: registration.stored };
    }
    const record = context.lookUp ? await registry.get(tenant, agentId) : context.record;
    return { manifest: currentManifest(record?.manifest, hash), stored: false };
  }

  async function ensureClass(
    tenant: string,
    agentId: string,
    agentClass: string,
    now: number,
    cache: GuardedCache,
  ) {
    const newToCache = await cache.attempt(() => hotState.rememberClass(tenant, agentClass));
    if (newToCache !== false) await ensureClassEntry(tenant, agentId, agentClass, now, cache);
  }

  /**
   * The class's registry entry, for a class the agent taught the cache. Should its write fail,
   * the cache forgets the registration and the class again: knowing them, it would spare the agent's later
   * heartbeats the write that is missing.
   */
  async function ensureClassEntry(
    tenant: string,
    agentId: string,
    agentClass: string,
    now: number,
    cache: GuardedCache,
  ) {
    try {
      await classes.ensure(tenant, agentClass, now);
    } catch (error) {
      await cache.attempt(() => hotState.forgetRegistration(tenant, agentId, agentClass));
      throw error;
    }
  }

  async function requestDescribe(tenant: string, agentId: string, now: number, cache: GuardedCache) {
    const operationId = operationIdOf(`${DESCRIBE_ID_PREFIX}${ids.newId()}`, agentId);
    const expiresAt = now + settings.describeRetryMs;
    const claimed = await registry.beginDescribe(tenant, agentId, operationId, now, expiresAt);
    // Unclaimed, another DESCRIBE is outstanding that the cache had lost track of: the cache holds off
    // the next attempt for a window too, so the registry is not asked again on every heartbeat.
    await cache.attempt(() => hotState.rememberDescribe(tenant, agentId, expiresAt));
    return claimed ? describeManifest(operationId) : undefined;
  }
}
