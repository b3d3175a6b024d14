import { assignmentHolds } from "../../core/agents/assignments.js";
import { CACHED_ATTENTION_REASONS, type CachedAttentionReason } from "../../core/agents/attention.js";
import { LOAD_SAMPLES_KEPT, type LoadSample, loadSampleOf } from "../../core/agents/load-samples.js";
import type {
  AgentAssignment,
  AgentOwnValues,
  AgentPin,
  AssignmentCache,
  CacheRegistration,
  HotSighting,
  HotSightingResult,
  HotState,
  PinCache,
  SightingOutcome,
} from "../../core/agents/ports.js";
import type { OverdueAgent, PresenceState } from "../../core/agents/presence.js";
import { DEFAULT_HEARTBEAT_INTERVAL_SECONDS, MISSED_HEARTBEATS_OFFLINE } from "../../core/agents/status.js";
import type { SupportedOperations } from "../../core/c2/manifest.js";
import type { ProcessorStatus } from "../../core/c2/model.js";
import { type CachedClassFlow, targetFlowIdOf } from "../../core/flows/policy.js";
import type { CachedRevocation } from "../../core/identity/ports.js";
import { dropUndefined } from "../../core/json.js";
import type { KnownManifest } from "../../core/manifests/agent-manifest.js";
import { renderedFlowIdOf } from "../../core/parameters/rendered-flow-ids.js";
import { type AttentionIndexes, attentionIndexOf, recordOperationOutcomeIn } from "./attention-indexes.js";

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
  /** The serial of the certificate the store was said to hold for the agent. */
  certificate?: string;
  ownValues?: AgentOwnValues;
  pin?: AgentPin;
  assignment?: AgentAssignment;
}

export class MemoryHotState implements HotState, PresenceState, PinCache, AssignmentCache {
  readonly agents = new Map<string, HotAgent>();
  /** By tenant/agent: the load samples of its latest heartbeats, oldest first, capped as the script caps them. */
  readonly loadSampleLists = new Map<string, LoadSample[]>();
  readonly classes = new Set<string>();
  /** By tenant: the binaries whose content the cache knows to be stored. */
  readonly storedManifests = new Map<string, Set<string>>();
  /** Pending-operation markers by tenant/agent: the version, bumped by every queueing. */
  readonly pendingOperations = new Map<string, number>();
  /** By tenant: the version of its groups, replaced by a change of a group holding values (groupsChanged). */
  readonly groupsVersions = new Map<string, string>();
  /** Per tenant; a tenant without an entry has no revocation list in the cache yet. */
  readonly revocationLists = new Map<string, Set<string>>();
  /** By tenant/class; a class without an entry was never loaded, one mapped to undefined has no policy. */
  readonly classFlows = new Map<string, CachedClassFlow | undefined>();
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
  /** The attention indexes by tenant/class/reason: agent id to its score, as the script keeps them. */
  readonly attention: AttentionIndexes = new Map();
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
    const sample = loadSampleOf(sighting.now, sighting.status, sighting.system);
    if (sample)
      this.loadSampleLists.set(
        key,
        [...(this.loadSampleLists.get(key) ?? []), sample].slice(-LOAD_SAMPLES_KEPT),
      );
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
    if (agent.agentClass !== undefined) {
      this.scheduleOffline(sighting, agent.agentClass, manifest);
      this.keepAttention(sighting, agent.agentClass, previous.agentClass);
    }
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
      certificateRecorded: agent.certificate === sighting.serialNumber || undefined,
      groupsVersion: agent.registered ? undefined : this.groupsVersionOf(sighting),
      runStatuses:
        pending && (agent.runStatus || agent.processors)
          ? structuredClone({ runStatus: agent.runStatus, processors: agent.processors })
          : undefined,
    };
    return { recorded: true, sighting: result };
  }

  /** As the script: the tenant's groups' version, set to one of the sighting's own while absent. */
  private groupsVersionOf({ tenant, now, agentId }: HotSighting): string {
    const version = this.groupsVersions.get(tenant) ?? `${now}:${agentId}`;
    this.groupsVersions.set(tenant, version);
    return version;
  }

  /** What the console's change of a group holding values does to the cache (FleetHotState.groupsChanged). */
  async groupsChanged(tenant: string) {
    this.touch();
    this.groupsVersions.set(tenant, `changed:${this.roundTrips}`);
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

  /** The class's attention index of a reason, as the script keeps it. */
  attentionIndex(tenant: string, agentClass: string, reason: CachedAttentionReason) {
    return attentionIndexOf(this.attention, tenant, agentClass, reason);
  }

  /**
   * As the script: an agent changing class takes its reasons along; ERROR bulletins are kept by until when
   * they hold (those past it dropped), back pressure since when, as far as the heartbeat says.
   */
  private keepAttention(sighting: HotSighting, agentClass: string, previousClass: string | undefined) {
    const { tenant, agentId, now } = sighting;
    if (previousClass !== undefined && previousClass !== agentClass) {
      for (const reason of CACHED_ATTENTION_REASONS) {
        const before = this.attentionIndex(tenant, previousClass, reason);
        const score = before.get(agentId);
        if (score === undefined) continue;
        before.delete(agentId);
        this.attentionIndex(tenant, agentClass, reason).set(agentId, score);
      }
    }
    if (sighting.errorBulletinsUntil !== undefined) {
      const errors = this.attentionIndex(tenant, agentClass, "errorBulletins");
      for (const [other, until] of errors) if (until <= now) errors.delete(other);
      errors.set(agentId, Math.max(errors.get(agentId) ?? 0, sighting.errorBulletinsUntil));
    }
    const backPressure = this.attentionIndex(tenant, agentClass, "backPressure");
    this.markSince(backPressure, agentId, sighting.backPressured, now);
  }

  /** Puts the agent in the index since `now` unless it is in already (true), takes it out (false), or neither. */
  private markSince(index: Map<string, number>, agentId: string, holds: boolean | undefined, now: number) {
    if (holds === true && !index.has(agentId)) index.set(agentId, now);
    if (holds === false) index.delete(agentId);
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
    const held = supportedOperations && flowIdsHeldTo(policy, agent);
    const current = !held || (agent.flowId !== undefined && held.accepted.includes(agent.flowId));
    if (supportedOperations) {
      const index = (reason: CachedAttentionReason) =>
        this.attentionIndex(sighting.tenant, agent.agentClass as string, reason);
      const pinned = agent.pin !== undefined;
      this.markSince(index("pinned"), sighting.agentId, pinned, sighting.now);
      this.markSince(index("offTarget"), sighting.agentId, !pinned && !current, sighting.now);
    }
    if (!held || current) return known;
    const { hash, target } = held;
    const claimKey = `${sighting.tenant}/${sighting.agentId}`;
    const claim = this.catchUps.get(claimKey);
    if (claim && claim.flowId === target && claim.until > sighting.now) return known;
    this.catchUps.set(claimKey, { flowId: target, until: sighting.now + sighting.catchUpRetryMs });
    return {
      ...known,
      catchUp: dropUndefined({ hash, flowId: target, ackTimeoutMs: policy?.ackTimeoutMs }),
    };
  }

  async revocationOf(tenant: string, serial: string) {
    this.touch();
    return this.revocation(tenant, serial);
  }

  async rememberRevocations(tenant: string, serials: string[]) {
    this.touch();
    this.revocationLists.set(tenant, new Set(serials));
  }

  async rememberCertificate(tenant: string, agentId: string, serial: string) {
    this.touch();
    const agent = this.agents.get(`${tenant}/${agentId}`);
    if (agent) agent.certificate = serial;
  }

  async markRegistered(tenant: string, agentId: string, registration: CacheRegistration) {
    this.touch();
    const { now, ownValues, pin, assignment, agentClass, manifest } = registration;
    const agent = this.agents.get(`${tenant}/${agentId}`) ?? { registered: false, lastCheckpoint: 0 };
    agent.registered = true;
    agent.lastCheckpoint = now;
    agent.ownValues = ownValues.size === 0 ? undefined : new Map(ownValues);
    agent.pin = pin && structuredClone(pin);
    agent.assignment = assignment && structuredClone(assignment);
    this.agents.set(`${tenant}/${agentId}`, agent);
    if (manifest) this.learnManifest(tenant, agentId, manifest);
    return this.learnClass(tenant, agentClass);
  }

  /** As the console's write through: a registered agent's entry only. */
  async rememberPin(tenant: string, agentId: string, pin: AgentPin | undefined) {
    this.touch();
    const agent = this.agents.get(`${tenant}/${agentId}`);
    if (agent?.registered) agent.pin = pin && structuredClone(pin);
  }

  /** As the rollout engine's write through: a registered agent's entry only. */
  async rememberAssignment(tenant: string, agentId: string, assignment: AgentAssignment | undefined) {
    this.touch();
    const agent = this.agents.get(`${tenant}/${agentId}`);
    if (agent?.registered) agent.assignment = assignment && structuredClone(assignment);
  }

  async rememberClass(tenant: string, agentClass: string) {
    this.touch();
    return this.learnClass(tenant, agentClass);
  }

  async forgetRegistration(tenant: string, agentId: string, agentClass: string) {
    this.touch();
    const agent = this.agents.get(`${tenant}/${agentId}`);
    if (agent) agent.registered = false;
    this.classes.delete(`${tenant}/${agentClass}`);
  }

  private learnClass(tenant: string, agentClass: string) {
    const key = `${tenant}/${agentClass}`;
    const isNew = !this.classes.has(key);
    this.classes.add(key);
    return isNew;
  }

  async rememberAgentManifest(tenant: string, agentId: string, manifest: KnownManifest) {
    this.touch();
    this.learnManifest(tenant, agentId, manifest);
  }

  private learnManifest(tenant: string, agentId: string, manifest: KnownManifest) {
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

  async recordOperationOutcome(
    tenant: string,
    agentId: string,
    agentClass: string | undefined,
    failed: boolean,
    at: number,
  ) {
    this.touch();
    const className = this.agents.get(`${tenant}/${agentId}`)?.agentClass ?? agentClass;
    recordOperationOutcomeIn(this.attention, tenant, agentId, className, failed, at);
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
    policy: CachedClassFlow | undefined,
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

/**
 * As the script: the version a pinned agent is held to is its pin's, by the flow ids of its pin, the first
 * the one sent; then an assigned agent's, while its class's target is still the one it was assigned over;
 * any other agent's is its class's target; none without any of them.
 */
function flowIdsHeldTo(policy: CachedClassFlow | undefined, agent: HotAgent) {
  const assigned = assignmentHolds(agent.assignment, policy?.target) ? agent.assignment : undefined;
  const held = agent.pin
    ? { hash: agent.pin.flowHash, flowIds: agent.pin.flowIds }
    : assigned && { hash: assigned.flow, flowIds: assigned.flowIds };
  if (held) return { hash: held.hash, target: held.flowIds[0] as string, accepted: held.flowIds };
  return policy && { hash: policy.target, ...ownFlowIdsOf(policy, agent.ownValues) };
}

/** As the script: an agent with values of its own runs its own rendering of each version that declares parameters. */
function ownFlowIdsOf(policy: CachedClassFlow, own: AgentOwnValues | undefined) {
  if (!own) return { target: targetFlowIdOf(policy), accepted: policy.accepted };
  const ownIds = new Map(
    policy.renderings.map((rendering) => [rendering.flowId, renderedFlowIdOf(rendering, own)]),
  );
  const target = targetFlowIdOf(policy);
  return {
    target: ownIds.get(target) ?? target,
    accepted: policy.accepted.map((id) => ownIds.get(id) ?? id),
  };
}
