import { createHash } from "node:crypto";
import { isFlowHash } from "../flows/flow-hash.js";
import { declaresParameters } from "../flows/location.js";
import type { FlowParameter } from "../flows/parameters.js";
import type {
  CachedClassFlow,
  ClassFlowPolicy,
  PolicyRendering,
  RenderedParameter,
} from "../flows/policy.js";
import type { ClassFlowCache, ClassFlowWriter, FlowCatalog } from "../flows/ports.js";
import { effectiveParameters } from "./effective.js";
import { isSecretReference, type ParameterRecord, type ParameterValue } from "./model.js";
import type { ValuesOverClassOfEach } from "./over-class.js";
import type { ParameterStore } from "./ports.js";

/**
 * An agent's values over its class (its groups' and its own, over-class.ts), by name: what its cache entry
 * holds for catch-up to compare.
 */
export type OwnValues = ReadonlyMap<string, ParameterValue>;

export const ownValuesOf = (records: readonly Pick<ParameterRecord, "name" | "value">[]): OwnValues =>
  new Map(records.map((record) => [record.name, record.value]));

const byteLength = (text: string): number => new TextEncoder().encode(text).length;

/** How one parameter's value enters a flow id: its kind (`v` a value, `s` a secret reference, none), then its text. */
function valueText(value: ParameterValue | undefined): string {
  if (value === undefined) return "0:";
  const [kind, text] = isSecretReference(value) ? ["s", value.secretRef] : ["v", value.value];
  return `${kind}${byteLength(text)}:${text}`;
}

/**
 * The value an agent's own layer gives a parameter over the class's: a sensitive one takes only a secret
 * reference (effective.ts passes plain values over for it, and so does this).
 */
const ownOver = (parameter: RenderedParameter, own: OwnValues | undefined): ParameterValue | undefined => {
  const mine = own?.get(parameter.name);
  return mine !== undefined && (!parameter.sensitive || isSecretReference(mine)) ? mine : parameter.value;
};

/**
 * The flow id of a version rendered with these values: the SHA-1 of the version's hash and each declared
 * parameter's name and value, in the rendering's order, each value's length spelled so no text can pass for
 * another. Secrets enter only as their references, never as what they hold: rotating a secret changes no
 * flow id. The cache's heartbeat script computes the same id for agents with values of their own
 * (record-sighting-script.ts), so the two spell it alike.
 */
export function renderedFlowIdOf(rendering: Omit<PolicyRendering, "flowId">, own?: OwnValues): string {
  const lines = [rendering.hash];
  for (const parameter of rendering.parameters)
    lines.push(`${parameter.name}\n${valueText(ownOver(parameter, own))}`);
  return createHash("sha1").update(lines.join("\n")).digest("hex");
}

/** A version that declares parameters, rendered with the class's values; undefined for one that declares none. */
export function renderingOf(
  version: { hash: string; parameters?: readonly FlowParameter[] },
  classValues: readonly Pick<ParameterRecord, "name" | "value">[],
): PolicyRendering | undefined {
  if (!declaresParameters(version)) return undefined;
  const parameters: RenderedParameter[] = [];
  for (const { name, declared, value } of effectiveParameters(version.parameters, { class: classValues })) {
    if (declared)
      parameters.push(
        value ? { name, sensitive: declared.sensitive, value } : { name, sensitive: declared.sensitive },
      );
  }
  const rendering = { hash: version.hash, parameters };
  return { ...rendering, flowId: renderedFlowIdOf(rendering) };
}

/** The policy with its renderings: the versions they render are accepted by their renderings' flow ids. */
export function withRenderings(policy: ClassFlowPolicy, renderings: PolicyRendering[]): CachedClassFlow {
  const flowIdOf = new Map(renderings.map((rendering) => [rendering.hash, rendering.flowId]));
  return { ...policy, accepted: policy.accepted.map((id) => flowIdOf.get(id) ?? id), renderings };
}

/**
 * The policy with a second rendering of its target, with a rollout's values (`staged`), accepted beside the
 * one in force, which stays first among the target's renderings: the one catch-up brings agents to.
 */
export function withStagedRendering(policy: CachedClassFlow, staged: PolicyRendering): CachedClassFlow {
  return {
    ...policy,
    accepted: [...new Set([...policy.accepted, staged.flowId])],
    renderings: [...policy.renderings.filter((rendering) => rendering.flowId !== staged.flowId), staged],
  };
}

export interface FlowRenderingDependencies {
  flows: Pick<FlowCatalog, "get">;
  parameters: Pick<ParameterStore, "list" | "frozen">;
  /** Agents' values over their classes: their groups' and their own. */
  valuesOverClassOfEach: ValuesOverClassOfEach;
}

/**
 * The class's policy with a rendering of each version it names that declares parameters: one read of each
 * version, and one of the class's values when any declares parameters (and one of a rollout's frozen values
 * while it rolls out the class's staged values). What the agent API's heartbeat needs,
 * apart from agentFlowIds, which its bundle then leaves out.
 */
export function makeClassFlowRendering(deps: Pick<FlowRenderingDependencies, "flows" | "parameters">) {
  const { flows, parameters } = deps;
  return async function classFlow(
    tenant: string,
    className: string,
    policy: ClassFlowPolicy,
  ): Promise<CachedClassFlow> {
    const hashes = [...new Set([policy.target, ...policy.accepted])].filter(isFlowHash);
    const versions = await Promise.all(hashes.map((hash) => flows.get(tenant, className, hash)));
    const declaring = versions.filter((version) => version !== undefined && declaresParameters(version));
    if (declaring.length === 0) return withRenderings(policy, []);
    const [classValues, frozen] = await Promise.all([
      parameters.list(tenant, { layer: "class", className }),
      policy.valuesRollout === undefined
        ? undefined
        : parameters.frozen(tenant, className, policy.valuesRollout),
    ]);
    const cached = withRenderings(
      policy,
      declaring.flatMap((version) => renderingOf(version as NonNullable<typeof version>, classValues) ?? []),
    );
    const target = declaring.find((version) => version?.hash === policy.target);
    const staged = target && frozen && renderingOf(target, frozen);
    return staged ? withStagedRendering(cached, staged) : cached;
  };
}

/**
 * The flow id each agent reports once it runs the version: the version's hash when it declares no
 * parameters, else its rendering with the class's values and each agent's values over them (its groups'
 * and its own: the tenant's groups read once for all the agents).
 */
export function makeAgentFlowIds(
  deps: Pick<FlowRenderingDependencies, "parameters" | "valuesOverClassOfEach">,
) {
  const { parameters } = deps;
  /** The version's flow id for own values given: its rendering with the class's values under them. */
  async function withOwnValues(
    tenant: string,
    className: string,
    version: { hash: string; parameters?: readonly FlowParameter[] },
  ): Promise<(own: OwnValues) => string> {
    if (!declaresParameters(version)) return () => version.hash;
    const rendering = renderingOf(version, await parameters.list(tenant, { layer: "class", className }));
    return (own) => renderedFlowIdOf(rendering as PolicyRendering, own);
  }
  return {
    withOwnValues,
    async agentFlowIds(
      tenant: string,
      className: string,
      version: { hash: string; parameters?: readonly FlowParameter[] },
      agentIds: readonly string[],
    ): Promise<Map<string, string>> {
      const flowIdOf = await withOwnValues(tenant, className, version);
      if (!declaresParameters(version)) return new Map(agentIds.map((agentId) => [agentId, version.hash]));
      const over = await deps.valuesOverClassOfEach(tenant, agentIds);
      return new Map(agentIds.map((agentId) => [agentId, flowIdOf(ownValuesOf(over.get(agentId) ?? []))]));
    },
  };
}

/**
 * The flow ids of renderings, read from the catalog and the value layers: a class's policy as the cache
 * holds it, and what the agents an UPDATE CONFIGURATION goes to report once they run a version.
 */
export const makeFlowRenderings = (deps: FlowRenderingDependencies) => ({
  classFlow: makeClassFlowRendering(deps),
  ...makeAgentFlowIds(deps),
});

export type FlowRenderings = ReturnType<typeof makeFlowRenderings>;

/** The cache's writer of class policies, rendering each as it goes (a read of its versions and the class's values). */
export const renderingClassFlows = (
  cache: ClassFlowCache,
  renderings: Pick<FlowRenderings, "classFlow">,
): ClassFlowWriter => ({
  async rememberClassFlow(tenant, className, policy, heartbeatPeriodMs) {
    const cached = policy && (await renderings.classFlow(tenant, className, policy));
    await cache.rememberClassFlow(tenant, className, cached, heartbeatPeriodMs);
  },
});
