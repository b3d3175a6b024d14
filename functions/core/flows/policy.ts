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

/**
 * The flow ids agents report for a version: its hash, and when it was adopted from a flow agents ran before
 * Beacon (another C2 server's), the id they report for that flow, which names the same document.
 */
export const flowIdsOf = (version: { hash: string; adoptedFlowId?: string }): string[] =>
  version.adoptedFlowId === undefined ? [version.hash] : [version.hash, version.adoptedFlowId];
