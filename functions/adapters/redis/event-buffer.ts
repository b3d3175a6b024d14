import type { Cluster, Redis } from "ioredis";
import type { BeaconEvent } from "../../core/events/model.js";
import type { EventBuffer, EventBufferBounds } from "../../core/events/ports.js";
import { CacheKeys } from "./cache-keys.js";
import { isCacheUsable } from "./cache-status.js";
import { CacheUnavailableError } from "./hot-state.js";

/**
 * Appends what fits under both bounds in one step, so that writers racing each other never overshoot them: the
 * buffer's (the list's length) and the tenant's (its count in the hash). ARGV: the bounds, then each event's
 * tenant and JSON. Answers the places (from 1) of the events refused. An empty list clears the counts, so a
 * list lost on its own (evicted, flushed) never leaves a tenant counted full.
 */
const HOLD_SCRIPT = `
local length = redis.call('LLEN', KEYS[1])
if length == 0 then redis.call('DEL', KEYS[2]) end
local room = tonumber(ARGV[1]) - length
local tenantBound = tonumber(ARGV[2])
local counts = {}
local added = {}
local taken = {}
local refused = {}
for index = 3, #ARGV, 2 do
  local tenant = ARGV[index]
  if counts[tenant] == nil then
    counts[tenant] = tonumber(redis.call('HGET', KEYS[2], tenant) or '0')
    added[tenant] = 0
  end
  if room > 0 and counts[tenant] < tenantBound then
    taken[#taken + 1] = ARGV[index + 1]
    counts[tenant] = counts[tenant] + 1
    added[tenant] = added[tenant] + 1
    room = room - 1
  else
    refused[#refused + 1] = (index - 1) / 2
  end
end
for index = 1, #taken, 500 do
  redis.call('RPUSH', KEYS[1], unpack(taken, index, math.min(index + 499, #taken)))
end
for tenant, count in pairs(added) do
  if count > 0 then redis.call('HINCRBY', KEYS[2], tenant, count) end
end
return refused
`;

/** Trims the oldest ARGV[1] events and takes them off their tenants' counts (ARGV: then tenant, count pairs). */
const DROP_SCRIPT = `
redis.call('LTRIM', KEYS[1], tonumber(ARGV[1]), -1)
for index = 2, #ARGV, 2 do
  if redis.call('HINCRBY', KEYS[2], ARGV[index], -tonumber(ARGV[index + 1])) <= 0 then
    redis.call('HDEL', KEYS[2], ARGV[index])
  end
end
`;

interface ScriptedRedis {
  holdEvents(
    key: string,
    tenantsKey: string,
    bound: number,
    tenantBound: number,
    ...tenantsAndEvents: string[]
  ): Promise<number[]>;
  dropEvents(key: string, tenantsKey: string, count: number, ...tenantsAndCounts: string[]): Promise<void>;
}

/**
 * The event buffer in the cache: one list per stream, with its count of each tenant's events beside it. The
 * sweeper alone reads it (one run at a time): it reads the oldest, puts them on the stream, and only then trims
 * them, so a run that dies in between puts them again (duplicates, never a loss).
 */
export class RedisEventBuffer implements EventBuffer {
  private readonly redis: (Redis | Cluster) & ScriptedRedis;
  private readonly key: string;
  private readonly tenantsKey: string;

  constructor(
    redis: Redis | Cluster,
    streamName: string,
    private readonly bounds: EventBufferBounds,
  ) {
    redis.defineCommand("holdEvents", { numberOfKeys: 2, lua: HOLD_SCRIPT });
    redis.defineCommand("dropEvents", { numberOfKeys: 2, lua: DROP_SCRIPT });
    this.redis = redis as (Redis | Cluster) & ScriptedRedis;
    this.key = CacheKeys.heldEvents(streamName);
    this.tenantsKey = CacheKeys.heldEventsByTenant(streamName);
  }

  private usable() {
    if (!isCacheUsable(this.redis)) throw new CacheUnavailableError(this.redis.status);
    return this.redis;
  }

  async hold(events: BeaconEvent[]) {
    if (events.length === 0) return { refused: [] };
    const refused = await this.usable().holdEvents(
      this.key,
      this.tenantsKey,
      this.bounds.maxEvents,
      this.bounds.maxEventsPerTenant,
      ...events.flatMap((event) => [event.tenant, JSON.stringify(event)]),
    );
    return { refused: refused.map((place) => events[place - 1] as BeaconEvent) };
  }

  async peek(limit: number) {
    const held = await this.usable().lrange(this.key, 0, limit - 1);
    return held.map((event) => JSON.parse(event) as BeaconEvent);
  }

  async drop(events: BeaconEvent[]) {
    if (events.length === 0) return;
    const byTenant = new Map<string, number>();
    for (const { tenant } of events) byTenant.set(tenant, (byTenant.get(tenant) ?? 0) + 1);
    await this.usable().dropEvents(
      this.key,
      this.tenantsKey,
      events.length,
      ...[...byTenant].flatMap(([tenant, count]) => [tenant, String(count)]),
    );
  }
}
