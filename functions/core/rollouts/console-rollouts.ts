import { isClassName } from "../c2/class-name.js";
import { BeaconError } from "../errors.js";
import { isFlowHash } from "../flows/flow-hash.js";
import { flowIdsOf } from "../flows/policy.js";
import type { FlowCatalog, FlowVersionRecord } from "../flows/ports.js";
import type { FlowValidation } from "../flows/validation.js";
import { isValidIdentifier } from "../identity/credentials.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { dropUndefined } from "../json.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { ReadinessCheck } from "../parameters/readiness-check.js";
import type { ConsoleResult } from "../result.js";
import type { AdvanceOutcome, RolloutEngine } from "./engine.js";
import {
  DEFAULT_ROLLOUT_PLAN,
  type RolloutMember,
  type RolloutPlan,
  type RolloutRecord,
  type Share,
} from "./model.js";
import type { RolloutStore } from "./ports.js";

export interface RolloutsDependencies {
  engine: RolloutEngine;
  rollouts: RolloutStore;
  flows: Pick<FlowCatalog, "get">;
  /** The flow validation's dry run: whether the class's agents' manifests offer every type the flow uses. */
  validate(tenant: string, version: FlowVersionRecord): Promise<FlowValidation>;
  /** The check that the class's agents would each get values they can run for the version's parameters. */
  readiness: Pick<ReadinessCheck, "version">;
}

export interface RolloutRequest {
  className: string;
  flowHash: string;
  plan?: Partial<RolloutPlan>;
  /** Starts even when the dry run finds agents whose manifests lack types the flow uses. */
  allowIncompatible?: boolean;
}

/** Member sort keys (`<batch>#<agentId>`) as the store pages them. */
const isMemberKey = (key: string): boolean => /^\d{6}#/.test(key) && isValidIdentifier(key.slice(7));

export const rolloutView = (record: RolloutRecord) =>
  dropUndefined({
    rolloutId: record.rolloutId,
    className: record.className,
    fromFlow: record.fromFlow,
    toFlow: record.toFlow,
    state: record.state,
    resumeTo: record.state === "paused" ? record.resumeTo : undefined,
    reason: record.reason,
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
  });

const memberView = (member: RolloutMember) =>
  dropUndefined({
    agentId: member.agentId,
    batch: member.batch,
    state: member.state,
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

export function makeRolloutsApi(deps: RolloutsDependencies) {
  const { engine, rollouts, flows } = deps;

  const found = (record: RolloutRecord | undefined): RolloutRecord => {
    if (!record) throw new BeaconError("not_found", "No such rollout");
    return record;
  };
  const read = async (tenant: string, rolloutId: string) =>
    found(isValidIdentifier(rolloutId) ? await rollouts.get(tenant, rolloutId) : undefined);
  const answer = (
    outcome: Pick<AdvanceOutcome, "rollout" | "streamError">,
    status: 200 | 201 = 200,
  ): ConsoleResult => ({
    status,
    body: rolloutView(outcome.rollout),
    streamError: outcome.streamError,
  });

  return {
    /** Publishes a flow version to its class: a rollout whose canary is queued at once. */
    async start(principal: Principal, request: RolloutRequest): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const plan = planOf(request.plan);
      const version =
        isClassName(request.className) && isFlowHash(request.flowHash)
          ? await flows.get(tenant, request.className, request.flowHash)
          : undefined;
      if (!version) throw new BeaconError("not_found", "The class has no such flow version");
      if (!request.allowIncompatible) {
        const report = await deps.validate(tenant, version);
        if (!report.compatible)
          throw new BeaconError(
            "flow_incompatible",
            `${report.incompatibleAgentCount} agents of the class could not run this version (see its validation report); set allowIncompatible to roll it out anyway`,
          );
      }
      await deps.readiness.version("Rolling out the version", tenant, version);
      const outcome = await engine.start({
        tenant,
        className: request.className,
        toFlow: request.flowHash,
        toFlowIds: flowIdsOf(version),
        plan,
        createdBy: principal.subject,
      });
      return answer(outcome, 201);
    },

    async list(
      principal: Principal,
      request: { className?: string; cursor?: string; limit?: number },
    ): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const page = await rollouts.list(principal.tenant, {
        ...pageRequestOf(request, isValidIdentifier),
        className: request.className,
      });
      return { body: pageBodyOf(page, rolloutView) };
    },

    async get(principal: Principal, rolloutId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      return { body: rolloutView(await read(principal.tenant, rolloutId)) };
    },

    /** The rollout's agents, batch by batch, with where each stands. */
    async agents(
      principal: Principal,
      rolloutId: string,
      request: { cursor?: string; limit?: number },
    ): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      await read(principal.tenant, rolloutId);
      const page = await rollouts.memberPage(
        principal.tenant,
        rolloutId,
        pageRequestOf(request, isMemberKey),
      );
      return { body: pageBodyOf(page, memberView) };
    },

    async pause(principal: Principal, rolloutId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      await read(principal.tenant, rolloutId);
      return answer(await engine.pause(principal.tenant, rolloutId, principal.subject));
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
