import { MemoryHotState } from "../memory/hot-state.js";
import { CacheKeys } from "../redis/cache-keys.js";
import { RedisFleetHotState } from "../redis/fleet-hot-state.js";
import { RedisHotState } from "../redis/hot-state.js";
import { hotStateContract } from "./hot-state.contract.js";
import { sharedRedis } from "./local-stack.js";

const redis = sharedRedis();

// On Redis the console tells the agent API's cache through its own view of it.
hotStateContract("Redis", () => {
  const consoleView = new RedisFleetHotState(redis.client);
  return {
    hotState: new RedisHotState(redis.client),
    markOperationsPending: (tenant, agentId) => consoleView.markOperationsPending(tenant, [agentId]),
    revokeSerial: (tenant, serial) => consoleView.revokeSerial(tenant, serial, 0),
    rememberPin: (tenant, agentId, pin) => consoleView.rememberPin(tenant, agentId, pin),
    rememberAssignment: (tenant, agentId, assignment) =>
      consoleView.rememberAssignment(tenant, agentId, assignment),
    attention: async (tenant, agentClass, reason) => {
      const entries = await redis.client.zrange(
        CacheKeys.attention(tenant, agentClass, reason),
        0,
        -1,
        "WITHSCORES",
      );
      const index = new Map<string, number>();
      for (let at = 0; at < entries.length; at += 2)
        index.set(entries[at] as string, Number(entries[at + 1]));
      return index;
    },
    loadSamples: (tenant, agentId) => consoleView.loadSamples(tenant, agentId),
    groupsChanged: (tenant) => consoleView.groupsChanged(tenant),
  };
});
hotStateContract("the memory fake", () => {
  const hotState = new MemoryHotState();
  return {
    hotState,
    markOperationsPending: async (tenant, agentId) => hotState.markOperationsPending(tenant, agentId),
    // As core's tests revoke in the cache's copy of the list: only where it holds one.
    revokeSerial: async (tenant, serial) => {
      hotState.revocationLists.get(tenant)?.add(serial);
    },
    rememberPin: (tenant, agentId, pin) => hotState.rememberPin(tenant, agentId, pin),
    rememberAssignment: (tenant, agentId, assignment) =>
      hotState.rememberAssignment(tenant, agentId, assignment),
    attention: async (tenant, agentClass, reason) =>
      new Map(hotState.attentionIndex(tenant, agentClass, reason)),
    loadSamples: async (tenant, agentId) =>
      structuredClone(hotState.loadSampleLists.get(`${tenant}/${agentId}`) ?? []),
    groupsChanged: (tenant) => hotState.groupsChanged(tenant),
  };
});
