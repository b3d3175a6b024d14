import type { Cluster, Redis } from "ioredis";
import { CacheKeys } from "./cache-keys.js";

/**
 * How an agent's operation ended, kept in its class's `operationFailed` attention index in one round trip.
 * KEYS[1] the agent's hash, KEYS[2] the `operationFailed` index of the class ARGV[1] (the class the caller
 * expects the cache to hold for the agent, '' for none known), ARGV[2] the agent id, ARGV[3] '1' failed or
 * timed out, '0' carried out, ARGV[4] since when (ms). When the cache holds another class for the agent,
 * nothing is changed and the reply names it, for the caller to declare its index in a second call.
 */
const OPERATION_OUTCOME_SCRIPT = `
local cached = redis.call('HGET', KEYS[1], 'agentClass')
if cached and cached ~= ARGV[1] then return {'class', cached} end
if ARGV[1] == '' then return {'unknown'} end
if ARGV[3] == '1' then
  redis.call('ZADD', KEYS[2], 'NX', ARGV[4], ARGV[2])
else
  redis.call('ZREM', KEYS[2], ARGV[2])
end
return {'recorded'}
`;

interface OutcomeScripted {
  recordOperationOutcome(...keysAndArgs: string[]): Promise<string[]>;
}

/** Makes the script a command of the client (EVALSHA, falling back to EVAL once per connection). */
export function defineOperationOutcome(redis: Redis | Cluster): void {
  redis.defineCommand("recordOperationOutcome", { numberOfKeys: 2, lua: OPERATION_OUTCOME_SCRIPT });
}

/** OperationOutcomeCache.recordOperationOutcome over a client the script was defined on. */
export async function recordOperationOutcome(
  redis: Redis | Cluster,
  tenant: string,
  agentId: string,
  agentClass: string | undefined,
  failed: boolean,
  at: number,
): Promise<void> {
  const scripted = redis as (Redis | Cluster) & OutcomeScripted;
  const run = (className: string) =>
    scripted.recordOperationOutcome(
      CacheKeys.agent(tenant, agentId),
      CacheKeys.attention(tenant, className, "operationFailed"),
      className,
      agentId,
      failed ? "1" : "0",
      String(at),
    );
  const reply = await run(agentClass ?? "");
  if (reply[0] !== "class") return;
  // Only a heartbeat changing the agent's class between the two calls makes the second answer "class" too:
  // the heartbeat takes the agent's reasons to its new class, this outcome among them or not.
  await run(reply[1] as string);
}
