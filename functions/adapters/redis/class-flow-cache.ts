import type { Cluster, Redis } from "ioredis";
import type { AgentOwnValues } from "../../core/agents/ports.js";
import { type CachedClassFlow, type RenderedParameter, targetFlowIdOf } from "../../core/flows/policy.js";
import { execute } from "./batch.js";
import { CacheKeys } from "./cache-keys.js";

/**
 * How long the cache's copy of a class's flow policy lives. Every change is written through at once;
 * this bounds how long a change the cache missed (it was unreachable) goes unseen by catch-up.
 */
export const CLASS_FLOW_TTL_SECONDS = 600;

/**
 * Replaces the cache's copy of a class's flow policy: a hash with `loaded` always set (a class without a
 * policy is told apart from one never loaded), `target` (the version's hash) and `targetFlowId` (the flow id
 * of its rendering with the class's values), `accepted` as space-separated flow ids, `renderings` when a
 * version declares parameters (renderingsText), `ackTimeoutMs` when the class has one, and
 * `heartbeatPeriodMs`, the period the class's agents are held to unless they state their own. The heartbeat
 * script reads it in its one round trip.
 */
export async function rememberClassFlow(
  redis: Redis | Cluster,
  tenant: string,
  className: string,
  policy: CachedClassFlow | undefined,
  heartbeatPeriodMs: number,
): Promise<void> {
  const key = CacheKeys.classFlow(tenant, className);
  const fields: Record<string, string> = { loaded: "1", heartbeatPeriodMs: String(heartbeatPeriodMs) };
  if (policy) {
    fields.target = policy.target;
    fields.targetFlowId = targetFlowIdOf(policy);
    fields.accepted = policy.accepted.join(" ");
    if (policy.renderings.length > 0) fields.renderings = renderingsText(policy);
    if (policy.ackTimeoutMs !== undefined) fields.ackTimeoutMs = String(policy.ackTimeoutMs);
  }
  await execute(redis.multi().del(key).hset(key, fields).expire(key, CLASS_FLOW_TTL_SECONDS));
}

/** A value as the heartbeat script reads it: its kind (`v` a value, `s` a secret reference, `` none) and its text. */
const valueEntry = (value: RenderedParameter["value"]): [string, string] =>
  value === undefined ? ["", ""] : "secretRef" in value ? ["s", value.secretRef] : ["v", value.value];

/**
 * The renderings as the heartbeat script decodes them: `[[hash, flowId, [[name, sensitive (1 or 0), kind,
 * text], ...]], ...]`, the parameters in the rendering's order, which the script keeps.
 */
const renderingsText = (policy: CachedClassFlow): string =>
  JSON.stringify(
    policy.renderings.map((rendering) => [
      rendering.hash,
      rendering.flowId,
      rendering.parameters.map((parameter) => [
        parameter.name,
        parameter.sensitive ? 1 : 0,
        ...valueEntry(parameter.value),
      ]),
    ]),
  );

/** The agent's cache field holding its own values, which the heartbeat script reads (record-sighting-script.ts). */
export const OWN_VALUES_FIELD = "parameters";

/** Its values, and the flow ids the heartbeat script computed of them and kept beside them. */
const OWN_VALUE_FIELDS = [OWN_VALUES_FIELD, "ownIdsFor", "ownTargetFlowId", "ownAcceptedIds"];

/** An agent's own values as the heartbeat script decodes them: `{name: [kind, text]}`; undefined for none. */
export const ownValuesText = (values: AgentOwnValues): string | undefined =>
  values.size === 0
    ? undefined
    : JSON.stringify(Object.fromEntries([...values].map(([name, value]) => [name, valueEntry(value)])));

/**
 * Replaces a registered agent's own values (ARGV[1], '' for none) in its cache entry KEYS[1]. An entry the
 * cache lost, or never registered, is left alone: the agent's next heartbeat reads its values with its
 * registry entry, and no entry comes back without its time to live.
 */
export const REMEMBER_OWN_VALUES_SCRIPT = `
if redis.call('HGET', KEYS[1], 'registered') ~= '1' then return 0 end
redis.call('HDEL', KEYS[1], ${OWN_VALUE_FIELDS.map((field) => `'${field}'`).join(", ")})
if ARGV[1] ~= '' then redis.call('HSET', KEYS[1], '${OWN_VALUES_FIELD}', ARGV[1]) end
return 1
`;
