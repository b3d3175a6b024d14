import type {
  AgentCheckpoint,
  AgentClassRegistry,
  AgentRecord,
  AgentRegistry,
  HotSighting,
  HotSightingResult,
  HotState,
  SightingOutcome,
} from "../../core/agents/ports.js";
import type { OverdueAgent, PresenceState } from "../../core/agents/presence.js";
import { DEFAULT_HEARTBEAT_INTERVAL_SECONDS, MISSED_HEARTBEATS_OFFLINE } from "../../core/agents/status.js";
import type { ManifestSummary, SupportedOperations } from "../../core/c2/manifest.js";
import type { ProcessorStatus } from "../../core/c2/model.js";
import type { BeaconEvent, OperationEvent, OperationState } from "../../core/events/model.js";
import type { EventBuffer, EventOutbox, EventSink } from "../../core/events/ports.js";
import { type ClassFlowPolicy, isAcceptedFlow } from "../../core/flows/policy.js";
import type { ClassFlowPolicies } from "../../core/flows/ports.js";
import type { CachedRevocation, RevocationList } from "../../core/identity/ports.js";
import { dropUndefined } from "../../core/json.js";
import type { AgentManifest, KnownManifest } from "../../core/manifests/agent-manifest.js";
import type { ManifestStore } from "../../core/manifests/ports.js";
import { isFinal, type OperationChange, type OperationRecord } from "../../core/operations/model.js";
import type { OperationQuery, OperationResultStore, OperationStore } from "../../core/operations/ports.js";
import type { Clock, IdGenerator } from "../../core/ports.js";
import { pageOf } from "./paging.js";

/** In-process stand-ins for the ports, for core unit tests only. Each counts its calls. */

export class MemoryAgentRegistry implements AgentRegistry {
  readonly records = new Map<string, AgentRecord>();
  calls = 0;

  async get(tenant: string, agentId: string) {
    this.calls++;
    const record = this.records.get(`${tenant}/${agentId}`);
    return record && structuredClone(record);
  }

  async register(record: AgentRecord) {
    this.calls++;
    const key = `${record.tenant}/${record.agentId}`;
    if (this.records.has(key)) return "exists" as const;
    this.records.set(key, structuredClone(record));
    return "created" as const;
  }

  /** As the table's upsert: an agent the registry lost is written back, first seen at this checkpoint. */
  async checkpoint(tenant: string, agentId: string, checkpoint: AgentCheckpoint) {
    this.calls++;
    const key = `${tenant}/${agentId}`;
    const record =
      this.records.get(key) ?? ({ tenant, agentId, firstSeen: checkpoint.lastSeen } as AgentRecord);
    this.records.set(key, { ...record, ...structuredClone(dropUndefined(checkpoint)) });
  }

  /** Kept in the record: reads give the later time, as the table's separate item does. */
  async recordSeen(tenant: string, agentId: string, lastSeen: number) {
    this.calls++;
    const record = this.records.get(`${tenant}/${agentId}`);
    if (record) record.lastSeen = Math.max(record.lastSeen, lastSeen);
  }

  async beginDescribe(tenant: string, agentId: string, operationId: string, now: number, expiresAt: number) {
    this.calls++;
    const record = this.records.get(`${tenant}/${agentId}`);
    if (!record || (record.pendingDescribe && record.pendingDescribe.expiresAt > now)) return false;
    record.pendingDescribe = { operationId, expiresAt };
    return true;
  }

  async completeDescribe(
    tenant: string,
    agentId: string,
    operationId: string,
    manifest: AgentManifest | undefined,
  ) {
    this.calls++;
    const record = this.records.get(`${tenant}/${agentId}`);
    if (!record || record.pendingDescribe?.operationId !== operationId) return false;
    record.pendingDescribe = undefined;
    if (manifest) record.manifest = structuredClone(manifest);
    return true;
  }

  async recordManifest(tenant: string, agentId: string, manifest: AgentManifest) {
    this.calls++;
    const record = this.records.get(`${tenant}/${agentId}`);
    if (record) record.manifest = structuredClone(manifest);
    return record !== undefined;
  }
}

export class MemoryRevocationList implements RevocationList {
  readonly revoked = new Map<string, Set<string>>();
  calls = 0;

  revoke(tenant: string, serial: string) {
    this.revoked.set(tenant, new Set([...(this.revoked.get(tenant) ?? []), serial]));
  }

  async revokedSerials(tenant: string) {
    this.calls++;
    return [...(this.revoked.get(tenant) ?? [])];
  }

  async isRevoked(tenant: string, serial: string) {
    this.calls++;
    return this.revoked.get(tenant)?.has(serial) ?? false;
  }
}

export class MemoryAgentClassRegistry implements AgentClassRegistry {
  readonly classes = new Map<string, number>();
  calls = 0;

  async ensure(tenant: string, agentClass: string, now: number) {
    this.calls++;
    const key = `${tenant}/${agentClass}`;
    if (!this.classes.has(key)) this.classes.set(key, now);
  }
}

export class MemoryManifestStore implements ManifestStore {
  readonly manifests = new Map<string, { json: string; summary: ManifestSummary }>();
  calls = 0;
  writes = 0;
  /** As a table that refuses writes: core's tests see what a manifest that cannot be stored changes. */
  failing = false;

  async has(tenant: string, manifestId: string) {
    this.calls++;
    return this.manifests.has(`${tenant}/${manifestId}`);
  }

  async store(tenant: string, manifestId: string, contentJson: string, summary: ManifestSummary) {
    this.calls++;
    if (this.failing) throw new Error("manifest store unavailable");
    this.writes++;
    const key = `${tenant}/${manifestId}`;
    if (this.manifests.has(key)) return "exists" as const;
    this.manifests.set(key, { json: contentJson, summary: structuredClone(summary) });
    return "stored" as const;
  }

  async read(tenant: string, manifestId: string) {
    this.calls++;
    return this.manifests.get(`${tenant}/${manifestId}`)?.json;
  }
}

interface HotAgent {
  registered: boolean;
  agentClass?: string;
  manifestHash?: string;
  flowId?: string;
  runStatus?: string;
  processors?: ProcessorStatus[];
  resourceHash?: string | null;
  bulletinsThrough?: number;
  /** As JSON, as the cache compares it. */
  device?: string;
  /** The device changed since the agent's last checkpoint. */
  deviceChanged?: boolean;
  lastCheckpoint: number;
  describePendingUntil?: number;
  manifest?: KnownManifest;
  lastSeen?: number;
  /** The last sighting's sequence. */
  sequence?: number;
}

export class MemoryHotState implements HotState, PresenceState {
  readonly agents = new Map<string, HotAgent>();
  readonly classes = new Set<string>();
  /** By tenant: the binaries whose content the cache knows to be stored. */
  readonly storedManifests = new Map<string, Set<string>>();
  /** Pending-operation markers by tenant/agent: the version, bumped by every queueing. */
  readonly pendingOperations = new Map<string, number>();
  /** Per tenant; a tenant without an entry has no revocation list in the cache yet. */
  readonly revocationLists = new Map<string, Set<string>>();
  /** By tenant/class; a class without an entry was never loaded, one mapped to undefined has no policy. */
  readonly classFlows = new Map<string, ClassFlowPolicy | undefined>();
  /** Catch-up claims by tenant/agent: the flow sent, held off until the time given. */
  readonly catchUps = new Map<string, { flowId: string; until: number }>();
  /** Agents marked offline by tenant/agent: their last seen when marked. */
  readonly offlineMarks = new Map<string, number>();
  /** Agents restarting for an operation, by tenant/agent: when the restart should be over. */
  readonly restarts = new Map<string, number>();
  /** By tenant/class, beside its flow policy: the period its agents are held to unless they state theirs. */
  readonly classPeriods = new Map<string, number>();
  /** Agents not announced offline, by tenant/agent: when they become overdue, and what the sweep tells. */
  readonly offlineDue = new Map<string, { at: number } & Omit<OverdueAgent, "agentId">>();
  /** Tenants whose agents silent since before scheduling were all scheduled. */
  readonly tenantsScheduled = new Set<string>();
  /** By tenant/class: how many of the class's agents by last seen the scheduling of silent agents read. */
  private readonly schedulingRead = new Map<string, number>();
  roundTrips = 0;
  /** Set to make every call fail, as a cache outage would. */
  down = false;

  private touch() {
    this.roundTrips++;
    if (this.down) throw new Error("cache is down");
  }

  private revocation(tenant: string, serial: string): CachedRevocation {
    const list = this.revocationLists.get(tenant);
    if (!list) return "unknown";
    return list.has(serial) ? "revoked" : "clear";
  }

  async recordSighting(sighting: HotSighting): Promise<SightingOutcome> {
    this.touch();
    const revocation = this.revocation(sighting.tenant, sighting.serialNumber);
    if (revocation !== "clear") return { recorded: false, revocation };
    const key = `${sighting.tenant}/${sighting.agentId}`;
    const agent = this.agents.get(key) ?? { registered: false, lastCheckpoint: 0 };
    const previous = { ...agent };
    agent.agentClass = sighting.agentClass ?? agent.agentClass;
    agent.manifestHash = sighting.manifestHash ?? agent.manifestHash;
    agent.flowId = sighting.flowId ?? agent.flowId;
    agent.runStatus = sighting.runStatus ?? agent.runStatus;
    agent.processors = sighting.processors ?? agent.processors;
    if (sighting.resourceHash !== undefined) agent.resourceHash = sighting.resourceHash;
    agent.bulletinsThrough = sighting.bulletinsThrough ?? agent.bulletinsThrough;
    const device = sighting.device && JSON.stringify(sighting.device);
    if (agent.registered && device !== undefined && device !== agent.device) agent.deviceChanged = true;
    agent.device = device ?? agent.device;
    agent.lastSeen = sighting.now;
    agent.sequence = (agent.sequence ?? 0) + 1;
    const offlineLastSeen = this.offlineMarks.get(key);
    this.offlineMarks.delete(key);
    this.restarts.delete(key);
    const pending = this.pendingOperations.get(key)?.toString();
    const checkpointDue =
      agent.registered && sighting.now - agent.lastCheckpoint >= sighting.checkpointIntervalMs;
    const deviceChanged = checkpointDue && agent.deviceChanged === true;
    if (checkpointDue) {
      agent.lastCheckpoint = sighting.now;
      agent.deviceChanged = false;
    }
    this.agents.set(key, agent);
    const manifest =
      agent.manifestHash !== undefined && agent.manifest?.hash === agent.manifestHash
        ? agent.manifest
        : undefined;
    if (agent.agentClass !== undefined) this.scheduleOffline(sighting, agent.agentClass, manifest);
    const supportedOperations = manifest && structuredClone(manifest.supportedOperations);
    const result: HotSightingResult = {
      ...this.classFlowOf(sighting, agent, supportedOperations),
      registered: agent.registered,
      agentClass: agent.agentClass,
      manifestHash: agent.manifestHash,
      flowId: agent.flowId,
      previous: {
        agentClass: previous.agentClass,
        manifestHash: previous.manifestHash,
        flowId: previous.flowId,
        resourceHash: previous.resourceHash ?? undefined,
      },
      previousBulletinsThrough: previous.bulletinsThrough,
      manifestId: manifest?.manifestId,
      supportedOperations,
      checkpointDue,
      deviceChanged,
      sequence: agent.sequence,
      describePendingUntil: agent.describePendingUntil,
      operationsPending: pending,
      offlineLastSeen,
      runStatuses:
        pending && (agent.runStatus || agent.processors)
          ? structuredClone({ runStatus: agent.runStatus, processors: agent.processors })
          : undefined,
    };
    return { recorded: true, sighting: result };
  }

  /**
   * As the script: the agent is overdue MISSED_HEARTBEATS_OFFLINE periods from now, its own, else its
   * class's, else the one it was held to before, else Beacon's default.
   */
  private scheduleOffline(sighting: HotSighting, agentClass: string, manifest: KnownManifest | undefined) {
    const key = `${sighting.tenant}/${sighting.agentId}`;
    const heartbeatPeriodMs =
      manifest?.heartbeatPeriodMs ??
      this.classPeriods.get(`${sighting.tenant}/${agentClass}`) ??
      this.offlineDue.get(key)?.heartbeatPeriodMs ??
      DEFAULT_HEARTBEAT_INTERVAL_SECONDS * 1000;
    const lastSeen = sighting.now;
    const at = lastSeen + MISSED_HEARTBEATS_OFFLINE * heartbeatPeriodMs;
    this.offlineDue.set(key, { at, heartbeatPeriodMs, lastSeen, agentClass });
  }

  /** As the script: asks for the class's policy until it is loaded; claims catch-up for a flow it rejects. */
  private classFlowOf(
    sighting: HotSighting,
    agent: HotAgent,
    supportedOperations: SupportedOperations | undefined,
  ): Pick<HotSightingResult, "catchUp" | "classFlowUnknown"> {
    if (agent.agentClass === undefined) return { classFlowUnknown: false };
    const classKey = `${sighting.tenant}/${agent.agentClass}`;
    if (!this.classFlows.has(classKey)) return { classFlowUnknown: true };
    const policy = this.classFlows.get(classKey);
    const known = { classFlowUnknown: false };
    if (!policy || !supportedOperations || isAcceptedFlow(policy, agent.flowId)) return known;
    const claimKey = `${sighting.tenant}/${sighting.agentId}`;
    const claim = this.catchUps.get(claimKey);
    if (claim && claim.flowId === policy.target && claim.until > sighting.now) return known;
    this.catchUps.set(claimKey, { flowId: policy.target, until: sighting.now + sighting.catchUpRetryMs });
    return { ...known, catchUp: dropUndefined({ flowId: policy.target, ackTimeoutMs: policy.ackTimeoutMs }) };
  }

  async revocationOf(tenant: string, serial: string) {
    this.touch();
    return this.revocation(tenant, serial);
  }

  async rememberRevocations(tenant: string, serials: string[]) {
    this.touch();
    this.revocationLists.set(tenant, new Set(serials));
  }

  async markRegistered(tenant: string, agentId: string, now: number) {
    this.touch();
    const agent = this.agents.get(`${tenant}/${agentId}`) ?? { registered: false, lastCheckpoint: 0 };
    agent.registered = true;
    agent.lastCheckpoint = now;
    this.agents.set(`${tenant}/${agentId}`, agent);
  }

  async rememberClass(tenant: string, agentClass: string) {
    this.touch();
    const key = `${tenant}/${agentClass}`;
    const isNew = !this.classes.has(key);
    this.classes.add(key);
    return isNew;
  }

  async rememberAgentManifest(tenant: string, agentId: string, manifest: KnownManifest) {
    this.touch();
    const key = `${tenant}/${agentId}`;
    const agent = this.agents.get(key) ?? { registered: false, lastCheckpoint: 0 };
    agent.manifest = structuredClone(manifest);
    this.agents.set(key, agent);
    const due = this.offlineDue.get(key);
    const heartbeatPeriodMs = manifest.heartbeatPeriodMs;
    if (due && heartbeatPeriodMs !== undefined && agent.manifestHash === manifest.hash)
      this.offlineDue.set(key, {
        ...due,
        at: due.lastSeen + MISSED_HEARTBEATS_OFFLINE * heartbeatPeriodMs,
        heartbeatPeriodMs,
      });
  }

  async isManifestStored(tenant: string, manifestId: string) {
    this.touch();
    return this.storedManifests.get(tenant)?.has(manifestId) ?? false;
  }

  async rememberManifestStored(tenant: string, manifestId: string) {
    this.touch();
    this.storedManifests.set(tenant, new Set([...(this.storedManifests.get(tenant) ?? []), manifestId]));
  }

  /** As the cache's hash: noted for an agent it has not seen yet too, which its first sighting then reads. */
  async rememberDescribe(tenant: string, agentId: string, pendingUntil: number | undefined) {
    this.touch();
    const key = `${tenant}/${agentId}`;
    const agent = this.agents.get(key) ?? { registered: false, lastCheckpoint: 0 };
    agent.describePendingUntil = pendingUntil;
    this.agents.set(key, agent);
  }

  /** What the console does when it queues an operation for the agent, and an ack that awaits its effect. */
  async markOperationsPending(tenant: string, agentId: string) {
    this.touch();
    const key = `${tenant}/${agentId}`;
    this.pendingOperations.set(key, (this.pendingOperations.get(key) ?? 0) + 1);
  }

  async clearOperationsPending(tenant: string, agentId: string, version: string) {
    this.touch();
    const key = `${tenant}/${agentId}`;
    if (this.pendingOperations.get(key)?.toString() === version) this.pendingOperations.delete(key);
  }

  async rememberRestart(tenant: string, agentId: string, deadline: number) {
    this.touch();
    this.restarts.set(`${tenant}/${agentId}`, deadline);
  }

  async rememberClassFlow(
    tenant: string,
    className: string,
    policy: ClassFlowPolicy | undefined,
    heartbeatPeriodMs: number,
  ) {
    this.touch();
    this.classFlows.set(`${tenant}/${className}`, policy && structuredClone(policy));
    this.classPeriods.set(`${tenant}/${className}`, heartbeatPeriodMs);
  }

  async tenants() {
    this.touch();
    return [...new Set([...this.classes].map((key) => key.slice(0, key.indexOf("/"))))];
  }

  /**
   * As the script: the tenant's agents overdue before `now`, earliest first; one restarting for an
   * operation is scheduled for three periods after its restart's deadline instead, while that is not over.
   */
  async markOverdue(tenant: string, now: number, limit: number) {
    this.touch();
    const taken = [...this.offlineDue]
      .filter(([key, due]) => key.startsWith(`${tenant}/`) && due.at < now)
      .sort(([keyA, a], [keyB, b]) => a.at - b.at || keyA.localeCompare(keyB))
      .slice(0, limit);
    const marked: OverdueAgent[] = [];
    for (const [key, { at: _, ...due }] of taken) {
      const restartOver = this.restarts.get(key);
      const allowance =
        restartOver === undefined
          ? undefined
          : restartOver + MISSED_HEARTBEATS_OFFLINE * due.heartbeatPeriodMs;
      if (allowance !== undefined && allowance >= now) {
        this.offlineDue.set(key, { ...due, at: allowance });
        continue;
      }
      this.offlineDue.delete(key);
      this.restarts.delete(key);
      if (this.offlineMarks.has(key)) continue;
      this.offlineMarks.set(key, due.lastSeen);
      marked.push({ agentId: key.slice(tenant.length + 1), ...due });
    }
    return { marked, more: taken.length >= limit };
  }

  async allScheduled(tenant: string) {
    this.touch();
    return this.tenantsScheduled.has(tenant);
  }

  /** As the script: the class's agents by last seen from where it stopped; those neither scheduled nor marked. */
  async scheduleSilent(tenant: string, className: string, heartbeatPeriodMs: number, limit: number) {
    this.touch();
    const classKey = `${tenant}/${className}`;
    const from = this.schedulingRead.get(classKey) ?? 0;
    const agents = [...this.agents]
      .filter(
        ([key, agent]) =>
          key.startsWith(`${tenant}/`) && agent.agentClass === className && agent.lastSeen !== undefined,
      )
      .sort(([keyA, a], [keyB, b]) => (a.lastSeen ?? 0) - (b.lastSeen ?? 0) || keyA.localeCompare(keyB))
      .slice(from, from + limit);
    this.schedulingRead.set(classKey, from + agents.length);
    for (const [key, agent] of agents) {
      const lastSeen = agent.lastSeen ?? 0;
      if (this.offlineDue.has(key) || this.offlineMarks.has(key)) continue;
      const at = lastSeen + MISSED_HEARTBEATS_OFFLINE * heartbeatPeriodMs;
      this.offlineDue.set(key, { at, heartbeatPeriodMs, lastSeen, agentClass: className });
    }
    return { read: agents.length, done: agents.length < limit };
  }

  async markAllScheduled(tenant: string, _classNames: string[]) {
    this.touch();
    this.tenantsScheduled.add(tenant);
  }
}

/** Classes' flow policies and heartbeat intervals as the registry holds them; tests set them directly. */
export class MemoryClassFlowPolicies implements ClassFlowPolicies {
  /** By tenant/class. */
  readonly policies = new Map<string, ClassFlowPolicy>();
  /** By tenant/class, in seconds. */
  readonly heartbeatIntervals = new Map<string, number>();
  calls = 0;

  async settingsOf(tenant: string, className: string) {
    this.calls++;
    const policy = this.policies.get(`${tenant}/${className}`);
    return dropUndefined({
      policy: policy && structuredClone(policy),
      heartbeatIntervalSeconds: this.heartbeatIntervals.get(`${tenant}/${className}`),
    });
  }
}

export class MemoryEventSink implements EventSink {
  readonly events: BeaconEvent[] = [];
  failing = false;
  /** As a stream too busy to answer: a publish never settles. */
  stalled = false;

  async publish(events: BeaconEvent[]) {
    if (this.stalled) return new Promise<void>(() => {});
    if (this.failing) throw new Error("stream unavailable");
    this.events.push(...events);
  }
}

export class ManualClock implements Clock {
  constructor(public time = Date.UTC(2026, 10, 21)) {}
  now() {
    return this.time;
  }
  advance(ms: number) {
    this.time += ms;
  }
}

export class SequentialIds implements IdGenerator {
  private next = 0;
  newId() {
    return `id-${++this.next}`;
  }
}

/** Held events in order, with the cache's bound. */
export class MemoryEventBuffer implements EventBuffer {
  readonly held: BeaconEvent[] = [];
  failing = false;

  constructor(private readonly bound = Number.POSITIVE_INFINITY) {}

  async hold(events: BeaconEvent[]) {
    if (this.failing) throw new Error("cache unavailable");
    const taken = events.slice(0, Math.max(0, this.bound - this.held.length));
    this.held.push(...taken.map((event) => structuredClone(event)));
    return { refused: events.length - taken.length };
  }

  async peek(limit: number) {
    return this.held.slice(0, limit).map((event) => structuredClone(event));
  }

  async drop(count: number) {
    this.held.splice(0, count);
  }
}

/** Staged events by id, as the table's outbox keeps them. */
export class MemoryEventOutbox implements EventOutbox {
  readonly staged = new Map<string, BeaconEvent>();

  stage(event: BeaconEvent) {
    this.staged.set(`${event.tenant}/${event.eventId}`, structuredClone(event));
  }

  async pending(before: number, limit: number) {
    return [...this.staged.values()]
      .filter((event) => event.at < before)
      .sort((a, b) => a.at - b.at)
      .slice(0, limit)
      .map((event) => structuredClone(event));
  }

  async clear(events: BeaconEvent[]) {
    for (const event of events) this.staged.delete(`${event.tenant}/${event.eventId}`);
  }
}

export class MemoryOperationStore implements OperationStore {
  readonly records = new Map<string, OperationRecord>();
  calls = 0;

  constructor(private readonly outbox = new MemoryEventOutbox()) {}

  private key(tenant: string, agentId: string, operationId: string) {
    return `${tenant}/${agentId}/${operationId}`;
  }

  async create(operations: OperationRecord[], events: OperationEvent[] = []) {
    this.calls++;
    for (const record of operations) {
      const key = this.key(record.tenant, record.agentId, record.operationId);
      if (this.records.has(key)) throw new Error(`operation ${key} exists`);
      this.records.set(key, structuredClone(record));
      const event = events.find((candidate) => candidate.operationId === record.operationId);
      if (event) this.outbox.stage(event);
    }
  }

  async get(tenant: string, agentId: string, operationId: string) {
    this.calls++;
    const record = this.records.get(this.key(tenant, agentId, operationId));
    return record && structuredClone(record);
  }

  async open(tenant: string, agentId: string) {
    this.calls++;
    return [...this.records.values()]
      .filter((record) => record.tenant === tenant && record.agentId === agentId && !isFinal(record.state))
      .sort((a, b) => (a.operationId < b.operationId ? -1 : 1))
      .map((record) => structuredClone(record));
  }

  async transition(
    operation: OperationRecord,
    from: OperationState,
    change: OperationChange,
    event?: OperationEvent,
  ) {
    this.calls++;
    const record = this.records.get(this.key(operation.tenant, operation.agentId, operation.operationId));
    if (!record || record.state !== from) return false;
    Object.assign(record, change);
    if (event) this.outbox.stage(event);
    // As in the table: a closed operation leaves the due index.
    if (isFinal(change.state)) delete record.dueAt;
    return true;
  }

  async *due(time: number) {
    this.calls++;
    const due = [...this.records.values()]
      .filter((record) => !isFinal(record.state) && record.dueAt !== undefined && record.dueAt <= time)
      .sort((a, b) => (a.dueAt as number) - (b.dueAt as number));
    for (const record of due) yield structuredClone(record);
  }

  async list(tenant: string, query: OperationQuery) {
    this.calls++;
    // One agent's operations are a partition of their own; a state narrows the page once read.
    const entries = [...this.records.values()]
      .filter(
        (record) =>
          record.tenant === tenant && (query.agentId === undefined || record.agentId === query.agentId),
      )
      .map((record) => [record.operationId, record] as [string, OperationRecord]);
    return pageOf(
      entries,
      { limit: query.limit, after: query.after, descending: true },
      (record) => query.state === undefined || record.state === query.state,
    );
  }
}

/** Answers by tenant and operation; `failing` makes every put fail, as an unreachable bucket does. */
export class MemoryOperationResults implements OperationResultStore {
  readonly objects = new Map<string, Uint8Array>();
  failing: Error | undefined;
  calls = 0;

  async put(tenant: string, operationId: string, bytes: Uint8Array) {
    this.calls++;
    if (this.failing) throw this.failing;
    this.objects.set(`${tenant}/${operationId}`, Uint8Array.from(bytes));
  }

  async read(tenant: string, operationId: string) {
    this.calls++;
    const stored = this.objects.get(`${tenant}/${operationId}`);
    return stored && Uint8Array.from(stored);
  }
}
