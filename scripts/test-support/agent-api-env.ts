import { EnvNames } from "../../functions/shared/env-names.js";

/** The variables the agent API cannot start without, and nothing more: the smallest environment it reads. */
export const agentApiEnv = {
  [EnvNames.tableName]: "beacon",
  [EnvNames.streamName]: "events",
  [EnvNames.redisUrl]: "redis://cache:6379",
  [EnvNames.agentApiUrl]: "https://c2.example.org",
  [EnvNames.assetBucket]: "beacon-assets",
};
