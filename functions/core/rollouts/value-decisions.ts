/**
 * What a rollout of a class's staged values decides, as functions of plain values: the two renderings of
 * the class's target version it goes between, and which agents it moves (the class's policy while it
 * runs is parameters/rendered-flow-ids.ts' withStagedRendering). A value rollout brings no new version: it
 * brings the target version rendered anew.
 */
import type { FlowParameter } from "../flows/parameters.js";
import type { PolicyRendering } from "../flows/policy.js";
import type { ParameterRecord } from "../parameters/model.js";
import { type OwnValues, renderedFlowIdOf, renderingOf } from "../parameters/rendered-flow-ids.js";

/** The class's target version rendered with its values in force (`from`) and with the rollout's (`to`). */
export interface ValueRenderings {
  from: PolicyRendering;
  to: PolicyRendering;
}

/**
 * The renderings a rollout of the class's values goes between, from those in force to those it brings (the
 * values in force with the staged changes, valuesWithChanges); undefined when they render the version
 * alike (it declares no parameters, or the changes concern none it declares): such a rollout would move no
 * agent.
 */
export function valueRenderings(
  version: { hash: string; parameters?: readonly FlowParameter[] },
  inForce: readonly Pick<ParameterRecord, "name" | "value">[],
  brought: readonly Pick<ParameterRecord, "name" | "value">[],
): ValueRenderings | undefined {
  const from = renderingOf(version, inForce);
  const to = renderingOf(version, brought);
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
