import type { Cluster, Redis } from "ioredis";
import type { BeaconEvent } from "../../core/events/model.js";
import type { EventBuffer } from "../../core/events/ports.js";
import { CacheKeys } from "./cache-keys.js";
import { isCacheUsable } from "./cache-status.js";
import { CacheUnavailableError } from "./hot-state.js";

/** Appends what fits under the bound in one step, so that writers racing each other never overshoot it. */
const HOLD_SCRIPT = `
local room = tonumber(ARGV[1]) - redis.call('LLEN', KEYS[1])
local count = #ARGV - 1
local taken = math.max(0, math.min(room, count))
for index = 2, taken + 1, 500 do
  redis.call('RPUSH', KEYS[1], unpack(ARGV, index, math.min(index + 499, taken + 1)))
end
return count - taken
`;

interface ScriptedRedis {
  holdEvents(key: string, bound: number, ...events: string[]): Promise<number>;
}

/**
 * The event buffer in the cache: one list per stream. The sweeper alone reads it (one run at a time): it
 * reads the oldest, puts them on the stream, and only then trims them, so a run that dies in between puts
 * them again (duplicates, never a loss).
 */
export class RedisEventBuffer implements EventBuffer {
  private readonly redis: (Redis | Cluster) & ScriptedRedis;
  private readonly key: string;

  constructor(
    redis: Redis | Cluster,
    streamName: string,
    private readonly bound: number,
  ) {
    redis.defineCommand("holdEvents", { numberOfKeys: 1, lua: HOLD_SCRIPT });
    this.redis = redis as (Redis | Cluster) & ScriptedRedis;
    this.key = CacheKeys.heldEvents(streamName);
  }

  private usable() {
    if (!isCacheUsable(this.redis)) throw new CacheUnavailableError(this.redis.status);
    return this.redis;
  }

  async hold(events: BeaconEvent[]) {
    if (events.length === 0) return { refused: 0 };
    const serialized = events.map((event) => JSON.stringify(event));
    return { refused: await this.usable().holdEvents(this.key, this.bound, ...serialized) };
  }

  async peek(limit: number) {
    const held = await this.usable().lrange(this.key, 0, limit - 1);
    return held.map((event) => JSON.parse(event) as BeaconEvent);
  }

  async drop(count: number) {
    if (count > 0) await this.usable().ltrim(this.key, count, -1);
  }
}
