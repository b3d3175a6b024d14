import type { AgentClassRecord, ClassCatalog } from "../agents/ports.js";
import { onlineSince, type StatusRule, statusOf, statusRuleOf } from "../agents/status.js";
import { dropUndefined } from "../c2/json.js";
import { supports } from "../c2/manifest.js";
import type { Bulletin } from "../c2/model.js";
import { BeaconError } from "../errors.js";
import type { OperationEvent, RolloutEvent } from "../events/model.js";
import type { EventSink } from "../events/ports.js";
import type { FleetHotState, FleetRegistry, HotAgentState } from "../fleet/ports.js";
import type { ClassFlowPolicy } from "../flows/policy.js";
import { guardedCache } from "../guarded-cache.js";
import type { ManifestCatalog } from "../manifests/ports.js";
import { newUpdateConfiguration, type OperationLifecycle } from "../operations/lifecycle.js";
import type { OperationRecord } from "../operations/model.js";
import type { OperationStore } from "../operations/ports.js";
import type { Clock, IdGenerator } from "../ports.js";
import {
  canRolloutTransition,
  countOf,
  emptyCounts,
  isRolloutFinal,
  type RolloutCounts,
  type RolloutMember,
  type RolloutPlan,
  type RolloutRecord,
  type RolloutState,
  sizeOf,
  thresholdReached,
} from "./model.js";
import type { RolloutStore } from "./ports.js";

/** Agents of the class index a batch reads through at most, per batch size, in one look. */
const CANDIDATES_PER_SELECTED = 10;
/** Agents read per page of the class index. */
const CLASS_PAGE_SIZE = 100;
/** Rollback operations one look queues at most; the rest follow on the next. */
const ROLLBACKS_PER_LOOK = 1_000;
/** Times a person's action is retried against a sweeper that wrote the rollout meanwhile. */
const ACTION_ATTEMPTS = 3;

export interface RolloutEngineDependencies {
  rollouts: RolloutStore;
  classes: Pick<ClassCatalog, "get">;
  registry: Pick<FleetRegistry, "query" | "count">;
  manifests: Pick<ManifestCatalog, "get">;
  hotState: Pick<FleetHotState, "agents" | "markOperationsPending" | "rememberClassFlow">;
  operations: Pick<OperationStore, "get">;
  lifecycle: OperationLifecycle;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  /** The agent API's public base URL, for the URLs agents download flows from. */
  agentApiUrl: string;
}

/** What one look at a rollout did. */
export interface AdvanceOutcome {
  rollout: RolloutRecord;
  /** The look was written; false when nothing changed or another writer won (the next look retries). */
  saved: boolean;
  batchStarted: boolean;
  /** Why the look held back: the cache, which health checks and batches need, was unreachable. */
  heldBack?: string;
  streamError?: unknown;
}

export interface RolloutSweepOutcome {
  looked: number;
  batchesStarted: number;
  /** Rollouts that reached a final state or paused in this run, by the state reached. */
  reached: Partial<Record<RolloutState, number>>;
  heldBack: number;
  /** Active rollouts left for the next run: the run reached its deadline first. */
  deferred: number;
  /** Looks that threw, with the rollout each was at: the others went on. */
  errors: { tenant: string; rolloutId: string; error: unknown }[];
  streamError?: unknown;
}

/** The class's flow policies a rollout sets as it goes. */
const policyOf = (target: string, accepted: string[], ackTimeoutMs: number | undefined): ClassFlowPolicy =>
  dropUndefined({ target, accepted: [...new Set(accepted)], ackTimeoutMs });

/** What the class says about its agents' timing. */
interface ClassTiming {
  /** When an agent counts as online: the console's rule, on last-seen times from the cache (no registry lag). */
  status: StatusRule;
  ackTimeoutMs?: number;
}

const timingOf = (record: AgentClassRecord | undefined): ClassTiming => ({
  status: statusRuleOf(record, 0),
  ackTimeoutMs: record?.ackTimeoutSeconds === undefined ? undefined : record.ackTimeoutSeconds * 1000,
});

/** Members per state over `base`; one rolled back after failing counts among the failed too. */
function tally(members: RolloutMember[], base: RolloutCounts = emptyCounts()): RolloutCounts {
  const counts = { ...base };
  for (const member of members) {
    counts[countOf[member.state]]++;
    if (member.state !== "failed" && member.failedAt !== undefined) counts.failed++;
    counts.selected++;
  }
  return counts;
}

const isSettled = (member: RolloutMember): boolean =>
  member.state !== "updating" && member.state !== "soaking";

/** How an operation closed, as a member's reason: the agent's acknowledgement, or why Beacon closed it. */
function closingOf(operation: OperationRecord): string {
  const said = operation.failureCause ?? operation.details;
  if (operation.ackState) return `Acknowledged ${operation.ackState}${said ? `: ${said}` : ""}`;
  return `The operation ${operation.state.replace("_", " ")}${operation.reason ? `: ${operation.reason}` : ""}`;
}

/** The newest ERROR bulletin the agent raised at or after `since`, from its last heartbeat's bulletins. */
function newErrorBulletin(bulletins: Bulletin[] | undefined, since: number): Bulletin | undefined {
  let newest: Bulletin | undefined;
  for (const bulletin of bulletins ?? []) {
    if (bulletin.level?.toUpperCase() !== "ERROR" || (bulletin.timestamp ?? 0) < since) continue;
    if (!newest || (bulletin.timestamp ?? 0) > (newest.timestamp ?? 0)) newest = bulletin;
  }
  return newest;
}

/**
 * Rollouts of a flow version to a class: a canary group, then batches at a pace, each gated on the health
 * of the one before; a failure threshold pauses the rollout or returns the agents it updated to the
 * previous version. Every look is a function of the stored rollout, its members, their operations and
 * the agents' hot state, written back conditionally on the version it read: looks that race (a sweeper
 * and a person) leave one winner, and a batch whose write lost is found again by the next look.
 */
export function makeRolloutEngine(deps: RolloutEngineDependencies) {
  const { rollouts, classes, registry, manifests, hotState, operations, lifecycle, events, clock, ids } =
    deps;

  function rolloutEvent(record: RolloutRecord, from: RolloutState | undefined, at: number): RolloutEvent {
    return dropUndefined({
      type: "rollout" as const,
      version: 1 as const,
      eventId: ids.newId(),
      tenant: record.tenant,
      at,
      rolloutId: record.rolloutId,
      className: record.className,
      fromFlow: record.fromFlow,
      toFlow: record.toFlow,
      from,
      state: record.state,
      reason: record.reason,
      counts: record.counts,
    });
  }

  async function publish(list: (OperationEvent | RolloutEvent)[]): Promise<unknown> {
    if (list.length === 0) return undefined;
    try {
      await events.publish(list);
      return undefined;
    } catch (error) {
      return error;
    }
  }

  /** The UPDATE CONFIGURATION records that send `flowId` to these agents on behalf of the rollout. */
  function updateRecords(
    rollout: RolloutRecord,
    agentIds: string[],
    flowId: string,
    timing: ClassTiming,
    now: number,
  ): OperationRecord[] {
    return agentIds.map((agentId) =>
      newUpdateConfiguration({
        tenant: rollout.tenant,
        agentId,
        flowId,
        agentApiUrl: deps.agentApiUrl,
        createdBy: `beacon:rollout:${rollout.rolloutId}`,
        now,
        ids,
        rolloutId: rollout.rolloutId,
        ackTimeoutMs: timing.ackTimeoutMs,
      }),
    );
  }

  /**
   * Queues operations for agents: their pending markers first, or their heartbeats would not look. Throws
   * when the cache cannot take the markers, so nothing is queued that agents would not learn of.
   */
  async function queue(tenant: string, records: OperationRecord[]): Promise<OperationEvent[]> {
    if (records.length === 0) return [];
    await hotState.markOperationsPending(
      tenant,
      records.map((record) => record.agentId),
    );
    return (await lifecycle.create(records)).events;
  }

  /** Where one member stands now, or undefined when nothing changed. */
  async function evaluate(
    rollout: RolloutRecord,
    member: RolloutMember,
    hot: HotAgentState | undefined,
    timing: ClassTiming,
    now: number,
  ): Promise<Partial<RolloutMember> | undefined> {
    // An agent heartbeating as the class expects: as long as the console would show it online.
    const heartbeatingSince = onlineSince(now, timing.status, "cache");
    const failed = (reason: string): Partial<RolloutMember> => ({
      state: "failed",
      settledAt: now,
      failedAt: now,
      reason,
    });
    if (member.state === "rolling_back") {
      const rollback = await operations.get(rollout.tenant, member.agentId, member.rollbackOperationId ?? "");
      if (!rollback || rollback.state === "queued" || rollback.state === "delivered") return undefined;
      return rollback.state === "done"
        ? { state: "rolled_back", settledAt: now }
        : {
            state: "rollback_failed",
            settledAt: now,
            reason: `The rollback: ${closingOf(rollback)}`,
          };
    }
    if (member.state === "updating") {
      const update = await operations.get(rollout.tenant, member.agentId, member.operationId);
      if (!update) return failed("Its update operation is gone");
      if (update.state === "queued" || update.state === "delivered") return undefined;
      if (update.state !== "done" || update.ackState !== "FULLY_APPLIED") return failed(closingOf(update));
      if (hot?.flowId === rollout.toFlow) return { state: "soaking", soakingSince: now };
      // The agent reports its new flow id in the heartbeats after its acknowledgement.
      if ((update.finishedAt ?? now) < heartbeatingSince)
        return failed(`Acknowledged FULLY_APPLIED but reports flow ${hot?.flowId ?? "none"}`);
      return undefined;
    }
    if (member.state === "soaking") {
      if (hot?.flowId !== rollout.toFlow)
        return failed(`Reports flow ${hot?.flowId ?? "none"} after the update`);
      const error = newErrorBulletin(hot.bulletins, member.selectedAt);
      if (error)
        return failed(`ERROR bulletin from ${error.sourceName ?? "the flow"}: ${error.message ?? ""}`.trim());
      if ((hot.lastSeen ?? 0) < heartbeatingSince)
        return failed(`Stopped heartbeating (silent ${Math.round((now - (hot.lastSeen ?? 0)) / 1000)} s)`);
      if (now - (member.soakingSince ?? now) >= rollout.plan.soakSeconds * 1000)
        return { state: "healthy", settledAt: now };
    }
    return undefined;
  }

  /** Moves the members that changed, conditionally; a member another look moved first keeps that move. */
  async function evaluateAll(
    rollout: RolloutRecord,
    members: RolloutMember[],
    hot: Map<string, HotAgentState>,
    timing: ClassTiming,
    now: number,
  ): Promise<RolloutMember[]> {
    return Promise.all(
      members.map(async (member) => {
        const change = await evaluate(rollout, member, hot.get(member.agentId), timing, now);
        if (!change) return member;
        const moved = { ...member, ...change } as RolloutMember;
        return (await rollouts.updateMember(moved, member.state)) ? moved : member;
      }),
    );
  }

  /**
   * Picks the next agents of the class from the index, after the cursor: online, not on the new version
   * yet, and able to take UPDATE CONFIGURATION. The others are passed over; catch-up brings them to the
   * class's flow once the rollout completes.
   */
  async function selectAgents(rollout: RolloutRecord, size: number, timing: ClassTiming, now: number) {
    const chosen: { agentId: string; flowId?: string }[] = [];
    let skipped = 0;
    let examined = 0;
    let cursor = rollout.cursor;
    let exhausted = false;
    const supportByHash = new Map<string, Promise<boolean>>();
    const canUpdate = (hash: string | undefined) => {
      if (hash === undefined) return Promise.resolve(false);
      let found = supportByHash.get(hash);
      if (!found) {
        found = manifests
          .get(rollout.tenant, hash)
          .then((record) => !!record && supports(record.supportedOperations, "UPDATE", "CONFIGURATION"));
        supportByHash.set(hash, found);
      }
      return found;
    };
    while (chosen.length < size && !exhausted && examined < size * CANDIDATES_PER_SELECTED) {
      const page = await registry.query(rollout.tenant, {
        agentClass: rollout.className,
        limit: CLASS_PAGE_SIZE,
        after: cursor,
      });
      const hot = await hotState.agents(
        rollout.tenant,
        page.items.map((agent) => agent.agentId),
      );
      let wholePage = true;
      for (const agent of page.items) {
        if (chosen.length >= size) {
          wholePage = false;
          break;
        }
        examined++;
        cursor = agent.agentId;
        const state = hot.get(agent.agentId);
        const flowId = state?.flowId ?? agent.flowId;
        const online = statusOf(state?.lastSeen ?? agent.lastSeen, now, timing.status, "cache") === "online";
        if (
          flowId === rollout.toFlow ||
          !online ||
          !(await canUpdate(state?.manifestHash ?? agent.manifestHash))
        ) {
          skipped++;
          continue;
        }
        chosen.push({ agentId: agent.agentId, flowId });
      }
      exhausted = wholePage && page.last === undefined;
    }
    return { chosen, skipped, cursor, exhausted };
  }

  /**
   * Starts the next batch: members first, then operations for the members this look wrote. A retried
   * batch keeps the members it has, and a look racing this one queues for the members it wrote: each
   * agent gets one update, the one its member names.
   */
  async function startBatch(rollout: RolloutRecord, size: number, timing: ClassTiming, now: number) {
    const selection = await selectAgents(rollout, size, timing, now);
    const batch = rollout.batches;
    const agentIds = new Set(
      (await rollouts.members(rollout.tenant, rollout.rolloutId, batch)).map((member) => member.agentId),
    );
    const records = updateRecords(
      rollout,
      selection.chosen.map((agent) => agent.agentId),
      rollout.toFlow,
      timing,
      now,
    );
    const written = await rollouts.addMembers(
      selection.chosen.map((agent, index) =>
        dropUndefined({
          tenant: rollout.tenant,
          rolloutId: rollout.rolloutId,
          agentId: agent.agentId,
          batch,
          state: "updating" as const,
          operationId: (records[index] as OperationRecord).operationId,
          previousFlowId: agent.flowId,
          selectedAt: now,
        }),
      ),
    );
    const ours = new Set(written.map((member) => member.operationId));
    const operationEvents = await queue(
      rollout.tenant,
      records.filter((record) => ours.has(record.operationId)),
    );
    for (const agent of selection.chosen) agentIds.add(agent.agentId);
    return { ...selection, batch, memberCount: agentIds.size, operationEvents };
  }

  /**
   * Returns the updated agents to the previous version: an update still queued is cancelled, anything
   * else gets an UPDATE CONFIGURATION back to `fromFlow`. Bounded per look; the rest follow on the next.
   */
  async function rollBack(
    rollout: RolloutRecord,
    members: RolloutMember[],
    timing: ClassTiming,
    now: number,
  ) {
    const operationEvents: OperationEvent[] = [];
    const fromFlow = rollout.fromFlow as string;
    const pending = members.filter(
      (member) =>
        member.state !== "rolling_back" &&
        member.state !== "rolled_back" &&
        member.state !== "rollback_failed",
    );
    const moved = new Map<string, RolloutMember>();
    const toSend: RolloutMember[] = [];
    for (const member of pending.slice(0, ROLLBACKS_PER_LOOK)) {
      const update = await operations.get(rollout.tenant, member.agentId, member.operationId);
      if (update?.state === "queued") {
        const result = await lifecycle.cancel(update, "Its rollout is rolling back");
        operationEvents.push(...result.events);
        if (result.cancelled) {
          const change = {
            ...member,
            state: "rolled_back" as const,
            settledAt: now,
            reason: "Never delivered",
          };
          if (await rollouts.updateMember(change, member.state)) moved.set(member.agentId, change);
          continue;
        }
      }
      toSend.push(member);
    }
    const records = updateRecords(
      rollout,
      toSend.map((member) => member.agentId),
      fromFlow,
      timing,
      now,
    );
    operationEvents.push(...(await queue(rollout.tenant, records)));
    await Promise.all(
      toSend.map(async (member, index) => {
        const change: RolloutMember = {
          ...member,
          state: "rolling_back",
          rollbackOperationId: (records[index] as OperationRecord).operationId,
        };
        if (await rollouts.updateMember(change, member.state)) moved.set(member.agentId, change);
      }),
    );
    return { members: members.map((member) => moved.get(member.agentId) ?? member), operationEvents };
  }

  /** Enters the rollback, or pauses when there is no previous version to return to. */
  function tripTo(rollout: RolloutRecord, reason: string): { state: RolloutState; reason: string } {
    if (rollout.plan.onFailure === "pause") return { state: "paused", reason };
    if (rollout.fromFlow === undefined)
      return { state: "paused", reason: `${reason}; the class had no previous flow version to roll back to` };
    return { state: "rolling_back", reason };
  }

  /**
   * One look at a rollout: its members' health, the threshold, the next batch or the end. Writes back
   * conditionally; returns what it did.
   */
  async function look(read: RolloutRecord): Promise<AdvanceOutcome> {
    const now = clock.now();
    const rollout: RolloutRecord = structuredClone(read);
    const outcome: AdvanceOutcome = { rollout: read, saved: false, batchStarted: false };
    if (isRolloutFinal(rollout.state)) return outcome;
    const timing = timingOf(await classes.get(rollout.tenant, rollout.className));
    const operationEvents: OperationEvent[] = [];
    let policy: ClassFlowPolicy | undefined;

    const rollingBack = rollout.state === "rolling_back";
    const current = rollout.batches - 1;
    const members = rollingBack
      ? await rollouts.members(rollout.tenant, rollout.rolloutId)
      : current >= 0
        ? await rollouts.members(rollout.tenant, rollout.rolloutId, current)
        : [];
    // Health needs the agents' hot state, and batches their pending markers: without the cache, wait.
    const cache = guardedCache();
    const hot = await cache.attempt(() =>
      hotState.agents(
        rollout.tenant,
        members.filter((member) => !isSettled(member)).map((member) => member.agentId),
      ),
    );
    if (!hot) return { ...outcome, heldBack: `The cache is unreachable: ${String(cache.error)}` };

    let looked = await evaluateAll(rollout, members, hot, timing, now);
    if (rollingBack) {
      const rolled = await rollBack(rollout, looked, timing, now);
      looked = rolled.members;
      operationEvents.push(...rolled.operationEvents);
      rollout.counts = tally(looked, { ...emptyCounts(), skipped: rollout.settled.skipped });
      const returned = looked.every(
        (member) => member.state === "rolled_back" || member.state === "rollback_failed",
      );
      if (returned) rollout.state = rollout.abortedBy ? "aborted" : "rolled_back";
    } else {
      rollout.counts = tally(looked, rollout.settled);
      const batchSettled = looked.every(isSettled);
      const failures = rollout.counts.failed - rollout.acceptedFailures;
      if (
        rollout.state !== "paused" &&
        thresholdReached(rollout.plan.failureThreshold, failures, rollout.counts.selected)
      ) {
        const trip = tripTo(
          rollout,
          `${rollout.counts.failed} of ${rollout.counts.selected} updated agents failed`,
        );
        if (trip.state === "paused") rollout.resumeTo = rollout.state as "canary" | "rolling";
        rollout.state = trip.state;
        rollout.reason = trip.reason;
        if (trip.state === "rolling_back") {
          policy = policyOf(rollout.fromFlow as string, [rollout.fromFlow as string], timing.ackTimeoutMs);
          // Queued in this look, so catch-up (which now targets the previous version) finds them open.
          const all = await rollouts.members(rollout.tenant, rollout.rolloutId);
          const rolled = await rollBack(rollout, all, timing, now);
          operationEvents.push(...rolled.operationEvents);
          rollout.counts = tally(rolled.members, { ...emptyCounts(), skipped: rollout.settled.skipped });
        }
      } else if (rollout.state !== "paused" && batchSettled) {
        if (rollout.state === "canary" && rollout.batches > 0) rollout.state = "rolling";
        const paced =
          rollout.lastBatchAt === undefined ||
          now - rollout.lastBatchAt >= rollout.plan.batchIntervalSeconds * 1000;
        if (rollout.exhausted) {
          rollout.state = "completed";
          rollout.finishedAt = now;
          policy = policyOf(rollout.toFlow, [rollout.toFlow], timing.ackTimeoutMs);
        } else if (paced) {
          const size = rollout.state === "canary" ? Math.max(1, rollout.canarySize) : rollout.plan.batchSize;
          rollout.settled = rollout.counts;
          const batch = await startBatch(rollout, size, timing, now);
          operationEvents.push(...batch.operationEvents);
          rollout.batches = batch.batch + 1;
          rollout.lastBatchAt = now;
          rollout.cursor = batch.cursor;
          rollout.exhausted = batch.exhausted;
          rollout.settled = { ...rollout.settled, skipped: rollout.settled.skipped + batch.skipped };
          rollout.counts = {
            ...rollout.settled,
            selected: rollout.settled.selected + batch.memberCount,
            updating: rollout.settled.updating + batch.memberCount,
          };
          // A batch that found nobody is settled at once: the next look moves on, or completes.
          outcome.batchStarted = batch.memberCount > 0;
        }
      }
    }

    rollout.updatedAt = now;
    rollout.version = read.version + 1;
    const stateChanged = rollout.state !== read.state;
    if (!canRolloutTransition(read.state, rollout.state))
      throw new Error(`No rollout transition from ${read.state} to ${rollout.state}`);
    if (isRolloutFinal(rollout.state)) rollout.finishedAt ??= now;
    // A look that changed nothing but the time is not written: most looks wait on agents.
    const unchanged =
      JSON.stringify({ ...rollout, updatedAt: read.updatedAt, version: read.version }) ===
      JSON.stringify(read);
    if (unchanged && operationEvents.length === 0) return outcome;
    const saved = await rollouts.save(rollout, read.version, policy);
    if (!saved) return { ...outcome, streamError: await publish(operationEvents) };
    if (policy)
      await guardedCache().attempt(() =>
        hotState.rememberClassFlow(rollout.tenant, rollout.className, policy),
      );
    const streamError = await publish([
      ...operationEvents,
      ...(stateChanged ? [rolloutEvent(rollout, read.state, now)] : []),
    ]);
    return { rollout, saved: true, batchStarted: outcome.batchStarted, streamError };
  }

  async function find(tenant: string, rolloutId: string): Promise<RolloutRecord> {
    const record = await rollouts.get(tenant, rolloutId);
    if (!record) throw new BeaconError("not_found", "No such rollout");
    return record;
  }

  /**
   * A person's action: re-read and re-applied when a look wrote the rollout meanwhile. `change` returns
   * the changed rollout and the class policy to write with it, or throws when the action does not apply.
   */
  async function act(
    tenant: string,
    rolloutId: string,
    change: (
      record: RolloutRecord,
      timing: ClassTiming,
    ) => { record: RolloutRecord; policy?: ClassFlowPolicy },
  ): Promise<{ rollout: RolloutRecord; streamError?: unknown }> {
    for (let attempt = 1; ; attempt++) {
      const read = await find(tenant, rolloutId);
      const timing = timingOf(await classes.get(tenant, read.className));
      const { record, policy } = change(structuredClone(read), timing);
      const now = clock.now();
      record.version = read.version + 1;
      record.updatedAt = now;
      if (isRolloutFinal(record.state)) record.finishedAt = now;
      if (await rollouts.save(record, read.version, policy)) {
        if (policy)
          await guardedCache().attempt(() => hotState.rememberClassFlow(tenant, record.className, policy));
        return { rollout: record, streamError: await publish([rolloutEvent(record, read.state, now)]) };
      }
      if (attempt >= ACTION_ATTEMPTS)
        throw new BeaconError(
          "rollout_conflict",
          "The rollout kept changing while the action was applied; try again",
        );
    }
  }

  const refuse = (record: RolloutRecord, action: string): never => {
    throw new BeaconError("rollout_state", `The rollout is ${record.state}: it cannot be ${action}`);
  };

  return {
    /**
     * Starts a rollout of a flow version to a class and takes its first look, which queues the canary.
     * While it runs, the class accepts both versions; the previous one stays the catch-up target.
     */
    async start(request: {
      tenant: string;
      className: string;
      toFlow: string;
      plan: RolloutPlan;
      createdBy: string;
    }): Promise<AdvanceOutcome> {
      const { tenant, className, toFlow, plan } = request;
      const classRecord = await classes.get(tenant, className);
      const timing = timingOf(classRecord);
      const fromFlow = classRecord?.flowPolicy?.target;
      if (fromFlow === toFlow)
        throw new BeaconError("invalid_request", "The class's agents are brought to this version already");
      const now = clock.now();
      const classSize = await registry.count(tenant, className);
      const record: RolloutRecord = dropUndefined({
        tenant,
        rolloutId: `ro-${String(now).padStart(13, "0")}-${ids.newId()}`,
        className,
        fromFlow,
        toFlow,
        state: "canary" as const,
        plan,
        classSize,
        canarySize: sizeOf(plan.canary, classSize),
        batches: 0,
        exhausted: false,
        counts: emptyCounts(),
        settled: emptyCounts(),
        acceptedFailures: 0,
        createdAt: now,
        createdBy: request.createdBy,
        updatedAt: now,
        version: 1,
      });
      const policy =
        fromFlow === undefined ? undefined : policyOf(fromFlow, [fromFlow, toFlow], timing.ackTimeoutMs);
      if (!(await rollouts.start(record, policy)))
        throw new BeaconError(
          "rollout_in_progress",
          "The class has a rollout under way: pause, finish or abort it first",
        );
      await guardedCache().attempt(() => hotState.rememberClassFlow(tenant, className, policy));
      const streamError = await publish([rolloutEvent(record, undefined, now)]);
      const first = await look(record);
      return { ...first, streamError: first.streamError ?? streamError };
    },

    /** One look at one rollout, as the sweeper and the console's actions take it. */
    async advance(tenant: string, rolloutId: string): Promise<AdvanceOutcome> {
      return look(await find(tenant, rolloutId));
    },

    /**
     * The sweeper's run: one look at every active rollout of every tenant, oldest first; one failing does
     * not stop the others. No look starts at or after `deadline` (ms): those rollouts wait for the next run.
     */
    async advanceAll(deadline = Number.POSITIVE_INFINITY): Promise<RolloutSweepOutcome> {
      const outcome: RolloutSweepOutcome = {
        looked: 0,
        batchesStarted: 0,
        reached: {},
        heldBack: 0,
        deferred: 0,
        errors: [],
      };
      for await (const { tenant, rolloutId } of rollouts.active()) {
        if (clock.now() >= deadline) {
          outcome.deferred++;
          continue;
        }
        outcome.looked++;
        try {
          const read = await rollouts.get(tenant, rolloutId);
          if (!read) continue;
          const result = await look(read);
          if (result.batchStarted) outcome.batchesStarted++;
          if (result.heldBack) outcome.heldBack++;
          if (result.streamError !== undefined) outcome.streamError = result.streamError;
          const state = result.rollout.state;
          if (result.saved && state !== read.state && (state === "paused" || isRolloutFinal(state)))
            outcome.reached[state] = (outcome.reached[state] ?? 0) + 1;
        } catch (error) {
          outcome.errors.push({ tenant, rolloutId, error });
        }
      }
      return outcome;
    },

    pause(tenant: string, rolloutId: string, by: string) {
      return act(tenant, rolloutId, (record) => {
        if (record.state !== "canary" && record.state !== "rolling") refuse(record, "paused");
        return {
          record: {
            ...record,
            resumeTo: record.state as "canary" | "rolling",
            state: "paused",
            reason: `Paused by ${by}`,
          },
        };
      });
    },

    /** Resuming accepts the failures so far: the threshold counts the ones after. */
    resume(tenant: string, rolloutId: string) {
      return act(tenant, rolloutId, (record) => {
        if (record.state !== "paused") refuse(record, "resumed");
        const { resumeTo, reason, ...rest } = record;
        return {
          record: { ...rest, state: resumeTo ?? "rolling", acceptedFailures: record.counts.failed },
        };
      });
    },

    /**
     * Stops the rollout and returns the agents it updated to the previous version. Without one, the
     * rollout ends where it stands: updates not yet delivered are cancelled, updated agents keep the version.
     */
    async abort(tenant: string, rolloutId: string, by: string) {
      const result = await act(tenant, rolloutId, (record, timing) => {
        if (isRolloutFinal(record.state) || record.state === "rolling_back") refuse(record, "aborted");
        const reason = `Aborted by ${by}`;
        if (record.fromFlow === undefined)
          return {
            record: {
              ...record,
              state: "aborted",
              abortedBy: by,
              reason: `${reason}; the class had no previous flow version, so updated agents keep this one`,
            },
          };
        return {
          record: { ...record, state: "rolling_back", abortedBy: by, reason },
          policy: policyOf(record.fromFlow, [record.fromFlow], timing.ackTimeoutMs),
        };
      });
      if (result.rollout.state !== "aborted") return result;
      const cancelled: OperationEvent[] = [];
      for (const member of await rollouts.members(tenant, rolloutId, result.rollout.batches - 1)) {
        const update = await operations.get(tenant, member.agentId, member.operationId);
        if (update)
          cancelled.push(...(await lifecycle.cancel(update, `Its rollout was aborted by ${by}`)).events);
      }
      return { ...result, streamError: result.streamError ?? (await publish(cancelled)) };
    },
  };
}

export type RolloutEngine = ReturnType<typeof makeRolloutEngine>;
