import { MemoryHotState } from "../memory/hot-state.js";
import { CacheKeys } from "../redis/cache-keys.js";
import { RedisHotState } from "../redis/hot-state.js";
import { RedisPresenceState } from "../redis/presence.js";
import { sharedRedis } from "./local-stack.js";
import { presenceContract } from "./presence.contract.js";

const redis = sharedRedis();

presenceContract("Redis", () => ({
  presence: new RedisPresenceState(redis.client),
  hotState: new RedisHotState(redis.client),
  forgetClassFlow: async (tenant, className) => {
    await redis.client.del(CacheKeys.classFlow(tenant, className));
  },
  seenUnscheduled: async (tenant, agentId, className, lastSeen) => {
    await redis.client.zadd(CacheKeys.classIndex(tenant, className), lastSeen, agentId);
  },
}));
presenceContract("the memory fake", () => {
  const hotState = new MemoryHotState();
  return {
    presence: hotState,
    hotState,
    forgetClassFlow: async (tenant, className) => {
      hotState.classFlows.delete(`${tenant}/${className}`);
      hotState.classPeriods.delete(`${tenant}/${className}`);
    },
    seenUnscheduled: async (tenant, agentId, className, lastSeen) => {
      hotState.agents.set(`${tenant}/${agentId}`, {
        registered: true,
        lastCheckpoint: 0,
        agentClass: className,
        lastSeen,
      });
    },
  };
});
