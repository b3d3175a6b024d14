import type { AgentAssignment, AgentClassRecord, ClassCatalog } from "../agents/ports.js";
import { BeaconError } from "../errors.js";
import type { OperationEvent, RolloutEvent, RolloutState } from "../events/model.js";
import type { EventSink } from "../events/ports.js";
import { type AgentFilters, meetsHotFilters, mergedAgent, registryFiltersOf } from "../fleet/agents.js";
import { windowsState } from "../fleet/class-windows.js";
import type { FleetHotState, FleetRegistry, HotAgentState, TenantSettingsStore } from "../fleet/ports.js";
import type { ClassFlowPolicy } from "../flows/policy.js";
import type { ClassFlowWriter, FlowCatalog } from "../flows/ports.js";
import { guardedCache, tellCacheFirst } from "../guarded-cache.js";
import type { OperationLifecycle } from "../operations/lifecycle.js";
import type { OperationRecord } from "../operations/model.js";
import type { OperationStore } from "../operations/ports.js";
import type { ValuesOverClassOfEach } from "../parameters/over-class.js";
import type { ParameterStore } from "../parameters/ports.js";
import { type FlowRenderings, ownValuesOf } from "../parameters/rendered-flow-ids.js";
import type { Clock, IdGenerator } from "../ports.js";
import {
  type ActionChange,
  aborted,
  afterBatch,
  afterRollbackLook,
  approval,
  assignmentChange,
  type BatchStarted,
  batchMembers,
  type Candidate,
  type ClassTiming,
  candidateOf,
  finished,
  finishLook,
  gateOf,
  isDue,
  isSettled,
  isSubsetRollout,
  lookStep,
  memberChange,
  newRollout,
  newRolloutId,
  paused,
  type RolloutStart,
  refusal,
  resumed,
  rollbackCounts,
  rollbackTargets,
  rolloutEvent,
  startedRollout,
  startPolicy,
  timingOf,
  updateRecords,
  valuesStartPolicy,
  watchedOperationId,
} from "./decisions.js";
import { isRolloutFinal, isRolloutWaiting, type RolloutMember, type RolloutRecord } from "./model.js";
import type { RolloutStore } from "./ports.js";
import type { RolloutPreparation } from "./preparation.js";
import type { RolloutTargets } from "./targets.js";
import { valueMemberFlowIds, valueRenderings } from "./value-decisions.js";

const inProgress = () =>
  new BeaconError(
    "rollout_in_progress",
    "The class has a rollout under way: pause, finish or abort it first",
  );

/** Agents of the class index a batch reads through at most, per batch size, in one look. */
const CANDIDATES_PER_SELECTED = 10;
/** Agents read per page of the class index. */
const CLASS_PAGE_SIZE = 100;
/** Pages of the class index a batch reads at least in one look: a group's members may be few among them. */
const MIN_PAGES_PER_LOOK = 10;
/** Times a person's action is retried against a sweeper that wrote the rollout meanwhile. */
const ACTION_ATTEMPTS = 3;

/** The heartbeat period the cache's copy of the class's policy carries beside it, from the class's timing. */
export const periodOf = (timing: ClassTiming): number => timing.status.heartbeatIntervalSeconds * 1000;

export interface RolloutEngineDependencies {
  rollouts: RolloutStore;
  classes: Pick<ClassCatalog, "get">;
  /** The tenant's time zone, read only for a class with maintenance windows. */
  tenantSettings: Pick<TenantSettingsStore, "get">;
  registry: Pick<FleetRegistry, "query" | "count" | "get" | "putAssignment">;
  hotState: Pick<FleetHotState, "agents" | "markOperationsPending" | "rememberAssignment">;
  /** The agents of a rollout to a group or a selector, read at each batch. */
  targets: RolloutTargets;
  /** Where the class's policy goes as the rollout sets it, for catch-up. */
  classFlowCache: ClassFlowWriter;
  operations: Pick<OperationStore, "get">;
  lifecycle: OperationLifecycle;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  /** The agent API's public base URL, for the URLs agents download flows from. */
  agentApiUrl: string;
  /** The versions rolled out, for whether they declare parameters. */
  flows: Pick<FlowCatalog, "get">;
  /** The flow ids agents report for the versions rolled out, rendered with their values. */
  renderings: Pick<FlowRenderings, "agentFlowIds">;
  /** Class values a rollout of staged values freezes, its members' own, and the class's it puts in force. */
  parameters: Pick<ParameterStore, "list" | "put" | "remove" | "staged" | "unstage" | "freeze" | "frozen">;
  /** Members' values over their classes: their groups' and their own. */
  valuesOverClassOfEach: ValuesOverClassOfEach;
  /** What a waiting rollout brings as it starts, checked again on the class as it is now. */
  preparation: Pick<RolloutPreparation, "again">;
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
  /** Scheduled rollouts whose start time had come, started in this run. */
  started: number;
  /** Rollouts that reached a final state or paused in this run, by the state reached. */
  reached: Partial<Record<RolloutState, number>>;
  heldBack: number;
  /** Active rollouts left for the next run: the run reached its deadline first. */
  deferred: number;
  /** Looks that threw, with the rollout each was at: the others went on. */
  errors: { tenant: string; rolloutId: string; error: unknown }[];
  streamError?: unknown;
}

/**
 * Rollouts of a flow version to a class: a canary group, then batches at a pace, each gated on the health
 * of the one before; a failure threshold pauses the rollout or returns the agents it updated to the
 * previous version. Every look is a function of the stored rollout, its members, their operations and
 * the agents' hot state, written back conditionally on the version it read: looks that race (a sweeper
 * and a person) leave one winner, and a batch whose write lost is found again by the next look.
 */
export function makeRolloutEngine(deps: RolloutEngineDependencies) {
  const { rollouts, classes, registry, hotState, operations, lifecycle, clock, ids } = deps;

  /**
   * One look at a rollout: its members' health, the threshold, the next batch or the end. Writes back
   * conditionally; returns what it did.
   */
  async function look(read: RolloutRecord): Promise<AdvanceOutcome> {
    const now = clock.now();
    const outcome: AdvanceOutcome = { rollout: read, saved: false, batchStarted: false };
    // A waiting rollout has nothing to look at: it starts by its approval, or by the sweeper at its time.
    if (isRolloutFinal(read.state) || isRolloutWaiting(read.state)) return outcome;
    const classRecord = await classes.get(read.tenant, read.className);
    const timing = timingOf(classRecord);
    const group = read.group === undefined ? undefined : (await deps.targets.read(read.tenant, read)).group;
    const operationEvents: OperationEvent[] = [];
    let policy: ClassFlowPolicy | undefined;

    const rollingBack = read.state === "rolling_back";
    const current = read.batches - 1;
    const members = rollingBack
      ? await rollouts.members(read.tenant, read.rolloutId)
      : current >= 0
        ? await rollouts.members(read.tenant, read.rolloutId, current)
        : [];
    // Health needs the agents' hot state, and batches their pending markers: without the cache, wait.
    const cache = guardedCache();
    const hot = await cache.attempt(() =>
      hotState.agents(
        read.tenant,
        members.filter((member) => !isSettled(member)).map((member) => member.agentId),
      ),
    );
    if (!hot) return { ...outcome, heldBack: `The cache is unreachable: ${String(cache.error)}` };

    const looked = await evaluateAll(deps, read, members, hot, timing, now);
    let rollout: RolloutRecord;
    if (rollingBack) {
      const rolled = await rollBack(deps, read, looked, timing, now);
      operationEvents.push(...rolled.operationEvents);
      rollout = afterRollbackLook(read, rolled.members);
    } else {
      const windows = [classRecord?.maintenanceWindows, group?.maintenanceWindows];
      const step = lookStep(
        read,
        looked,
        timing,
        now,
        await windowsState(deps.tenantSettings, read.tenant, windows, now),
      );
      rollout = step.rollout;
      if (step.next === "roll back" || step.next === "complete") policy = step.policy;
      // Before the policy renders them: a look that loses the write puts the same values in force again.
      if (step.next === "complete" && rollout.stagedValues) await putInForce(deps, rollout);
      if (step.next === "roll back") {
        // Queued in this look, so catch-up (which now targets the previous version) finds them open.
        const all = await rollouts.members(rollout.tenant, rollout.rolloutId);
        const rolled = await rollBack(deps, rollout, all, timing, now);
        operationEvents.push(...rolled.operationEvents);
        rollout = { ...rollout, counts: rollbackCounts(rollout, rolled.members) };
      } else if (step.next === "batch") {
        const batch = await startBatch(deps, rollout, step.size, timing, now);
        operationEvents.push(...batch.operationEvents);
        rollout = afterBatch(rollout, batch, now);
        // A batch that found nobody is settled at once: the next look moves on, or completes.
        outcome.batchStarted = batch.memberCount > 0;
      }
    }

    const finished = finishLook(read, rollout, now);
    if (finished.unchanged && operationEvents.length === 0) return outcome;
    rollout = finished.rollout;
    const saved = await rollouts.save(rollout, read.version, policy);
    if (!saved) return { ...outcome, streamError: await publish(deps, operationEvents) };
    if (policy)
      await guardedCache().attempt(() =>
        deps.classFlowCache.rememberClassFlow(rollout.tenant, rollout.className, policy, periodOf(timing)),
      );
    const streamError = await publish(deps, [
      ...operationEvents,
      ...(rollout.state !== read.state ? [rolloutEvent(rollout, read.state, now, ids.newId())] : []),
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
    change: (record: RolloutRecord, timing: ClassTiming) => ActionChange,
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
          await guardedCache().attempt(() =>
            deps.classFlowCache.rememberClassFlow(tenant, record.className, policy, periodOf(timing)),
          );
        return {
          rollout: record,
          streamError: await publish(deps, [rolloutEvent(record, read.state, now, ids.newId())]),
        };
      }
      if (attempt >= ACTION_ATTEMPTS)
        throw new BeaconError(
          "rollout_conflict",
          "The rollout kept changing while the action was applied; try again",
        );
    }
  }

  /** The class as a rollout starts on it: where its agents come from, their number, and its timing. */
  async function classNow(request: RolloutStart, claimable: (record: AgentClassRecord | undefined) => void) {
    const { tenant, className, toFlow } = request;
    const classRecord = await classes.get(tenant, className);
    const fromFlow = classRecord?.flowPolicy?.target;
    if (fromFlow === toFlow && !request.stagedValues)
      throw new BeaconError("invalid_request", "The class's agents are brought to this version already");
    claimable(classRecord);
    const target = isSubsetRollout(request) ? await deps.targets.check(tenant, request) : undefined;
    const classSize = target
      ? await deps.targets.count(tenant, target)
      : await registry.count(tenant, className);
    // With no rollout under way, the policy accepts exactly the ids that count as its target.
    const from = { fromFlow, fromFlowIds: classRecord?.flowPolicy?.accepted, classSize };
    const approvalRequired = classRecord?.requireApproval === true || target?.group?.requireApproval === true;
    return { from, timing: timingOf(classRecord), approvalRequired };
  }

  /**
   * Puts the class under a starting rollout's policy, written with the rollout by `write` (false when the
   * class, or the rollout, changed meanwhile), and takes its first look, which queues the canary.
   */
  async function launch(
    record: RolloutRecord,
    request: RolloutStart,
    timing: ClassTiming,
    from: RolloutRecord["state"] | undefined,
    write: (policy: ClassFlowPolicy | undefined) => Promise<boolean>,
  ): Promise<AdvanceOutcome> {
    const { tenant, className } = record;
    // Frozen before the policy that names them reaches the cache, and before any member downloads them.
    if (request.stagedValues)
      await deps.parameters.freeze(tenant, className, record.rolloutId, request.stagedValues);
    const policy = request.stagedValues
      ? valuesStartPolicy(record, timing)
      : startPolicy(record.fromFlow, record.toFlow, timing, {
          from: record.fromFlowIds,
          to: request.toFlowIds,
        });
    if (!(await write(policy)))
      throw from === undefined
        ? inProgress()
        : new BeaconError("rollout_conflict", "The rollout was approved, refused or started meanwhile");
    await guardedCache().attempt(() =>
      deps.classFlowCache.rememberClassFlow(tenant, className, policy, periodOf(timing)),
    );
    const streamError = await publish(deps, [rolloutEvent(record, from, record.updatedAt, ids.newId())]);
    const first = await look(record);
    return { ...first, streamError: first.streamError ?? streamError };
  }

  /** Starts a waiting rollout (approved, or at its time), written on the version read. */
  async function startWaiting(read: RolloutRecord, waiting: RolloutRecord): Promise<AdvanceOutcome> {
    const request = await deps.preparation.again(waiting);
    const { from, timing } = await classNow(request, () => undefined);
    const record = startedRollout(waiting, request, from, clock.now());
    return launch(record, request, timing, read.state, (policy) =>
      rollouts.save(record, read.version, policy),
    );
  }

  /**
   * A scheduled rollout whose time has come starts; one whose start the class no longer allows (its checks,
   * run again, fail) ends refused by Beacon with the reason, rather than coming back every run.
   */
  async function startDue(read: RolloutRecord): Promise<AdvanceOutcome> {
    try {
      return await startWaiting(read, read);
    } catch (error) {
      if (!(error instanceof BeaconError) || error.code === "rollout_conflict") throw error;
      const reason = `Not started at its start time: ${error.message}`;
      const refused = await act(read.tenant, read.rolloutId, (record) => ({
        record: refusal(record, "beacon", reason),
      }));
      return { ...refused, saved: true, batchStarted: false };
    }
  }

  const lookOrStart = (read: RolloutRecord): Promise<AdvanceOutcome> =>
    isDue(read, clock.now()) ? startDue(read) : look(read);

  return {
    /**
     * Creates a rollout of a flow version (or of the class's staged values) to a class. It waits for a
     * second operator when the class requires approval, then for its start time when that is ahead, holding
     * the class meanwhile and touching nothing else; otherwise it starts, and its first look queues the
     * canary. While it runs, the class accepts both versions; the previous one stays the catch-up target.
     */
    async start(request: RolloutStart): Promise<AdvanceOutcome> {
      const { from, timing, approvalRequired } = await classNow(request, (classRecord) => {
        if (classRecord?.activeRolloutId !== undefined) throw inProgress();
      });
      const now = clock.now();
      const rolloutId = newRolloutId(now, ids);
      const gate = gateOf({ approvalRequired, startAt: request.startAt }, now);
      if (gate === "start") {
        const record = newRollout(request, from, rolloutId, now);
        return launch(record, request, timing, undefined, (policy) => rollouts.start(record, policy));
      }
      const record = newRollout(request, from, rolloutId, now, gate);
      if (!(await rollouts.hold(record))) throw inProgress();
      const streamError = await publish(deps, [rolloutEvent(record, undefined, now, ids.newId())]);
      return { rollout: record, saved: true, batchStarted: false, streamError };
    },

    /**
     * A second operator's approval: the rollout starts, or waits for its start time. Of two approvals at
     * once, one is written; the other fails with a conflict.
     */
    async approve(tenant: string, rolloutId: string, by: string): Promise<AdvanceOutcome> {
      const read = await find(tenant, rolloutId);
      const approved = approval(read, by, clock.now());
      if (gateOf({ approvalRequired: false, startAt: read.startAt }, clock.now()) === "start")
        return startWaiting(read, approved);
      const scheduled = await act(tenant, rolloutId, (record) => ({
        record: { ...approval(record, by, clock.now()), state: "scheduled" },
      }));
      return { ...scheduled, saved: true, batchStarted: false };
    },

    /** Ends a rollout that has not started: refused by another operator, or withdrawn by its creator. */
    refuse(tenant: string, rolloutId: string, by: string, reason?: string) {
      return act(tenant, rolloutId, (record) => ({ record: refusal(record, by, reason) }));
    },

    /**
     * One look at one rollout, as the sweeper and the console's actions take it; a scheduled one whose time
     * has come starts.
     */
    async advance(tenant: string, rolloutId: string): Promise<AdvanceOutcome> {
      return lookOrStart(await find(tenant, rolloutId));
    },

    /**
     * The sweeper's run: one look at every active rollout of every tenant, oldest first; one failing does
     * not stop the others. No look starts at or after `deadline` (ms): those rollouts wait for the next run.
     */
    async advanceAll(deadline = Number.POSITIVE_INFINITY): Promise<RolloutSweepOutcome> {
      const outcome: RolloutSweepOutcome = {
        looked: 0,
        started: 0,
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
          const result = await lookOrStart(read);
          const { state } = result.rollout;
          if (read.state === "scheduled" && !isRolloutWaiting(state) && state !== "refused")
            outcome.started++;
          if (result.batchStarted) outcome.batchesStarted++;
          if (result.heldBack) outcome.heldBack++;
          if (result.streamError !== undefined) outcome.streamError = result.streamError;
          if (result.saved && state !== read.state && (state === "paused" || isRolloutFinal(state)))
            outcome.reached[state] = (outcome.reached[state] ?? 0) + 1;
        } catch (error) {
          outcome.errors.push({ tenant, rolloutId, error });
        }
      }
      return outcome;
    },

    pause(tenant: string, rolloutId: string, by: string) {
      return act(tenant, rolloutId, (record) => paused(record, by));
    },

    /** Ends a continuous rollout that follows its group or selector: completed, its members held where they are. */
    finish(tenant: string, rolloutId: string, by: string) {
      return act(tenant, rolloutId, (record, timing) => finished(record, by, timing));
    },

    resume(tenant: string, rolloutId: string) {
      return act(tenant, rolloutId, resumed);
    },

    /**
     * Stops the rollout and returns the agents it updated to the previous version. Without one, the
     * rollout ends where it stands: updates not yet delivered are cancelled, updated agents keep the version.
     */
    async abort(tenant: string, rolloutId: string, by: string) {
      const result = await act(tenant, rolloutId, (record, timing) => aborted(record, by, timing));
      if (result.rollout.state !== "aborted") return result;
      const cancelled: OperationEvent[] = [];
      for (const member of await rollouts.members(tenant, rolloutId, result.rollout.batches - 1)) {
        const update = await operations.get(tenant, member.agentId, member.operationId);
        if (update)
          cancelled.push(...(await lifecycle.cancel(update, `Its rollout was aborted by ${by}`)).events);
      }
      return { ...result, streamError: result.streamError ?? (await publish(deps, cancelled)) };
    },
  };
}

export type RolloutEngine = ReturnType<typeof makeRolloutEngine>;

async function publish(
  deps: RolloutEngineDependencies,
  list: (OperationEvent | RolloutEvent)[],
): Promise<unknown> {
  if (list.length === 0) return undefined;
  try {
    await deps.events.publish(list);
    return undefined;
  } catch (error) {
    return error;
  }
}

/**
 * The UPDATE CONFIGURATION records that send the version `flowHash` to these agents on behalf of the rollout,
 * each to its own rendering when the version declares parameters.
 */
async function updatesOf(
  deps: RolloutEngineDependencies,
  rollout: RolloutRecord,
  agentIds: string[],
  flowHash: string,
  timing: ClassTiming,
  now: number,
): Promise<OperationRecord[]> {
  if (agentIds.length === 0) return [];
  const version = (await deps.flows.get(rollout.tenant, rollout.className, flowHash)) ?? { hash: flowHash };
  const flowIds = await deps.renderings.agentFlowIds(rollout.tenant, rollout.className, version, agentIds);
  return updateRecords(rollout, flowHash, flowIds, {
    timing,
    now,
    ids: deps.ids,
    agentApiUrl: deps.agentApiUrl,
  });
}

/**
 * The UPDATE CONFIGURATION records that bring a rollout's frozen values to these agents: only to those whose
 * rendered flow they change, each to its own rendering with them, downloaded by the rollout's route. Reads
 * the class's target, its values in force, the frozen values and each agent's over them (its groups' and own).
 */
async function valueUpdatesOf(
  deps: RolloutEngineDependencies,
  rollout: RolloutRecord,
  agentIds: string[],
  timing: ClassTiming,
  now: number,
): Promise<OperationRecord[]> {
  const { tenant, className, rolloutId } = rollout;
  if (agentIds.length === 0) return [];
  const [version, inForce, frozen, own] = await Promise.all([
    deps.flows.get(tenant, className, rollout.toFlow),
    deps.parameters.list(tenant, { layer: "class", className }),
    deps.parameters.frozen(tenant, className, rolloutId),
    deps.valuesOverClassOfEach(tenant, agentIds),
  ]);
  const renderings = version && valueRenderings(version, inForce, frozen);
  const flowIds = new Map<string, string>();
  agentIds.forEach((agentId) => {
    const moved = renderings && valueMemberFlowIds(renderings, ownValuesOf(own.get(agentId) ?? []));
    if (moved) flowIds.set(agentId, moved.to);
  });
  return updateRecords(rollout, rollout.toFlow, flowIds, {
    timing,
    now,
    ids: deps.ids,
    agentApiUrl: deps.agentApiUrl,
    valuesRollout: rolloutId,
  });
}

/**
 * Puts a completed rollout's frozen values in force as the class's, and removes the staged changes it
 * froze (those staged before it started); changes staged since stay staged for the next.
 */
async function putInForce(deps: RolloutEngineDependencies, rollout: RolloutRecord): Promise<void> {
  const { parameters } = deps;
  const { tenant, className } = rollout;
  const scope = { layer: "class" as const, className };
  const [inForce, frozen, staged] = await Promise.all([
    parameters.list(tenant, scope),
    parameters.frozen(tenant, className, rollout.rolloutId),
    parameters.staged(tenant, className),
  ]);
  await Promise.all([
    ...frozen.map((record) => parameters.put(tenant, scope, record)),
    ...inForce
      .filter((record) => !frozen.some((value) => value.name === record.name))
      .map(({ name }) => parameters.remove(tenant, scope, name)),
  ]);
  await parameters.unstage(
    tenant,
    className,
    staged.filter((change) => change.updatedAt <= rollout.createdAt),
  );
}

/**
 * Queues operations for agents: their pending markers first, or their heartbeats would not look. Throws
 * when the cache cannot take the markers, so nothing is queued that agents would not learn of. The markers
 * are set again once the operations are written: a heartbeat that read the first marker and the queue
 * before the write found nothing and cleared it.
 */
async function queue(
  deps: RolloutEngineDependencies,
  tenant: string,
  records: OperationRecord[],
): Promise<OperationEvent[]> {
  const { hotState, lifecycle } = deps;
  if (records.length === 0) return [];
  const agentIds = records.map((record) => record.agentId);
  await hotState.markOperationsPending(tenant, agentIds);
  const { events } = await lifecycle.create(records);
  // Failing now, it leaves the first markers, which only a heartbeat in between has cleared.
  await hotState.markOperationsPending(tenant, agentIds).catch(() => undefined);
  return events;
}

/** Moves the members that changed, conditionally; a member another look moved first keeps that move. */
async function evaluateAll(
  deps: RolloutEngineDependencies,
  rollout: RolloutRecord,
  members: RolloutMember[],
  hot: Map<string, HotAgentState>,
  timing: ClassTiming,
  now: number,
): Promise<RolloutMember[]> {
  const { operations, rollouts } = deps;
  return Promise.all(
    members.map(async (member) => {
      const operationId = watchedOperationId(member);
      const operation =
        operationId === undefined
          ? undefined
          : await operations.get(rollout.tenant, member.agentId, operationId);
      const change = memberChange(rollout, member, operation, hot.get(member.agentId), timing, now);
      if (!change) return member;
      const moved = { ...member, ...change } as RolloutMember;
      // Held on the new version (or let go of another's) before it counts as there: a look that loses writes it again.
      if (moved.state === "soaking")
        await assign(deps, rollout, member.agentId, assignmentChange(rollout, moved));
      return (await rollouts.updateMember(moved, member.state)) ? moved : member;
    }),
  );
}

/**
 * Writes an agent's assignment through, the cache first (refused while it is unreachable, as a pin is): none
 * drops it; `"keep"` writes nothing.
 */
async function assign(
  deps: RolloutEngineDependencies,
  rollout: RolloutRecord,
  agentId: string,
  assignment: AgentAssignment | undefined | "keep",
): Promise<void> {
  if (assignment === "keep") return;
  await tellCacheFirst(
    () => deps.hotState.rememberAssignment(rollout.tenant, agentId, assignment),
    "the agent's heartbeats would not learn of its assignment",
  );
  await deps.registry.putAssignment(rollout.tenant, agentId, assignment);
}

/**
 * Picks the next agents of the rollout's target (its class, or the class's agents in its group or selector,
 * read now) from the class's index, after the cursor: online, not on the new version yet, not pinned, and
 * able to take UPDATE CONFIGURATION. The others are passed over; catch-up brings them (all but the pinned)
 * to the class's flow once the rollout completes.
 */
async function selectAgents(
  deps: RolloutEngineDependencies,
  rollout: RolloutRecord,
  size: number,
  timing: ClassTiming,
  now: number,
) {
  const { registry, hotState } = deps;
  const { filters } = await deps.targets.read(rollout.tenant, rollout);
  const chosen: Candidate[] = [];
  let skipped = 0;
  let examined = 0;
  let cursor = rollout.cursor;
  // A group none of whose binaries any agent runs now has no member to read.
  let exhausted = filters === undefined;
  const maxPages = Math.max(MIN_PAGES_PER_LOOK, (size * CANDIDATES_PER_SELECTED) / CLASS_PAGE_SIZE);
  for (let pages = 0; !exhausted && chosen.length < size && pages < maxPages; pages++) {
    if (examined >= size * CANDIDATES_PER_SELECTED) break;
    const page = await registry.query(rollout.tenant, {
      ...registryFiltersOf(filters as AgentFilters),
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
      cursor = agent.agentId;
      const hotAgent = hot.get(agent.agentId);
      // The filters on the cache's values (status, last seen) and the pin, as the list applies them; the
      // status by the class's timing, as the engine's health checks judge it.
      const merged = mergedAgent(agent, hotAgent, () => timing.status, now);
      if (!meetsHotFilters(merged, filters as AgentFilters)) continue;
      examined++;
      const candidate = candidateOf(rollout, agent, hotAgent, timing, now);
      if (!candidate) {
        skipped++;
        continue;
      }
      chosen.push(candidate);
    }
    // A filtered page may end before its last item read: it goes on from where the registry stopped.
    if (wholePage) cursor = page.last ?? cursor;
    exhausted = wholePage && page.last === undefined;
  }
  // A following rollout reads its class again and again: agents that are its members already are not taken twice.
  if (rollout.state === "following" && chosen.length > 0) {
    const members = new Set(
      (await deps.rollouts.members(rollout.tenant, rollout.rolloutId)).map((member) => member.agentId),
    );
    return { chosen: chosen.filter((agent) => !members.has(agent.agentId)), skipped, cursor, exhausted };
  }
  return { chosen, skipped, cursor, exhausted };
}

/**
 * Starts the next batch: members first, then operations for the members this look wrote. A retried
 * batch keeps the members it has, and a look racing this one queues for the members it wrote: each
 * agent gets one update, the one its member names.
 */
async function startBatch(
  deps: RolloutEngineDependencies,
  rollout: RolloutRecord,
  size: number,
  timing: ClassTiming,
  now: number,
): Promise<BatchStarted & { operationEvents: OperationEvent[] }> {
  const { rollouts } = deps;
  const selection = await selectAgents(deps, rollout, size, timing, now);
  const agentIds = new Set(
    (await rollouts.members(rollout.tenant, rollout.rolloutId, rollout.batches)).map(
      (member) => member.agentId,
    ),
  );
  const ids = selection.chosen.map((agent) => agent.agentId);
  const updates = rollout.stagedValues
    ? await valueUpdatesOf(deps, rollout, ids, timing, now)
    : await updatesOf(deps, rollout, ids, rollout.toFlow, timing, now);
  if (rollout.stagedValues) {
    // The agents whose rendered flow the values leave as it is are passed over.
    const moved = new Set(updates.map((update) => update.agentId));
    selection.skipped += selection.chosen.length - moved.size;
    selection.chosen = selection.chosen.filter((agent) => moved.has(agent.agentId));
  }
  const written = await rollouts.addMembers(batchMembers(rollout, selection.chosen, updates, now));
  const ours = new Set(written.map((member) => member.operationId));
  const operationEvents = await queue(
    deps,
    rollout.tenant,
    updates.filter((record) => ours.has(record.operationId)),
  );
  for (const agent of selection.chosen) agentIds.add(agent.agentId);
  return { ...selection, memberCount: agentIds.size, operationEvents };
}

/**
 * Returns the updated agents to the previous version: an update still queued is cancelled, anything
 * else gets an UPDATE CONFIGURATION back to `fromFlow`. Bounded per look; the rest follow on the next.
 */
async function rollBack(
  deps: RolloutEngineDependencies,
  rollout: RolloutRecord,
  members: RolloutMember[],
  timing: ClassTiming,
  now: number,
) {
  const { operations, lifecycle, rollouts } = deps;
  const operationEvents: OperationEvent[] = [];
  const moved = new Map<string, RolloutMember>();
  const toSend: RolloutMember[] = [];
  /** Settles the member as rolled back without sending it anything. */
  const leave = async (member: RolloutMember, reason: string) => {
    const change = { ...member, state: "rolled_back" as const, settledAt: now, reason };
    if (await rollouts.updateMember(change, member.state)) moved.set(member.agentId, change);
  };
  for (const member of rollbackTargets(members)) {
    // A member it held on the new version by an assignment is let go of, back to the class's target.
    if (isSubsetRollout(rollout) && member.soakingSince !== undefined)
      await assign(deps, rollout, member.agentId, undefined);
    const update = await operations.get(rollout.tenant, member.agentId, member.operationId);
    if (update?.state === "queued") {
      const result = await lifecycle.cancel(update, "Its rollout is rolling back");
      operationEvents.push(...result.events);
      if (result.cancelled) {
        await leave(member, "Never delivered");
        continue;
      }
    }
    // A rollback never moves an agent pinned since it was updated.
    if ((await deps.registry.get(rollout.tenant, member.agentId))?.pin) {
      await leave(member, "Pinned to its flow version, where it is left");
      continue;
    }
    toSend.push(member);
  }
  const records = await updatesOf(
    deps,
    rollout,
    toSend.map((member) => member.agentId),
    rollout.fromFlow as string,
    timing,
    now,
  );
  operationEvents.push(...(await queue(deps, rollout.tenant, records)));
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
