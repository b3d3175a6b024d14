import type { Cluster, Redis } from "ioredis";
import type { AgentAssignment, AgentOwnValues, AgentPin } from "../../core/agents/ports.js";
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

/** The flow ids the heartbeat script computed of an agent's values and kept beside them. */
export const OWN_VALUES_DERIVED_FIELDS = ["ownIdsFor", "ownTargetFlowId", "ownAcceptedIds"];

/** An agent's own values as the heartbeat script decodes them: `{name: [kind, text]}`; undefined for none. */
export const ownValuesText = (values: AgentOwnValues): string | undefined =>
  values.size === 0
    ? undefined
    : JSON.stringify(Object.fromEntries([...values].map(([name, value]) => [name, valueEntry(value)])));

/** The agent's cache field holding its pin, which the heartbeat script reads (record-sighting-script.ts). */
export const PIN_FIELD = "pin";

/**
 * An agent's pin as the heartbeat script reads it: the version's hash, then the flow ids the agent reports
 * running it, the one catch-up sends first, separated by spaces; undefined for none.
 */
export const pinText = (pin: AgentPin | undefined): string | undefined =>
  pin === undefined ? undefined : [pin.flowHash, ...pin.flowIds].join(" ");

/** The agent's cache field holding its assignment, which the heartbeat script reads (record-sighting-script.ts). */
export const ASSIGNMENT_FIELD = "assignment";

/**
 * An agent's assignment as the heartbeat script reads it: the class's target it was assigned over ('-' for
 * none), then the version as a pin is spelled; undefined for none.
 */
export const assignmentText = (assignment: AgentAssignment | undefined): string | undefined =>
  assignment === undefined
    ? undefined
    : [assignment.over ?? "-", assignment.flow, ...assignment.flowIds].join(" ");

/**
 * Replaces what a registered agent's cache entry KEYS[1] holds in the field ARGV[1] (its own values, its
 * pin) with ARGV[2] ('' for nothing), dropping the fields computed of it, ARGV[3..]. An entry the cache
 * lost, or never registered, is left alone: the agent's next heartbeat reads what the field holds with its
 * registry entry, and no entry comes back without its time to live.
 */
export const REMEMBER_AGENT_FIELD_SCRIPT = `
if redis.call('HGET', KEYS[1], 'registered') ~= '1' then return 0 end
local fields = {ARGV[1]}
for index = 3, #ARGV do fields[#fields + 1] = ARGV[index] end
redis.call('HDEL', KEYS[1], unpack(fields))
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 1
`;
