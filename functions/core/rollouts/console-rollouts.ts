import type { ClassCatalog } from "../agents/ports.js";
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
import type { ParameterStore } from "../parameters/ports.js";
import type { ReadinessCheck } from "../parameters/readiness-check.js";
import { valuesWithChanges } from "../parameters/staging.js";
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
import { valueRenderings } from "./value-decisions.js";

export interface RolloutsDependencies {
  engine: RolloutEngine;
  rollouts: RolloutStore;
  flows: Pick<FlowCatalog, "get">;
  /** The class, whose target a rollout of its staged values renders anew. */
  catalog: Pick<ClassCatalog, "get">;
  /** The class's values in force and its changes staged, which a rollout of them freezes. */
  parameters: Pick<ParameterStore, "list" | "staged">;
  /** The flow validation's dry run: whether the class's agents' manifests offer every type the flow uses. */
  validate(tenant: string, version: FlowVersionRecord): Promise<FlowValidation>;
  /** The check that the class's agents would each get values they can run for the version's parameters. */
  readiness: Pick<ReadinessCheck, "version" | "classValues">;
}

export interface RolloutRequest {
  className: string;
  /** The version to roll out; absent for a rollout of the class's staged values. */
  flowHash?: string;
  /** Rolls out the class's staged value changes, to its target version, instead of a version. */
  stagedValues?: boolean;
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
    stagedValues: record.stagedValues,
    state: record.state,
    resumeTo: record.state === "paused" ? record.resumeTo : undefined,
    reason: record.reason,
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

  /**
   * A rollout of the class's staged value changes: its target version rendered with them, to the agents
   * whose rendered flow they change, the values frozen as they are now (a change staged later waits for
   * the next).
   */
  async function startValues(principal: Principal, className: string, plan: RolloutPlan) {
    const { tenant } = principal;
    const classRecord = isClassName(className) ? await deps.catalog.get(tenant, className) : undefined;
    if (!classRecord) throw new BeaconError("not_found", "No such agent class");
    const target = classRecord.flowPolicy?.target;
    const version = target === undefined ? undefined : await flows.get(tenant, className, target);
    if (!target || !version)
      throw new BeaconError("invalid_request", "The class has no flow version to render its values into");
    const [inForce, staged] = await Promise.all([
      deps.parameters.list(tenant, { layer: "class", className }),
      deps.parameters.staged(tenant, className),
    ]);
    if (staged.length === 0) throw new BeaconError("invalid_request", "The class has no staged values");
    const brought = valuesWithChanges(inForce, staged);
    const renderings = valueRenderings(version, inForce, brought);
    if (!renderings)
      throw new BeaconError(
        "invalid_request",
        "The staged values leave the class's flow as it renders now, so no agent would move: discard them, or stage a change of a parameter the flow declares",
      );
    await deps.readiness.classValues("Rolling out the staged values", tenant, version, brought);
    return engine.start({
      tenant,
      className,
      toFlow: target,
      toFlowIds: [renderings.to.flowId],
      stagedValues: brought,
      plan,
      createdBy: principal.subject,
    });
  }

  return {
    /**
     * Publishes a flow version to its class, or the class's staged values to its agents: a rollout whose
     * canary is queued at once.
     */
    async start(principal: Principal, request: RolloutRequest): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const plan = planOf(request.plan);
      if (request.stagedValues === true) {
        if (request.flowHash !== undefined)
          throw new BeaconError("invalid_request", "A rollout brings a flowHash or stagedValues, not both");
        return answer(await startValues(principal, request.className, plan), 201);
      }
      const version =
        isClassName(request.className) && request.flowHash !== undefined && isFlowHash(request.flowHash)
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
        toFlow: version.hash,
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
