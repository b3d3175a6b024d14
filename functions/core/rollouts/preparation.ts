import type { ClassCatalog } from "../agents/ports.js";
import { isClassName } from "../c2/class-name.js";
import { BeaconError } from "../errors.js";
import { isFlowHash } from "../flows/flow-hash.js";
import { flowIdsOf } from "../flows/policy.js";
import type { FlowCatalog, FlowVersionRecord } from "../flows/ports.js";
import type { FlowValidation } from "../flows/validation.js";
import type { ParameterStore } from "../parameters/ports.js";
import type { ReadinessCheck } from "../parameters/readiness-check.js";
import { valuesWithChanges } from "../parameters/staging.js";
import type { RolloutStart } from "./decisions.js";
import type { RolloutPlan, RolloutRecord, RolloutSelector } from "./model.js";
import { valueRenderings } from "./value-decisions.js";

/** The checks of what the class's agents can run, which need their manifests and values as the console reads them. */
export interface RolloutAgentChecks {
  /** The flow validation's dry run: whether the class's agents' manifests offer every type the flow uses. */
  validate(tenant: string, version: FlowVersionRecord): Promise<FlowValidation>;
  /** The check that the class's agents would each get values they can run for the version's parameters. */
  readiness: Pick<ReadinessCheck, "version" | "classValues">;
}

export interface RolloutPreparationDependencies {
  flows: Pick<FlowCatalog, "get">;
  /** The class, whose target a rollout of its staged values renders anew. */
  catalog: Pick<ClassCatalog, "get">;
  /** The class's values in force and its changes staged, which a rollout of them freezes. */
  parameters: Pick<ParameterStore, "list" | "staged">;
  /** Absent where the agents' manifests are not read (the sweeper): a start there keeps its creation's checks. */
  agentChecks?: RolloutAgentChecks;
}

/** What a rollout is asked to bring, before its checks. */
export interface RolloutAsk {
  tenant: string;
  className: string;
  /** A group, or the agent list's filters, narrowing the class's agents; `continuous` keeps following them. */
  group?: string;
  selector?: RolloutSelector;
  continuous?: boolean;
  /** The version to roll out; absent for a rollout of the class's staged values. */
  flowHash?: string;
  /** Rolls out the class's staged value changes, to its target version, instead of a version. */
  stagedValues?: boolean;
  plan: RolloutPlan;
  /** Starts even when the dry run finds agents whose manifests lack types the flow uses. */
  allowIncompatible?: boolean;
  startAt?: number;
  createdBy: string;
}

/**
 * Turns what a rollout is asked to bring into what it starts with, checked: a version the class has and its
 * agents can run (unless allowed otherwise) with values they can run it with; or the class's staged values,
 * rendered into its target. A rollout that waited to start is prepared again as it starts.
 */
export function makeRolloutPreparation(deps: RolloutPreparationDependencies) {
  const { flows, agentChecks } = deps;

  /**
   * A rollout of the class's staged value changes: its target version rendered with them, to the agents
   * whose rendered flow they change, the values as they are now (a change staged later waits for the next).
   */
  async function ofValues(ask: RolloutAsk): Promise<RolloutStart> {
    const { tenant, className } = ask;
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
    await agentChecks?.readiness.classValues("Rolling out the staged values", tenant, version, brought);
    return { ...startOf(ask), toFlow: target, toFlowIds: [renderings.to.flowId], stagedValues: brought };
  }

  async function ofVersion(ask: RolloutAsk): Promise<RolloutStart> {
    const { tenant, className, flowHash } = ask;
    const version =
      isClassName(className) && flowHash !== undefined && isFlowHash(flowHash)
        ? await flows.get(tenant, className, flowHash)
        : undefined;
    if (!version) throw new BeaconError("not_found", "The class has no such flow version");
    if (agentChecks && !ask.allowIncompatible) {
      const report = await agentChecks.validate(tenant, version);
      if (!report.compatible)
        throw new BeaconError(
          "flow_incompatible",
          `${report.incompatibleAgentCount} agents of the class could not run this version (see its validation report); set allowIncompatible to roll it out anyway`,
        );
    }
    await agentChecks?.readiness.version("Rolling out the version", tenant, version);
    return { ...startOf(ask), toFlow: version.hash, toFlowIds: flowIdsOf(version) };
  }

  function prepare(ask: RolloutAsk): Promise<RolloutStart> {
    const subset = ask.group !== undefined || ask.selector !== undefined;
    if (ask.continuous && !subset)
      throw new BeaconError("invalid_request", "A continuous rollout names a group or a selector to follow");
    if (ask.stagedValues && subset)
      throw new BeaconError("invalid_request", "A rollout of staged values takes its whole class");
    if (ask.stagedValues !== true) return ofVersion(ask);
    if (ask.flowHash !== undefined)
      throw new BeaconError("invalid_request", "A rollout brings a flowHash or stagedValues, not both");
    return ofValues(ask);
  }

  return {
    prepare,
    /** A waiting rollout as it starts: what it was asked to bring, checked again on the class as it is now. */
    again(record: RolloutRecord): Promise<RolloutStart> {
      const { tenant, className, group, selector, continuous, plan, allowIncompatible, startAt, createdBy } =
        record;
      const bringing = record.stagedValues ? { stagedValues: true } : { flowHash: record.toFlow };
      const target = { group, selector, continuous };
      return prepare({
        tenant,
        className,
        ...target,
        plan,
        allowIncompatible,
        startAt,
        createdBy,
        ...bringing,
      });
    },
  };
}

export type RolloutPreparation = ReturnType<typeof makeRolloutPreparation>;

const startOf = (ask: RolloutAsk): Omit<RolloutStart, "toFlow"> => ({
  tenant: ask.tenant,
  className: ask.className,
  group: ask.group,
  selector: ask.selector,
  continuous: ask.continuous,
  plan: ask.plan,
  createdBy: ask.createdBy,
  startAt: ask.startAt,
  allowIncompatible: ask.allowIncompatible,
});
