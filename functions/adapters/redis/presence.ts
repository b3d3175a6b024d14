import type { Cluster, Redis } from "ioredis";
import type { OverdueAgent, PresenceState } from "../../core/agents/presence.js";
import { isCacheUsable } from "../../shared/redis-client.js";
import { CacheKeys } from "./cache-keys.js";
import { CacheUnavailableError } from "./hot-state.js";
import { MARK_OVERDUE_SCRIPT } from "./record-sighting-script.js";

interface ScriptedRedis {
  markOverdue(
    classIndex: string,
    marks: string,
    cursors: string,
    restarts: string,
    restartsPassed: string,
    cutoff: number,
    limit: number,
    className: string,
  ): Promise<[number, string[]]>;
}

/** The sweeper's look for agents that went silent, in the cache's per-class index of agents by last seen. */
export class RedisPresenceState implements PresenceState {
  private readonly redis: (Redis | Cluster) & ScriptedRedis;

  constructor(redis: Redis | Cluster) {
    redis.defineCommand("markOverdue", { numberOfKeys: 5, lua: MARK_OVERDUE_SCRIPT });
    this.redis = redis as (Redis | Cluster) & ScriptedRedis;
  }

  private usable() {
    if (!isCacheUsable(this.redis)) throw new CacheUnavailableError(this.redis.status);
    return this.redis;
  }

  async tenants(): Promise<string[]> {
    return this.usable().smembers(CacheKeys.tenantsWithClasses());
  }

  async markOverdue(tenant: string, className: string, cutoff: number, limit: number) {
    const [full, flattened] = await this.usable().markOverdue(
      CacheKeys.classIndex(tenant, className),
      CacheKeys.offlineMarks(tenant),
      CacheKeys.offlineCursors(tenant),
      CacheKeys.restarts(tenant),
      CacheKeys.restartsPassed(tenant, className),
      cutoff,
      limit,
      className,
    );
    const marked: OverdueAgent[] = [];
    for (let index = 0; index < flattened.length; index += 2)
      marked.push({ agentId: flattened[index] as string, lastSeen: Number(flattened[index + 1]) });
    return { marked, more: Number(full) === 1 };
  }
}
