/**
 * What a rollout of a class's staged values decides, as functions of plain values: the two renderings of
 * the class's target version it goes between, which agents it moves, and the policy catch-up follows
 * while it runs. A value rollout brings no new version: it brings the target version rendered anew.
 */
import type { FlowParameter } from "../flows/parameters.js";
import type { CachedClassFlow, PolicyRendering } from "../flows/policy.js";
import type { ParameterRecord, StagedChange } from "../parameters/model.js";
import { type OwnValues, renderedFlowIdOf, renderingOf } from "../parameters/rendered-flow-ids.js";
import { valuesWithChanges } from "../parameters/staging.js";

/** The class's target version rendered with its values in force (`from`) and with the staged changes (`to`). */
export interface ValueRenderings {
  from: PolicyRendering;
  to: PolicyRendering;
}

/**
 * The renderings a rollout of the staged changes goes between; undefined when they render the version
 * alike (it declares no parameters, or the changes concern none it declares): such a rollout would move
 * no agent, and the changes may simply be put in force.
 */
export function valueRenderings(
  version: { hash: string; parameters?: readonly FlowParameter[] },
  inForce: readonly ParameterRecord[],
  changes: readonly StagedChange[],
): ValueRenderings | undefined {
  const from = renderingOf(version, inForce);
  const to = renderingOf(version, valuesWithChanges(inForce, changes));
  if (!from || !to || from.flowId === to.flowId) return undefined;
  return { from, to };
}

/**
 * The flow ids an agent with these values of its own reports before and after the rollout; undefined when
 * they are the same, as for an agent whose own values override every changed parameter: it is no member.
 */
export function valueMemberFlowIds(
  renderings: ValueRenderings,
  own: OwnValues,
): { from: string; to: string } | undefined {
  const from = renderedFlowIdOf(renderings.from, own);
  const to = renderedFlowIdOf(renderings.to, own);
  return from === to ? undefined : { from, to };
}

/**
 * The class's policy as the cache holds it while the rollout runs: the target and its rendering in force
 * unchanged (first among the renderings of its hash, which catch-up brings agents to), the staged
 * rendering accepted beside it, so catch-up neither returns members nor moves the agents not reached yet.
 */
export function valueRolloutPolicy(policy: CachedClassFlow, renderings: ValueRenderings): CachedClassFlow {
  return {
    ...policy,
    accepted: [...new Set([...policy.accepted, renderings.to.flowId])],
    renderings: [
      ...policy.renderings.filter((rendering) => rendering.flowId !== renderings.to.flowId),
      renderings.to,
    ],
  };
}
