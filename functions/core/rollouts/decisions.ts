/**
 * What a rollout decides, as functions of plain values: a member's health, the look's next step, the
 * batch it starts, a person's actions. The engine (engine.ts) reads and writes around these decisions.
 */
import type { AgentAssignment, AgentClassRecord, AgentRecord } from "../agents/ports.js";
import { ackTimeoutMsOf, onlineSince, type StatusRule, statusOf, statusRuleOf } from "../agents/status.js";
import { supports } from "../c2/manifest.js";
import type { Bulletin } from "../c2/model.js";
import { BeaconError } from "../errors.js";
import type { RolloutCounts, RolloutEvent, RolloutState } from "../events/model.js";
import type { HotAgentState } from "../fleet/ports.js";
import type { ClassFlowPolicy } from "../flows/policy.js";
import { dropUndefined } from "../json.js";
import { operationsOfAgent } from "../manifests/agent-manifest.js";
import { newUpdateConfiguration } from "../operations/lifecycle.js";
import { isFinal, type OperationRecord } from "../operations/model.js";
import type { ParameterRecord } from "../parameters/model.js";
import type { IdGenerator } from "../ports.js";
import type { WindowState } from "../schedules/windows.js";
import { rolloutCreator } from "./creator.js";
import {
  canRolloutTransition,
  countOf,
  emptyCounts,
  isRolloutFinal,
  isRolloutWaiting,
  type RolloutMember,
  type RolloutPlan,
  type RolloutRecord,
  type RolloutSelector,
  sizeOf,
  thresholdReached,
  type UpdatingState,
  type WaitingState,
} from "./model.js";

/** Rollback operations one look queues at most; the rest follow on the next. */
const ROLLBACKS_PER_LOOK = 1_000;

/** The class's flow policies a rollout sets as it goes. */
export const policyOf = (
  target: string,
  accepted: string[],
  ackTimeoutMs: number | undefined,
): ClassFlowPolicy => dropUndefined({ target, accepted: [...new Set(accepted)], ackTimeoutMs });

/** The flow ids agents report that count as the previous version: none when the class had none. */
export const previousFlowIds = (rollout: RolloutRecord): string[] =>
  rollout.fromFlowIds ?? (rollout.fromFlow === undefined ? [] : [rollout.fromFlow]);

/** The flow ids agents report that count as the version the rollout brings. */
export const newFlowIds = (rollout: RolloutRecord): string[] => rollout.toFlowIds ?? [rollout.toFlow];

/**
 * The flow ids the class accepts once the rollout completed: the new version's; for a rollout of staged
 * values, the target's as before, which the values now in force render as the members run it.
 */
export const completedFlowIds = (rollout: RolloutRecord): string[] =>
  rollout.stagedValues ? previousFlowIds(rollout) : newFlowIds(rollout);

/** A rollout to a group or a selector: it leaves its class's target as it is, holding its members by assignments. */
export const isSubsetRollout = (rollout: Pick<RolloutRecord, "group" | "selector">): boolean =>
  rollout.group !== undefined || rollout.selector !== undefined;

/**
 * The class's policy once the rollout ended well (completed, or finished): the new version's; for a rollout
 * to a group or selector, the previous one as before (undefined when the class had none), the members it
 * updated held on the new version by their assignments.
 */
export function completionPolicy(rollout: RolloutRecord, timing: ClassTiming): ClassFlowPolicy | undefined {
  if (!isSubsetRollout(rollout))
    return policyOf(rollout.toFlow, completedFlowIds(rollout), timing.ackTimeoutMs);
  return rollout.fromFlow === undefined
    ? undefined
    : policyOf(rollout.fromFlow, previousFlowIds(rollout), timing.ackTimeoutMs);
}

/**
 * What holds a member of a rollout to a group or selector on the new version once it runs it: its own flow
 * id first (its rendering's), over the class's target as it was when the rollout started.
 */
export const assignmentOf = (rollout: RolloutRecord, member: RolloutMember): AgentAssignment =>
  dropUndefined({
    flow: rollout.toFlow,
    flowIds: [...new Set([memberFlowIdOf(rollout, member), ...newFlowIds(rollout)])],
    over: rollout.fromFlow,
    rolloutId: rollout.rolloutId,
  });

/**
 * The assignment a member's agent gets as it comes to run the new version: the rollout's own for a rollout to
 * a group or selector; none (dropped) for a rollout of the whole class to an agent another one held; for
 * the rest, nothing to write (`"keep"`).
 */
export function assignmentChange(
  rollout: RolloutRecord,
  member: RolloutMember,
): AgentAssignment | undefined | "keep" {
  if (isSubsetRollout(rollout)) return assignmentOf(rollout, member);
  return member.heldByAssignment ? undefined : "keep";
}

/** What the class says about its agents' timing. */
export interface ClassTiming {
  /** When an agent counts as online: the console's rule, on last-seen times from the cache (no registry lag). */
  status: StatusRule;
  ackTimeoutMs?: number;
}

export const timingOf = (record: AgentClassRecord | undefined): ClassTiming => ({
  status: statusRuleOf(record, 0),
  ackTimeoutMs: ackTimeoutMsOf(record),
});

/** Members per state over `base`; one rolled back after failing counts among the failed too. */
export function tally(members: RolloutMember[], base: RolloutCounts = emptyCounts()): RolloutCounts {
  const counts = { ...base };
  for (const member of members) {
    counts[countOf[member.state]]++;
    if (member.state !== "failed" && member.failedAt !== undefined) counts.failed++;
    counts.selected++;
  }
  return counts;
}

export const isSettled = (member: RolloutMember): boolean =>
  member.state !== "updating" && member.state !== "soaking";

/** How an operation closed, as a member's reason: the agent's acknowledgement, or why Beacon closed it. */
export function closingOf(operation: OperationRecord): string {
  const said = operation.failureCause ?? operation.details;
  if (operation.ackState) return `Acknowledged ${operation.ackState}${said ? `: ${said}` : ""}`;
  return `The operation ${operation.state.replace("_", " ")}${operation.reason ? `: ${operation.reason}` : ""}`;
}

/** The newest ERROR bulletin the agent raised at or after `since`, from its last heartbeat's bulletins. */
export function newErrorBulletin(bulletins: Bulletin[] | undefined, since: number): Bulletin | undefined {
  let newest: Bulletin | undefined;
  for (const bulletin of bulletins ?? []) {
    if (bulletin.level?.toUpperCase() !== "ERROR" || (bulletin.timestamp ?? 0) < since) continue;
    if (!newest || (bulletin.timestamp ?? 0) > (newest.timestamp ?? 0)) newest = bulletin;
  }
  return newest;
}

/** The operation whose state a member waits on: its rollback's, or its update's; none once it settled. */
export function watchedOperationId(member: RolloutMember): string | undefined {
  if (member.state === "rolling_back") return member.rollbackOperationId ?? "";
  if (member.state === "updating") return member.operationId;
  return undefined;
}

/**
 * Where one member stands now, or undefined when nothing changed: from the operation it waits on (as
 * `watchedOperationId` names it, undefined when gone) and the agent's hot state.
 */
export function memberChange(
  rollout: RolloutRecord,
  member: RolloutMember,
  operation: OperationRecord | undefined,
  hot: HotAgentState | undefined,
  timing: ClassTiming,
  now: number,
): Partial<RolloutMember> | undefined {
  // An agent heartbeating as the class expects: as long as the console would show it online.
  const heartbeatingSince = onlineSince(now, timing.status, "cache");
  const failed = (reason: string): Partial<RolloutMember> => ({
    state: "failed",
    settledAt: now,
    failedAt: now,
    reason,
  });
  if (member.state === "rolling_back") {
    const rollback = operation;
    if (!rollback || !isFinal(rollback.state)) return undefined;
    return rollback.state === "done"
      ? { state: "rolled_back", settledAt: now }
      : {
          state: "rollback_failed",
          settledAt: now,
          reason: `The rollback: ${closingOf(rollback)}`,
        };
  }
  if (member.state === "updating") {
    const update = operation;
    if (!update) return failed("Its update operation is gone");
    if (!isFinal(update.state)) return undefined;
    // Done by a FULLY_APPLIED acknowledgement, or by a heartbeat that reported the new flow after a lost one.
    const applied = update.ackState === "FULLY_APPLIED" || update.confirmedBy === "heartbeat";
    if (update.state !== "done" || !applied) return failed(closingOf(update));
    if (hot?.flowId === memberFlowIdOf(rollout, member)) return { state: "soaking", soakingSince: now };
    // The agent reports its new flow id in the heartbeats after its acknowledgement.
    if ((update.finishedAt ?? now) < heartbeatingSince)
      return failed(`Acknowledged FULLY_APPLIED but reports flow ${hot?.flowId ?? "none"}`);
    return undefined;
  }
  if (member.state === "soaking") {
    if (hot?.flowId !== memberFlowIdOf(rollout, member))
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

/** An agent a batch takes: the flow id it reports, and whether another rollout's assignment holds it. */
export interface Candidate {
  agentId: string;
  flowId?: string;
  heldByAssignment?: boolean;
}

/**
 * An agent of the class a batch may take, as the registry and the cache know it: online, not on the new
 * version yet, not pinned, and taking UPDATE CONFIGURATION by the manifest of the hash it reports now;
 * undefined when it is passed over.
 */
export function candidateOf(
  rollout: RolloutRecord,
  agent: AgentRecord,
  hot: HotAgentState | undefined,
  timing: ClassTiming,
  now: number,
): Candidate | undefined {
  const flowId = hot?.flowId ?? agent.flowId;
  const online = statusOf(hot?.lastSeen ?? agent.lastSeen, now, timing.status, "cache") === "online";
  const operations = operationsOfAgent(agent, hot?.manifestHash ?? agent.manifestHash);
  if (flowId !== undefined && newFlowIds(rollout).includes(flowId)) return undefined;
  // A pinned agent stays on its version, whatever the rollout brings.
  if (agent.pin) return undefined;
  if (!online || !operations || !supports(operations, "UPDATE", "CONFIGURATION")) return undefined;
  return dropUndefined({
    agentId: agent.agentId,
    flowId,
    heldByAssignment: agent.assignment !== undefined && !isSubsetRollout(rollout) ? true : undefined,
  });
}

/**
 * The UPDATE CONFIGURATION records that send the version `flowHash` to these agents on behalf of the rollout,
 * each going by the flow id it reports once it runs it (`flowIds`, its own rendering's when the version
 * declares parameters; the hash itself for an agent not named).
 */
export function updateRecords(
  rollout: RolloutRecord,
  flowHash: string,
  flowIds: ReadonlyMap<string, string>,
  request: {
    timing: ClassTiming;
    now: number;
    ids: IdGenerator;
    agentApiUrl: string;
    /** The rollout whose frozen values the agents' downloads render: its own, on its way forward. */
    valuesRollout?: string;
  },
): OperationRecord[] {
  return [...flowIds].map(([agentId, flowId]) =>
    newUpdateConfiguration({
      tenant: rollout.tenant,
      agentId,
      flowHash,
      renderedFlowId: flowId === flowHash ? undefined : flowId,
      valuesRollout: request.valuesRollout,
      agentApiUrl: request.agentApiUrl,
      createdBy: rolloutCreator(rollout.rolloutId),
      agentClass: rollout.className,
      now: request.now,
      ids: request.ids,
      rolloutId: rollout.rolloutId,
      ackTimeoutMs: request.timing.ackTimeoutMs,
    }),
  );
}

/** The flow id the update makes its agent report, when it is another than the version's hash (its rendering's). */
function newFlowIdOf(rollout: RolloutRecord, update: OperationRecord): string | undefined {
  const flowId = update.args?.flowId;
  return typeof flowId === "string" && flowId !== rollout.toFlow ? flowId : undefined;
}

/** The flow id a member reports once it runs the rollout's version. */
export const memberFlowIdOf = (rollout: RolloutRecord, member: RolloutMember): string =>
  member.newFlowId ?? rollout.toFlow;

/** The members of a new batch, each named by the update operation that carries the new version to it. */
export function batchMembers(
  rollout: RolloutRecord,
  chosen: Candidate[],
  updates: OperationRecord[],
  now: number,
): RolloutMember[] {
  return chosen.map((agent, index) =>
    dropUndefined({
      tenant: rollout.tenant,
      rolloutId: rollout.rolloutId,
      agentId: agent.agentId,
      batch: rollout.batches,
      state: "updating" as const,
      operationId: (updates[index] as OperationRecord).operationId,
      heldByAssignment: agent.heldByAssignment,
      previousFlowId: agent.flowId,
      newFlowId: newFlowIdOf(rollout, updates[index] as OperationRecord),
      selectedAt: now,
    }),
  );
}

/** The members a look returns to the previous version: those not on their way back yet, a bounded number. */
export const rollbackTargets = (members: RolloutMember[]): RolloutMember[] =>
  members
    .filter(
      (member) =>
        member.state !== "rolling_back" &&
        member.state !== "rolled_back" &&
        member.state !== "rollback_failed",
    )
    .slice(0, ROLLBACKS_PER_LOOK);

/** Enters the rollback, or pauses when there is no previous version to return to. */
export function tripTo(rollout: RolloutRecord, reason: string): { state: RolloutState; reason: string } {
  if (rollout.plan.onFailure === "pause") return { state: "paused", reason };
  if (rollout.fromFlow === undefined)
    return { state: "paused", reason: `${reason}; the class had no previous flow version to roll back to` };
  return { state: "rolling_back", reason };
}

/** The counts of a rollout that rolls back: over every member, with the agents it passed over. */
export const rollbackCounts = (rollout: RolloutRecord, members: RolloutMember[]): RolloutCounts =>
  tally(members, { ...emptyCounts(), skipped: rollout.settled.skipped });

/** A look at a rollout that rolls back: its counts, and its end once every member is back or failed to be. */
export function afterRollbackLook(rollout: RolloutRecord, members: RolloutMember[]): RolloutRecord {
  const returned = members.every(
    (member) => member.state === "rolled_back" || member.state === "rollback_failed",
  );
  return {
    ...rollout,
    counts: rollbackCounts(rollout, members),
    state: returned ? (rollout.abortedBy ? "aborted" : "rolled_back") : rollout.state,
  };
}

/**
 * What a look at an updating (or paused) rollout does after its current batch's health: the rollout with
 * its counts and state, and what follows. A trip to the rollback returns every updated agent, under the
 * previous version's policy; a completion brings the class to the new version; a batch takes `size` agents.
 */
export type LookStep =
  | { next: "wait"; rollout: RolloutRecord }
  | { next: "roll back"; rollout: RolloutRecord; policy: ClassFlowPolicy }
  | { next: "complete"; rollout: RolloutRecord; policy?: ClassFlowPolicy }
  | { next: "batch"; rollout: RolloutRecord; size: number };

export function lookStep(
  read: RolloutRecord,
  members: RolloutMember[],
  timing: ClassTiming,
  now: number,
  /** The class's maintenance windows at `now`: always open for a class without any. */
  window: WindowState = { open: true },
): LookStep {
  const { waitingForWindow: _waited, ...unwaited } = read;
  const rollout: RolloutRecord = { ...unwaited, counts: tally(members, read.settled) };
  const failures = rollout.counts.failed - rollout.acceptedFailures;
  if (
    rollout.state !== "paused" &&
    thresholdReached(rollout.plan.failureThreshold, failures, rollout.counts.selected)
  ) {
    const trip = tripTo(
      rollout,
      `${rollout.counts.failed} of ${rollout.counts.selected} updated agents failed`,
    );
    if (trip.state === "paused") rollout.resumeTo = rollout.state as UpdatingState;
    rollout.state = trip.state;
    rollout.reason = trip.reason;
    if (trip.state !== "rolling_back") return { next: "wait", rollout };
    const fromFlow = rollout.fromFlow as string;
    return {
      next: "roll back",
      rollout,
      policy: policyOf(fromFlow, previousFlowIds(rollout), timing.ackTimeoutMs),
    };
  }
  if (rollout.state === "paused" || !members.every(isSettled)) return { next: "wait", rollout };
  if (rollout.state === "canary" && rollout.batches > 0) rollout.state = "rolling";
  // A batch and a completion both send operations; the health gate and a rollback above never wait.
  if (!window.open) return { next: "wait", rollout: { ...rollout, waitingForWindow: window.nextOpening } };
  // A continuous rollout that passed its class follows it, reading it again from the start.
  if (rollout.exhausted && rollout.continuous)
    Object.assign(rollout, { state: "following", cursor: undefined, exhausted: false });
  if (rollout.exhausted) {
    return {
      next: "complete",
      rollout: { ...rollout, state: "completed", finishedAt: now },
      policy: completionPolicy(rollout, timing),
    };
  }
  const paced =
    rollout.lastBatchAt === undefined ||
    now - rollout.lastBatchAt >= rollout.plan.batchIntervalSeconds * 1000;
  if (!paced) return { next: "wait", rollout };
  const size = rollout.state === "canary" ? Math.max(1, rollout.canarySize) : rollout.plan.batchSize;
  // A following rollout's batch that finds nobody is no batch: afterBatch settles the one before as it finds some.
  if (rollout.state === "following") return { next: "batch", rollout, size };
  return { next: "batch", rollout: { ...rollout, settled: rollout.counts }, size };
}

/** What starting a batch found: the agents it passed over, where the class index stands, its members. */
export interface BatchStarted {
  /** Agents of the class passed over: offline, on the version already, or unable to take it. */
  skipped: number;
  /** The agent id the next batch reads on from in the class's index. */
  cursor?: string;
  exhausted: boolean;
  /** The batch's members, those written by a look that raced this one included. */
  memberCount: number;
}

/**
 * The rollout once a batch started: it counts the batch's members as updating. A following rollout's batch
 * that found nobody is no batch: it only moves the cursor on, back to the start once at the end, and counts
 * none of the agents it passed over again.
 */
export function afterBatch(rollout: RolloutRecord, batch: BatchStarted, now: number): RolloutRecord {
  if (rollout.state === "following") {
    if (batch.memberCount === 0)
      return dropUndefined({
        ...rollout,
        cursor: batch.exhausted ? undefined : batch.cursor,
        exhausted: false,
      });
    rollout = { ...rollout, settled: rollout.counts };
    batch = { ...batch, skipped: 0 };
  }
  const settled = { ...rollout.settled, skipped: rollout.settled.skipped + batch.skipped };
  return {
    ...rollout,
    batches: rollout.batches + 1,
    lastBatchAt: now,
    cursor: batch.cursor,
    exhausted: batch.exhausted,
    settled,
    counts: {
      ...settled,
      selected: settled.selected + batch.memberCount,
      updating: settled.updating + batch.memberCount,
    },
  };
}

/**
 * The look's rollout as it is written: a new version, the time, and its end when final. `unchanged` when the
 * look changed nothing but the time, which is not written: most looks wait on agents.
 */
export function finishLook(
  read: RolloutRecord,
  looked: RolloutRecord,
  now: number,
): { rollout: RolloutRecord; unchanged: boolean } {
  if (!canRolloutTransition(read.state, looked.state))
    throw new Error(`No rollout transition from ${read.state} to ${looked.state}`);
  const rollout = { ...looked, updatedAt: now, version: read.version + 1 };
  if (isRolloutFinal(rollout.state)) rollout.finishedAt ??= now;
  const unchanged =
    JSON.stringify({ ...rollout, updatedAt: read.updatedAt, version: read.version }) === JSON.stringify(read);
  return { rollout, unchanged };
}

/** What starting a rollout asks for: the version, the class, the plan and who asked. */
export interface RolloutStart {
  tenant: string;
  className: string;
  /** The group, or filters, narrowing the class's agents it takes; `continuous` keeps following them. */
  group?: string;
  selector?: RolloutSelector;
  continuous?: boolean;
  toFlow: string;
  /** The flow ids agents report for the new version (flowIdsOf); its hash alone when absent. */
  toFlowIds?: string[];
  /** The class's values as a rollout of its staged changes brings them: `toFlow` is then the class's target. */
  stagedValues?: ParameterRecord[];
  plan: RolloutPlan;
  createdBy: string;
  /** Starts then, not before (epoch ms). */
  startAt?: number;
  /** Rolls out even to agents whose manifests lack types the flow uses. */
  allowIncompatible?: boolean;
}

/** A new rollout of a flow version to a class of `classSize` agents, in its canary or waiting to start. */
export function newRollout(
  request: RolloutStart,
  from: { fromFlow: string | undefined; fromFlowIds?: string[]; classSize: number },
  rolloutId: string,
  now: number,
  state: "canary" | WaitingState = "canary",
): RolloutRecord {
  return dropUndefined({
    tenant: request.tenant,
    rolloutId,
    className: request.className,
    group: request.group,
    selector: request.selector,
    continuous: request.continuous,
    fromFlow: from.fromFlow,
    toFlow: request.toFlow,
    fromFlowIds: from.fromFlowIds,
    toFlowIds: request.toFlowIds,
    stagedValues: request.stagedValues && true,
    state,
    plan: request.plan,
    classSize: from.classSize,
    canarySize: sizeOf(request.plan.canary, from.classSize),
    batches: 0,
    exhausted: false,
    counts: emptyCounts(),
    settled: emptyCounts(),
    acceptedFailures: 0,
    startAt: request.startAt,
    allowIncompatible: request.allowIncompatible,
    createdAt: now,
    createdBy: request.createdBy,
    updatedAt: now,
    version: 1,
  });
}

/**
 * Where a rollout goes once created, or approved: it waits for a second operator when its class requires one,
 * then for its start time when that is ahead, or starts now.
 */
export function gateOf(
  gates: { approvalRequired: boolean; startAt?: number },
  now: number,
): WaitingState | "start" {
  if (gates.approvalRequired) return "awaiting_approval";
  return gates.startAt !== undefined && gates.startAt > now ? "scheduled" : "start";
}

/** A scheduled rollout whose start time has come. */
export const isDue = (record: RolloutRecord, now: number): boolean =>
  record.state === "scheduled" && (record.startAt ?? 0) <= now;

/** A second operator's approval (four eyes: never its creator's), which lets it start or wait for its time. */
export function approval(record: RolloutRecord, by: string, now: number): RolloutRecord {
  if (record.state !== "awaiting_approval") refuse(record, "approved");
  if (by === record.createdBy)
    throw new BeaconError(
      "forbidden",
      "A rollout is approved by another operator than the one who created it",
    );
  return { ...record, approvedBy: by, approvedAt: now };
}

/** Refusing ends a rollout that has not started: another operator's no, or its creator withdrawing it. */
export function refusal(record: RolloutRecord, by: string, reason?: string): RolloutRecord {
  if (!isRolloutWaiting(record.state)) refuse(record, "refused");
  return { ...record, state: "refused", refusedBy: by, reason: reason ?? `Refused by ${by}` };
}

/**
 * The rollout a waiting one becomes as it starts: in its canary, sized and coming from the class as it is
 * now, bringing what its start request (checked again) brings; its approval stays.
 */
export function startedRollout(
  waiting: RolloutRecord,
  request: RolloutStart,
  from: { fromFlow: string | undefined; fromFlowIds?: string[]; classSize: number },
  now: number,
): RolloutRecord {
  return dropUndefined({
    ...newRollout(request, from, waiting.rolloutId, waiting.createdAt),
    approvedBy: waiting.approvedBy,
    approvedAt: waiting.approvedAt,
    updatedAt: now,
    version: waiting.version + 1,
  });
}

/** The rollout's id: the time first, so a class's rollouts list newest first. */
export const newRolloutId = (now: number, ids: IdGenerator): string =>
  `ro-${String(now).padStart(13, "0")}-${ids.newId()}`;

/**
 * The class's policy while a rollout runs: both versions accepted, by every flow id that counts as each,
 * the previous one still the target.
 */
export const startPolicy = (
  fromFlow: string | undefined,
  toFlow: string,
  timing: ClassTiming,
  flowIds: { from?: string[]; to?: string[] } = {},
): ClassFlowPolicy | undefined =>
  fromFlow === undefined
    ? undefined
    : policyOf(fromFlow, [...(flowIds.from ?? [fromFlow]), ...(flowIds.to ?? [toFlow])], timing.ackTimeoutMs);

/**
 * The class's policy while a rollout of its staged values runs: the target as it was, also accepted
 * rendered with the values the rollout froze (the cache renders it so from `valuesRollout`).
 */
export const valuesStartPolicy = (
  rollout: Pick<RolloutRecord, "rolloutId" | "toFlow" | "fromFlowIds">,
  timing: ClassTiming,
): ClassFlowPolicy => ({
  ...policyOf(rollout.toFlow, rollout.fromFlowIds ?? [rollout.toFlow], timing.ackTimeoutMs),
  valuesRollout: rollout.rolloutId,
});

/** A rollout's state change on the stream, with its counts at that moment. */
export function rolloutEvent(
  record: RolloutRecord,
  from: RolloutState | undefined,
  at: number,
  eventId: string,
): RolloutEvent {
  return dropUndefined({
    type: "rollout" as const,
    version: 1 as const,
    eventId,
    tenant: record.tenant,
    at,
    rolloutId: record.rolloutId,
    className: record.className,
    group: record.group,
    selector: record.selector as Record<string, unknown> | undefined,
    fromFlow: record.fromFlow,
    toFlow: record.toFlow,
    from,
    state: record.state,
    reason: record.reason,
    by:
      record.state === "refused"
        ? record.refusedBy
        : from === "awaiting_approval"
          ? record.approvedBy
          : undefined,
    counts: record.counts,
  });
}

const refuse = (record: RolloutRecord, action: string): never => {
  throw new BeaconError("rollout_state", `The rollout is ${record.state}: it cannot be ${action}`);
};

/** A person's action on a rollout: the changed rollout, and the class's policy to write with it. */
export interface ActionChange {
  record: RolloutRecord;
  policy?: ClassFlowPolicy;
}

/** Pausing holds a rollout that updates agents, until it is resumed where it was. */
export function paused(record: RolloutRecord, by: string): ActionChange {
  if (record.state !== "canary" && record.state !== "rolling" && record.state !== "following")
    refuse(record, "paused");
  return {
    record: {
      ...record,
      resumeTo: record.state as UpdatingState,
      state: "paused",
      reason: `Paused by ${by}`,
    },
  };
}

/** Resuming accepts the failures so far: the threshold counts the ones after. */
export function resumed(record: RolloutRecord): ActionChange {
  if (record.state !== "paused") refuse(record, "resumed");
  const { resumeTo, reason, ...rest } = record;
  return { record: { ...rest, state: resumeTo ?? "rolling", acceptedFailures: record.counts.failed } };
}

/**
 * Finishing ends a continuous rollout that follows its group or selector (or was paused while following):
 * completed, the members it updated held by their assignments, the class's policy as it was before.
 */
export function finished(record: RolloutRecord, by: string, timing: ClassTiming): ActionChange {
  const following = record.state === "paused" ? record.resumeTo : record.state;
  if (following !== "following") refuse(record, "finished");
  const { resumeTo: _resumeTo, ...rest } = record;
  return {
    record: { ...rest, state: "completed", reason: `Finished by ${by}` },
    policy: completionPolicy(record, timing),
  };
}

/**
 * Aborting returns the agents the rollout updated to the previous version, under its policy. Without one,
 * the rollout ends where it stands and updated agents keep the version.
 */
export function aborted(record: RolloutRecord, by: string, timing: ClassTiming): ActionChange {
  if (isRolloutFinal(record.state) || isRolloutWaiting(record.state) || record.state === "rolling_back")
    refuse(record, "aborted");
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
    policy: policyOf(record.fromFlow, previousFlowIds(record), timing.ackTimeoutMs),
  };
}
