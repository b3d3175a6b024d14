import type { Cluster, Redis } from "ioredis";
import type { OverdueAgent, PresenceState } from "../../core/agents/presence.js";
import { MISSED_HEARTBEATS_OFFLINE } from "../../core/agents/status.js";
import { CacheKeys, RetiredCacheKeys } from "./cache-keys.js";
import { isCacheUsable } from "./cache-status.js";
import { CacheUnavailableError } from "./hot-state.js";
import { MARK_OVERDUE_SCRIPT, SCHEDULE_SILENT_SCRIPT } from "./record-sighting-script.js";

interface ScriptedRedis {
  markOverdue(
    due: string,
    dueAgents: string,
    marks: string,
    restarts: string,
    now: number,
    limit: number,
    missedHeartbeats: number,
  ): Promise<[number, string[]]>;
  scheduleSilent(...keysAndArgs: (string | number)[]): Promise<number>;
}

/** The sweeper's look for agents that went silent, in the cache's per-tenant schedule of when they become overdue. */
export class RedisPresenceState implements PresenceState {
  private readonly redis: (Redis | Cluster) & ScriptedRedis;

  constructor(redis: Redis | Cluster) {
    redis.defineCommand("markOverdue", { numberOfKeys: 4, lua: MARK_OVERDUE_SCRIPT });
    redis.defineCommand("scheduleSilent", { numberOfKeys: 5, lua: SCHEDULE_SILENT_SCRIPT });
    this.redis = redis as (Redis | Cluster) & ScriptedRedis;
  }

  private usable() {
    if (!isCacheUsable(this.redis)) throw new CacheUnavailableError(this.redis.status);
    return this.redis;
  }

  async tenants(): Promise<string[]> {
    return this.usable().smembers(CacheKeys.tenantsWithClasses());
  }

  async markOverdue(tenant: string, now: number, limit: number) {
    const [full, flattened] = await this.usable().markOverdue(
      CacheKeys.offlineDue(tenant),
      CacheKeys.offlineDueAgents(tenant),
      CacheKeys.offlineMarks(tenant),
      CacheKeys.restarts(tenant),
      now,
      limit,
      MISSED_HEARTBEATS_OFFLINE,
    );
    const marked: OverdueAgent[] = [];
    for (let index = 0; index < flattened.length; index += 4)
      marked.push({
        agentId: flattened[index] as string,
        lastSeen: Number(flattened[index + 1]),
        heartbeatPeriodMs: Number(flattened[index + 2]),
        agentClass: flattened[index + 3] as string,
      });
    return { marked, more: Number(full) === 1 };
  }

  async allScheduled(tenant: string): Promise<boolean> {
    return (await this.usable().sismember(CacheKeys.tenantsScheduled(), tenant)) === 1;
  }

  async scheduleSilent(tenant: string, className: string, heartbeatPeriodMs: number, limit: number) {
    const read = await this.usable().scheduleSilent(
      CacheKeys.classIndex(tenant, className),
      CacheKeys.offlineDue(tenant),
      CacheKeys.offlineDueAgents(tenant),
      CacheKeys.offlineMarks(tenant),
      CacheKeys.offlineScheduling(tenant),
      className,
      heartbeatPeriodMs,
      MISSED_HEARTBEATS_OFFLINE,
      limit,
    );
    return { read: Number(read), done: Number(read) < limit };
  }

  async markAllScheduled(tenant: string, classNames: string[]): Promise<void> {
    const redis = this.usable();
    // Apart: the tenants' set is no tenant's key, and may live on another shard than the tenant's.
    await redis.sadd(CacheKeys.tenantsScheduled(), tenant);
    await redis.del(
      CacheKeys.offlineScheduling(tenant),
      ...RetiredCacheKeys.offlineSweep(tenant, classNames),
    );
  }
}
