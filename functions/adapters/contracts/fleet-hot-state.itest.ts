import { loadSampleOf } from "../../core/agents/load-samples.js";
import { dropUndefined } from "../../core/json.js";
import { MemoryFleetHotState } from "../memory/fleet-hot-state.js";
import { CacheKeys } from "../redis/cache-keys.js";
import { RedisFleetHotState } from "../redis/fleet-hot-state.js";
import { RedisHotState } from "../redis/hot-state.js";
import { fleetHotStateContract } from "./fleet-hot-state.contract.js";
import { sharedRedis } from "./local-stack.js";

const redis = sharedRedis();

// On Redis the agent API's heartbeats fill the cache.
fleetHotStateContract("Redis", () => {
  const agentApi = new RedisHotState(redis.client);
  return {
    hotState: new RedisFleetHotState(redis.client),
    sight: async (tenant, agentId, { lastSeen, ...reported }) => {
      await agentApi.rememberRevocations(tenant, []);
      await agentApi.recordSighting({
        tenant,
        agentId,
        serialNumber: "0A",
        now: lastSeen,
        checkpointIntervalMs: 600_000,
        catchUpRetryMs: 1_800_000,
        ...reported,
      });
    },
    pendingMarked: async (tenant, agentId) =>
      (await redis.client.exists(CacheKeys.pendingOperations(tenant, agentId))) === 1,
  };
});
// Core's tests put agents' states and heartbeat counts in the fake as a heartbeat leaves them.
fleetHotStateContract("the memory fake", () => {
  const hotState = new MemoryFleetHotState();
  return {
    hotState,
    sight: async (tenant, agentId, { errorBulletinsUntil, backPressured, ...sighting }) => {
      const key = `${tenant}/${agentId}`;
      hotState.agentStates.set(key, { ...hotState.agentStates.get(key), ...dropUndefined(sighting) });
      const agentClass = hotState.agentStates.get(key)?.agentClass as string;
      if (errorBulletinsUntil !== undefined)
        hotState.attentionIndex(tenant, agentClass, "errorBulletins").set(agentId, errorBulletinsUntil);
      // Back-pressured since the first heartbeat that said so, as the heartbeat's script keeps it.
      const backPressure = hotState.attentionIndex(tenant, agentClass, "backPressure");
      if (backPressured === true && !backPressure.has(agentId)) backPressure.set(agentId, sighting.lastSeen);
      const sample = loadSampleOf(sighting.lastSeen, sighting.status, sighting.system);
      if (sample) hotState.loadSampleLists.set(key, [...(hotState.loadSampleLists.get(key) ?? []), sample]);
      const minute = `${tenant}/${Math.floor(sighting.lastSeen / 60_000)}`;
      hotState.heartbeats.set(minute, (hotState.heartbeats.get(minute) ?? 0) + 1);
      const ofClass = `${tenant}/${agentClass}`;
      hotState.heartbeatTotalsByClass.set(ofClass, (hotState.heartbeatTotalsByClass.get(ofClass) ?? 0) + 1);
    },
    pendingMarked: async (tenant, agentId) => hotState.pendingOperations.has(`${tenant}/${agentId}`),
  };
});
