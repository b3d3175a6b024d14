import {
  CACHED_ATTENTION_REASONS,
  type CachedAttentionReason,
  factsOfScores,
  type ListedAttentionReason,
} from "../../core/agents/attention.js";
import type { LoadSample } from "../../core/agents/load-samples.js";
import type { AgentAssignment, AgentOwnValues, AgentPin } from "../../core/agents/ports.js";
import {
  type AttentionPageRequest,
  attentionScoreRange,
  pageOfPositions,
} from "../../core/fleet/attention-pages.js";
import type { ClassAgentCounts, FleetHotState, HotAgentState } from "../../core/fleet/ports.js";
import type { CachedClassFlow } from "../../core/flows/policy.js";
import { type AttentionIndexes, attentionIndexOf, recordOperationOutcomeIn } from "./attention-indexes.js";

export class MemoryFleetHotState implements FleetHotState {
  readonly agentStates = new Map<string, HotAgentState>();
  readonly heartbeats = new Map<string, number>();
  /** By tenant/class: the heartbeats ever taken from the class's agents. */
  readonly heartbeatTotalsByClass = new Map<string, number>();
  readonly revoked = new Map<string, number>();
  readonly pendingOperations = new Map<string, number>();
  /**
   * By tenant/class, agent id to last seen: forgotten agents the cache still counts in a class, as its
   * class index keeps an agent forgotten without naming that class.
   */
  readonly strandedInClasses = new Map<string, Map<string, number>>();
  /** The cache's copies of classes' flow policies by tenant/class; undefined records a class without one. */
  readonly classFlows = new Map<string, CachedClassFlow | undefined>();
  /** By tenant/agent: the own values of agents the cache holds as registered. */
  readonly ownValues = new Map<string, AgentOwnValues>();
  /** By tenant/agent: the pins of agents the cache holds as registered. */
  readonly pins = new Map<string, AgentPin>();
  /** By tenant/agent: the assignments of agents the cache holds as registered. */
  readonly assignments = new Map<string, AgentAssignment>();
  /** By tenant/class: the heartbeat period the cache's copy of the class's policy carries. */
  readonly classPeriods = new Map<string, number>();
  /**
   * The attention indexes by tenant/class/reason, agent id to its score, as the agent API's heartbeats and
   * acknowledgements leave them (errorBulletins scored by until when they hold).
   */
  readonly attention: AttentionIndexes = new Map();
  /** By tenant/agent: the load samples of its latest heartbeats, oldest first, as they leave them. */
  readonly loadSampleLists = new Map<string, LoadSample[]>();
  /** By tenant: how many times a change of a group holding values replaced its groups' version. */
  readonly groupsChanges = new Map<string, number>();
  /** Set to make every call fail, as a cache outage would. */
  down = false;

  private check() {
    if (this.down) throw new Error("cache is down");
  }

  async agents(tenant: string, agentIds: string[]) {
    this.check();
    const found = new Map<string, HotAgentState>();
    for (const agentId of agentIds) {
      const state = this.agentStates.get(`${tenant}/${agentId}`);
      if (state) found.set(agentId, structuredClone(state));
    }
    return found;
  }

  async classCounts(tenant: string, classes: { name: string; onlineSince: number }[]) {
    this.check();
    const counts = new Map<string, ClassAgentCounts>();
    for (const { name, onlineSince } of classes) {
      const times = [...this.lastSeenIn(tenant, name).values()];
      counts.set(name, { total: times.length, online: times.filter((time) => time >= onlineSince).length });
    }
    return counts;
  }

  /** The class's index as the cache keeps it: agent id to last seen, forgotten agents it still counts too. */
  private lastSeenIn(tenant: string, agentClass: string) {
    const lastSeen = new Map(this.strandedInClasses.get(`${tenant}/${agentClass}`));
    for (const [key, state] of this.agentStates) {
      if (key.startsWith(`${tenant}/`) && state.agentClass === agentClass)
        lastSeen.set(key.slice(tenant.length + 1), state.lastSeen ?? 0);
    }
    return lastSeen;
  }

  /** The class's index of the reason, made empty when it has none. */
  attentionIndex(tenant: string, agentClass: string, reason: CachedAttentionReason) {
    return attentionIndexOf(this.attention, tenant, agentClass, reason);
  }

  private holding(tenant: string, agentClass: string, reason: CachedAttentionReason, now: number) {
    const index = this.attention.get(`${tenant}/${agentClass}/${reason}`) ?? new Map<string, number>();
    return [...index].filter(([, score]) => reason !== "errorBulletins" || score > now).map(([id]) => id);
  }

  async attentionCounts(tenant: string, classes: string[], now: number) {
    this.check();
    return new Map(
      classes.map((className) => [
        className,
        Object.fromEntries(
          CACHED_ATTENTION_REASONS.map((reason) => [
            reason,
            this.holding(tenant, className, reason, now).length,
          ]),
        ) as Record<CachedAttentionReason, number>,
      ]),
    );
  }

  async attentionPage(
    tenant: string,
    classes: { name: string; onlineSince: number }[],
    reason: ListedAttentionReason,
    now: number,
    request: AttentionPageRequest,
  ) {
    this.check();
    const ofClasses = classes.flatMap(({ name, onlineSince }) => {
      const index =
        reason === "offline"
          ? this.lastSeenIn(tenant, name)
          : (this.attention.get(`${tenant}/${name}/${reason}`) ?? new Map<string, number>());
      const positions = [...index].map(([agentId, score]) => ({ agentId, score }));
      return pageOfPositions(positions, attentionScoreRange(reason, onlineSince, now), request);
    });
    return pageOfPositions(ofClasses, {}, request);
  }

  async attentionOf(tenant: string, agents: { agentId: string; agentClass: string }[], now: number) {
    this.check();
    return new Map(
      agents.map(({ agentId, agentClass }) => {
        const scores = Object.fromEntries(
          CACHED_ATTENTION_REASONS.map((reason) => [
            reason,
            this.holding(tenant, agentClass, reason, now).includes(agentId)
              ? (this.attention.get(`${tenant}/${agentClass}/${reason}`)?.get(agentId) ?? null)
              : null,
          ]),
        ) as Record<CachedAttentionReason, number | null>;
        return [agentId, factsOfScores(scores)];
      }),
    );
  }

  async loadSamples(tenant: string, agentId: string) {
    this.check();
    return structuredClone(this.loadSampleLists.get(`${tenant}/${agentId}`) ?? []);
  }

  async heartbeatsPerMinute(tenant: string, epochMinutes: number[]) {
    this.check();
    return epochMinutes.map((minute) => this.heartbeats.get(`${tenant}/${minute}`) ?? 0);
  }

  async heartbeatTotals(tenant: string, classes: string[]) {
    this.check();
    return new Map(classes.map((name) => [name, this.heartbeatTotalsByClass.get(`${tenant}/${name}`) ?? 0]));
  }

  async forgetAgent(tenant: string, agentId: string, agentClasses: string[]) {
    this.check();
    const key = `${tenant}/${agentId}`;
    const state = this.agentStates.get(key);
    if (state?.agentClass !== undefined && !agentClasses.includes(state.agentClass)) {
      const classKey = `${tenant}/${state.agentClass}`;
      const stranded = this.strandedInClasses.get(classKey) ?? new Map<string, number>();
      this.strandedInClasses.set(classKey, stranded.set(agentId, state.lastSeen ?? 0));
    }
    for (const agentClass of agentClasses)
      this.strandedInClasses.get(`${tenant}/${agentClass}`)?.delete(agentId);
    this.agentStates.delete(key);
    this.pendingOperations.delete(key);
    this.loadSampleLists.delete(key);
    for (const agentClass of agentClasses)
      for (const reason of CACHED_ATTENTION_REASONS)
        this.attention.get(`${tenant}/${agentClass}/${reason}`)?.delete(agentId);
  }

  async recordOperationOutcome(
    tenant: string,
    agentId: string,
    agentClass: string | undefined,
    failed: boolean,
    at: number,
  ) {
    this.check();
    const className = this.agentStates.get(`${tenant}/${agentId}`)?.agentClass ?? agentClass;
    recordOperationOutcomeIn(this.attention, tenant, agentId, className, failed, at);
  }

  async markOperationsPending(tenant: string, agentIds: string[]) {
    this.check();
    for (const agentId of agentIds) {
      const key = `${tenant}/${agentId}`;
      this.pendingOperations.set(key, (this.pendingOperations.get(key) ?? 0) + 1);
    }
  }

  async revokeSerial(tenant: string, serial: string, revokedAt: number) {
    this.check();
    this.revoked.set(`${tenant}/${serial}`, revokedAt);
  }

  async groupsChanged(tenant: string) {
    this.check();
    this.groupsChanges.set(tenant, (this.groupsChanges.get(tenant) ?? 0) + 1);
  }

  async rememberOwnValues(tenant: string, agentId: string, ownValues: AgentOwnValues) {
    this.check();
    const key = `${tenant}/${agentId}`;
    if (this.agentStates.has(key)) this.ownValues.set(key, new Map(ownValues));
  }

  async rememberPin(tenant: string, agentId: string, pin: AgentPin | undefined) {
    this.rememberHold(this.pins, `${tenant}/${agentId}`, pin);
  }

  async rememberAssignment(tenant: string, agentId: string, assignment: AgentAssignment | undefined) {
    this.rememberHold(this.assignments, `${tenant}/${agentId}`, assignment);
  }

  /** What holds a flow on an agent the cache holds (a pin, an assignment); undefined drops it. */
  private rememberHold<Hold>(holds: Map<string, Hold>, key: string, hold: Hold | undefined) {
    this.check();
    if (!this.agentStates.has(key)) return;
    if (hold === undefined) holds.delete(key);
    else holds.set(key, structuredClone(hold));
  }

  async rememberClassFlow(
    tenant: string,
    className: string,
    policy: CachedClassFlow | undefined,
    heartbeatPeriodMs: number,
  ) {
    this.check();
    this.classFlows.set(`${tenant}/${className}`, policy && structuredClone(policy));
    this.classPeriods.set(`${tenant}/${className}`, heartbeatPeriodMs);
  }
}
