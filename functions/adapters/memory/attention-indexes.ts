import type { CachedAttentionReason } from "../../core/agents/attention.js";

/** Attention indexes as the heartbeat's and the outcome's scripts keep them: agent id → score, per tenant, class and reason. */
export type AttentionIndexes = Map<string, Map<string, number>>;

/** The class's index of the reason, made empty when it has none. */
export function attentionIndexOf(
  indexes: AttentionIndexes,
  tenant: string,
  agentClass: string,
  reason: CachedAttentionReason,
): Map<string, number> {
  const key = `${tenant}/${agentClass}/${reason}`;
  const index = indexes.get(key) ?? new Map<string, number>();
  indexes.set(key, index);
  return index;
}

/**
 * As the outcome's script: the agent into its class's failed-operation index since its first failure, out when
 * an operation is carried out; the class the cache holds for the agent wins over the caller's.
 */
export function recordOperationOutcomeIn(
  indexes: AttentionIndexes,
  tenant: string,
  agentId: string,
  agentClass: string | undefined,
  failed: boolean,
  at: number,
): void {
  if (agentClass === undefined) return;
  const index = attentionIndexOf(indexes, tenant, agentClass, "operationFailed");
  if (!failed) index.delete(agentId);
  else if (!index.has(agentId)) index.set(agentId, at);
}
