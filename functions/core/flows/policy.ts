/**
 * Which flow a class's agents should run. Catch-up sends `target` to any agent of the class reporting a
 * flow id outside `accepted`; during a rollout both the previous and the new version are accepted, so
 * catch-up leaves the rollout's pace alone, and agents it has not reached yet stay where they are.
 */
export interface ClassFlowPolicy {
  /** Flow hash catch-up brings agents to. */
  target: string;
  /**
   * Flow ids that count as current: the target and, while a rollout runs, the version it rolls out, each
   * with the flow id agents report for it when it was adopted from what they ran (flowIdsOf).
   */
  accepted: string[];
  /** How long the class's agents may take to acknowledge an operation; the service default when absent. */
  ackTimeoutMs?: number;
  /**
   * The rollout of the class's staged values under way: the target is also accepted rendered with the
   * values it froze (its members' flow), beside its rendering with the values in force.
   */
  valuesRollout?: string;
}

/**
 * The policy as catch-up applies it: with the class's acknowledgement timeout as it is now, which a person
 * may have changed since the policy was written.
 */
export const policyInForce = (
  policy: ClassFlowPolicy,
  ackTimeoutSeconds: number | undefined,
): ClassFlowPolicy => {
  const { ackTimeoutMs: _written, ...rest } = policy;
  return ackTimeoutSeconds === undefined ? rest : { ...rest, ackTimeoutMs: ackTimeoutSeconds * 1000 };
};

export const isAcceptedFlow = (policy: ClassFlowPolicy, flowId: string | undefined): boolean =>
  flowId !== undefined && policy.accepted.includes(flowId);

/** A declared parameter as a class renders it: the value the flow's default and the class's layer give it. */
export interface RenderedParameter {
  name: string;
  sensitive: boolean;
  /** Absent when neither the flow nor the class gives one; an agent's own value may. */
  value?: { value: string } | { secretRef: string };
}

/**
 * A version that declares parameters, rendered with its class's values: the flow id its agents report when
 * they hold no values of their own, and each declared parameter (by name) for the agents that do, whose
 * values replace the class's and give their own flow id (parameters/rendered-flow-ids.ts).
 */
export interface PolicyRendering {
  /** The version's hash, which agents download it by. */
  hash: string;
  flowId: string;
  parameters: RenderedParameter[];
}

/**
 * The policy as the cache holds it: each version that declares parameters rendered with the class's values,
 * and `accepted` naming those versions by the flow ids of their renderings.
 */
export interface CachedClassFlow extends ClassFlowPolicy {
  renderings: PolicyRendering[];
}

/**
 * The flow id catch-up brings the class's agents without values of their own to: the first rendering of
 * the target's, which is its rendering with the values in force.
 */
export const targetFlowIdOf = (policy: CachedClassFlow): string =>
  policy.renderings.find((rendering) => rendering.hash === policy.target)?.flowId ?? policy.target;

/**
 * The flow ids agents report for a version: its hash, and when it was adopted from a flow agents ran before
 * Beacon (another C2 server's), the id they report for that flow, which names the same document.
 */
export const flowIdsOf = (version: { hash: string; adoptedFlowId?: string }): string[] =>
  version.adoptedFlowId === undefined ? [version.hash] : [version.hash, version.adoptedFlowId];
