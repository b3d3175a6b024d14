import type { Cluster, Redis } from "ioredis";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import { execute } from "./batch.js";
import { CacheKeys } from "./cache-keys.js";

/**
 * How long the cache's copy of a class's flow policy lives. Every change is written through at once;
 * this bounds how long a change the cache missed (it was unreachable) goes unseen by catch-up.
 */
export const CLASS_FLOW_TTL_SECONDS = 600;

/**
 * Replaces the cache's copy of a class's flow policy: a hash with `loaded` always set (a class without a
 * policy is told apart from one never loaded), `target`, `accepted` as space-separated flow ids, and
 * `ackTimeoutMs` when the class has one, and `heartbeatPeriodMs`, the period the class's agents are held to
 * unless they state their own. The heartbeat script reads it in its one round trip.
 */
export async function rememberClassFlow(
  redis: Redis | Cluster,
  tenant: string,
  className: string,
  policy: ClassFlowPolicy | undefined,
  heartbeatPeriodMs: number,
): Promise<void> {
  const key = CacheKeys.classFlow(tenant, className);
  const fields: Record<string, string> = { loaded: "1", heartbeatPeriodMs: String(heartbeatPeriodMs) };
  if (policy) {
    fields.target = policy.target;
    fields.accepted = policy.accepted.join(" ");
    if (policy.ackTimeoutMs !== undefined) fields.ackTimeoutMs = String(policy.ackTimeoutMs);
  }
  await execute(redis.multi().del(key).hset(key, fields).expire(key, CLASS_FLOW_TTL_SECONDS));
}
