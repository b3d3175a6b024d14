import { flowContentUrl } from "../c2/routes.js";

/**
 * What an UPDATE CONFIGURATION carries: where to download the flow version, the id it goes by, and
 * `persist`, without which MiNiFi C++ runs the new flow without writing it to disk, so a restart brings
 * the old one back. MiNiFi Java reads only the keys it knows and ignores it, so every agent gets the same
 * args, whatever Beacon knows of its type.
 */
export const updateConfigurationArgs = (agentApiUrl: string, flowId: string): Record<string, string> => ({
  location: flowContentUrl(agentApiUrl, flowId),
  flowId,
  persist: "true",
});
