import { BeaconError } from "../errors.js";
import type { RolloutState } from "../events/model.js";
import type { FleetHotState } from "../fleet/ports.js";
import type { FlowCatalog } from "../flows/ports.js";
import { flowVersionNames } from "../flows/version-names.js";
import { guardedCache } from "../guarded-cache.js";
import { isValidIdentifier } from "../identity/credentials.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { dropUndefined } from "../json.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { memberFlowIdOf } from "./decisions.js";
import type { AdvanceOutcome, RolloutEngine } from "./engine.js";
import {
  DEFAULT_ROLLOUT_PLAN,
  type RolloutMember,
  type RolloutPlan,
  type RolloutRecord,
  type RolloutSelector,
  type Share,
} from "./model.js";
import type { RolloutStore } from "./ports.js";
import type { RolloutPreparation } from "./preparation.js";

/** Furthest ahead a rollout's start time may be. */
export const MAX_START_AHEAD_DAYS = 90;

export interface RolloutsDependencies {
  engine: RolloutEngine;
  rollouts: RolloutStore;
  /** What the agents report now, which the rollout sees only at the sweeper's next run. */
  hotState: Pick<FleetHotState, "agents">;
  /** How often the sweeper runs: batches start, and agents settle, only at its runs. */
  sweeperIntervalSeconds: number;
  /** The checks a rollout passes as it is created (and again as it starts). */
  preparation: Pick<RolloutPreparation, "prepare">;
  clock: Clock;
  /** Where the names of rollouts' versions are read. */
  flows: Pick<FlowCatalog, "get">;
}

export interface RolloutRequest {
  className: string;
  /** Only the class's agents that are this group's members, evaluated at each batch. */
  group?: string;
  /** Only the class's agents these filters pick (as POST /operations' selector spells them), at each batch. */
  selector?: RolloutSelector;
  /** With a group or selector: keeps adding agents that join it, until it is finished. */
  continuous?: boolean;
  /** The version to roll out; absent for a rollout of the class's staged values. */
  flowHash?: string;
  /** Rolls out the class's staged value changes, to its target version, instead of a version. */
  stagedValues?: boolean;
  plan?: Partial<RolloutPlan>;
  /** Starts even when the dry run finds agents whose manifests lack types the flow uses. */
  allowIncompatible?: boolean;
  /** When it starts (ISO date-time); now when absent or past. */
  startAt?: string;
}

/** Member sort keys (`<batch>#<agentId>`) as the store pages them. */
const isMemberKey = (key: string): boolean => /^\d{6}#/.test(key) && isValidIdentifier(key.slice(7));

export const rolloutView = (record: RolloutRecord, sweeperIntervalSeconds: number) =>
  dropUndefined({
    rolloutId: record.rolloutId,
    className: record.className,
    group: record.group,
    selector: record.selector,
    continuous: record.continuous,
    fromFlow: record.fromFlow,
    toFlow: record.toFlow,
    stagedValues: record.stagedValues,
    state: record.state,
    resumeTo: record.state === "paused" ? record.resumeTo : undefined,
    reason: record.reason,
    startAt: toIso(record.startAt),
    approvedBy: record.approvedBy,
    approvedAt: toIso(record.approvedAt),
    refusedBy: record.refusedBy,
    waitingForWindow: toIso(record.waitingForWindow),
    plan: record.plan,
    classSize: record.classSize,
    canarySize: record.canarySize,
    batches: record.batches,
    lastBatchAt: toIso(record.lastBatchAt),
    exhausted: record.exhausted,
    counts: record.counts,
    createdAt: toIso(record.createdAt) as string,
    createdBy: record.createdBy,
    updatedAt: toIso(record.updatedAt) as string,
    finishedAt: toIso(record.finishedAt),
    sweeperIntervalSeconds,
  });

const memberView = (member: RolloutMember, runsNewVersion: boolean | undefined) =>
  dropUndefined({
    agentId: member.agentId,
    batch: member.batch,
    state: member.state,
    runsNewVersion,
    operationId: member.operationId,
    previousFlowId: member.previousFlowId,
    selectedAt: toIso(member.selectedAt) as string,
    soakingSince: toIso(member.soakingSince),
    settledAt: toIso(member.settledAt),
    rollbackOperationId: member.rollbackOperationId,
    reason: member.reason,
  });

function shareOf(share: Share, name: string): Share {
  if (share.count !== undefined) {
    if (!Number.isInteger(share.count) || share.count < 1)
      throw new BeaconError("invalid_request", `${name}.count must be a whole number of at least 1`);
    return { count: share.count };
  }
  if (!(share.percent >= 0.01 && share.percent <= 100))
    throw new BeaconError("invalid_request", `${name}.percent must be from 0.01 to 100`);
  return { percent: share.percent };
}

/** The default plan with the caller's changes, checked whatever the HTTP layer let through. */
function planOf(changes: Partial<RolloutPlan> = {}): RolloutPlan {
  const plan = { ...DEFAULT_ROLLOUT_PLAN, ...dropUndefined(changes) };
  for (const name of ["batchSize", "batchIntervalSeconds", "soakSeconds"] as const) {
    const value = plan[name];
    if (!Number.isInteger(value) || value < (name === "batchSize" ? 1 : 0))
      throw new BeaconError("invalid_request", `plan.${name} must be a whole number`);
  }
  if (plan.onFailure !== "pause" && plan.onFailure !== "rollback")
    throw new BeaconError("invalid_request", "plan.onFailure must be pause or rollback");
  return {
    ...plan,
    canary: shareOf(plan.canary, "plan.canary"),
    failureThreshold: shareOf(plan.failureThreshold, "plan.failureThreshold"),
  };
}

/** The start time asked for, in epoch ms: a date-time at most MAX_START_AHEAD_DAYS ahead. */
function startAtOf(startAt: string | undefined, now: number): number | undefined {
  if (startAt === undefined) return undefined;
  const at = Date.parse(startAt);
  if (Number.isNaN(at)) throw new BeaconError("invalid_request", "startAt must be an ISO date-time");
  if (at > now + MAX_START_AHEAD_DAYS * 86_400_000)
    throw new BeaconError("invalid_request", `startAt must be at most ${MAX_START_AHEAD_DAYS} days ahead`);
  return at;
}

export function makeRolloutsApi(deps: RolloutsDependencies) {
  const { engine, rollouts, sweeperIntervalSeconds } = deps;
  const view = (record: RolloutRecord) => rolloutView(record, sweeperIntervalSeconds);

  const found = (record: RolloutRecord | undefined): RolloutRecord => {
    if (!record) throw new BeaconError("not_found", "No such rollout");
    return record;
  };
  const read = async (tenant: string, rolloutId: string) =>
    found(isValidIdentifier(rolloutId) ? await rollouts.get(tenant, rolloutId) : undefined);
  /** Rollouts as the API shows them, with the names of their versions, each version read once. */
  async function viewsOf(tenant: string, records: readonly RolloutRecord[]) {
    const from = (record: RolloutRecord) => ({ className: record.className, flow: record.fromFlow ?? "" });
    const to = (record: RolloutRecord) => ({ className: record.className, flow: record.toFlow });
    const nameOf = await flowVersionNames(deps.flows, tenant, [...records.map(from), ...records.map(to)]);
    return (record: RolloutRecord) => ({
      ...view(record),
      ...dropUndefined({ fromVersion: nameOf(from(record)), toVersion: nameOf(to(record)) }),
    });
  }
  const viewOne = async (record: RolloutRecord) => (await viewsOf(record.tenant, [record]))(record);
  const answer = async (
    outcome: Pick<AdvanceOutcome, "rollout" | "streamError">,
    status: 200 | 201 = 200,
  ): Promise<ConsoleResult> => ({
    status,
    body: await viewOne(outcome.rollout),
    streamError: outcome.streamError,
  });

  return {
    /**
     * Publishes a flow version to its class, or the class's staged values to its agents: a rollout whose
     * canary is queued at once, or that waits for an approval (its class requires one) or its start time.
     */
    async start(principal: Principal, request: RolloutRequest): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const start = await deps.preparation.prepare({
        tenant: principal.tenant,
        className: request.className,
        group: request.group,
        selector: request.selector,
        continuous: request.continuous,
        flowHash: request.flowHash,
        stagedValues: request.stagedValues,
        plan: planOf(request.plan),
        allowIncompatible: request.allowIncompatible,
        startAt: startAtOf(request.startAt, deps.clock.now()),
        createdBy: principal.subject,
      });
      return answer(await engine.start(start), 201);
    },

    /** A second operator's approval of a rollout waiting for one: it starts, or waits for its start time. */
    async approve(principal: Principal, rolloutId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      await read(principal.tenant, rolloutId);
      return answer(await engine.approve(principal.tenant, rolloutId, principal.subject));
    },

    /** Ends a rollout that has not started: another operator refusing it, or its creator withdrawing it. */
    async refuse(
      principal: Principal,
      rolloutId: string,
      request: { reason?: string },
    ): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      await read(principal.tenant, rolloutId);
      return answer(await engine.refuse(principal.tenant, rolloutId, principal.subject, request.reason));
    },

    async list(
      principal: Principal,
      request: { className?: string; state?: RolloutState; cursor?: string; limit?: number },
    ): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const page = await rollouts.list(principal.tenant, {
        ...pageRequestOf(request, isValidIdentifier),
        className: request.className,
        state: request.state,
      });
      return { body: pageBodyOf(page, await viewsOf(principal.tenant, page.items)) };
    },

    async get(principal: Principal, rolloutId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      return { body: await viewOne(await read(principal.tenant, rolloutId)) };
    },

    /**
     * The rollout's agents, batch by batch, with where each stands; of those updating, whether they report the
     * new version already (one cache round trip), which the sweeper sees only at its next run. Without the cache,
     * that is left out.
     */
    async agents(
      principal: Principal,
      rolloutId: string,
      request: { cursor?: string; limit?: number },
    ): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const rollout = await read(principal.tenant, rolloutId);
      const page = await rollouts.memberPage(
        principal.tenant,
        rolloutId,
        pageRequestOf(request, isMemberKey),
      );
      const updating = page.items.filter((member) => member.state === "updating");
      const cache = guardedCache();
      const hot =
        updating.length === 0
          ? undefined
          : await cache.attempt(() =>
              deps.hotState.agents(
                principal.tenant,
                updating.map((member) => member.agentId),
              ),
            );
      const reported = (member: RolloutMember) =>
        hot === undefined ? undefined : hot.get(member.agentId)?.flowId === memberFlowIdOf(rollout, member);
      return { body: pageBodyOf(page, (member) => memberView(member, reported(member))) };
    },

    async pause(principal: Principal, rolloutId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      await read(principal.tenant, rolloutId);
      return answer(await engine.pause(principal.tenant, rolloutId, principal.subject));
    },

    /** Ends a continuous rollout that follows its group or selector: completed, the class's target unchanged. */
    async finish(principal: Principal, rolloutId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      await read(principal.tenant, rolloutId);
      return answer(await engine.finish(principal.tenant, rolloutId, principal.subject));
    },

    /** Resumes and looks at once, so the next batch need not wait for the sweeper. */
    async resume(principal: Principal, rolloutId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      await read(principal.tenant, rolloutId);
      const resumed = await engine.resume(principal.tenant, rolloutId);
      const looked = await engine.advance(principal.tenant, rolloutId);
      return answer({ rollout: looked.rollout, streamError: resumed.streamError ?? looked.streamError });
    },

    /** Aborts and looks at once, so the rollback is queued without waiting for the sweeper. */
    async abort(principal: Principal, rolloutId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      await read(principal.tenant, rolloutId);
      const aborted = await engine.abort(principal.tenant, rolloutId, principal.subject);
      const looked = await engine.advance(principal.tenant, rolloutId);
      return answer({ rollout: looked.rollout, streamError: aborted.streamError ?? looked.streamError });
    },
  };
}
