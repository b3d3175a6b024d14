import type { components } from "./api/schema.js";

export type FlowParameter = components["schemas"]["FlowParameter"];
export type ParameterLayerName = NonNullable<components["schemas"]["EffectiveParameter"]["layer"]>;

/** Where an agent's effective value comes from, in words. */
export const LAYER_WORDS: Record<ParameterLayerName, string> = {
  flow: "the flow's default",
  class: "the class",
  group: "its group",
  agent: "the agent's own",
};

/**
 * The parameters some flow versions declare, one per name in the order first met: sensitive when any version
 * declares it so (a value set now must suit each of them), its description and default from its first, and
 * no default once sensitive, as the API gives none for a sensitive parameter.
 */
export function declaredIn(versions: readonly (readonly FlowParameter[] | undefined)[]): FlowParameter[] {
  const byName = new Map<string, FlowParameter>();
  for (const parameter of versions.flatMap((parameters) => parameters ?? [])) {
    const known = byName.get(parameter.name);
    if (known) known.sensitive ||= parameter.sensitive;
    else byName.set(parameter.name, { ...parameter });
  }
  return [...byName.values()].map(({ default: fallback, ...parameter }) =>
    parameter.sensitive || fallback === undefined ? parameter : { ...parameter, default: fallback },
  );
}
