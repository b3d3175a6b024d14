import { MemoryHotState } from "../memory/index.js";
import { RedisFleetHotState } from "../redis/fleet-hot-state.js";
import { RedisHotState } from "../redis/hot-state.js";
import { hotStateContract } from "./hot-state.contract.js";
import { sharedRedis } from "./local-stack.js";

const redis = sharedRedis();

// On Redis the console marks an agent's queue through its own view of the cache.
hotStateContract("Redis", () => {
  const console = new RedisFleetHotState(redis.client);
  return {
    hotState: new RedisHotState(redis.client),
    markOperationsPending: (tenant, agentId) => console.markOperationsPending(tenant, [agentId]),
  };
});
hotStateContract("the memory fake", () => {
  const hotState = new MemoryHotState();
  return {
    hotState,
    markOperationsPending: async (tenant, agentId) => hotState.markOperationsPending(tenant, agentId),
  };
});
