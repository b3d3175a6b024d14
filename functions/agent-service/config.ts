import { agentApiConfig, numberEnv } from "../shared/config.js";
import { EnvNames } from "../shared/env-names.js";
import { AgentServiceSettings } from "./settings.js";

export interface AgentServiceConfig {
  /** The port the agent service listens on, plain HTTP behind the load balancer. */
  port: number;
  /** The agent API's own limit on a body: the service holds no more of a request than the handler takes. */
  maxBodyBytes: number;
}

/** The agent service runs the agent API's handler module, so its environment is the agent API's too. */
export function agentServiceConfig(
  env: Record<string, string | undefined> = process.env,
): AgentServiceConfig {
  return {
    port: numberEnv(env, EnvNames.agentServicePort, AgentServiceSettings.port),
    maxBodyBytes: agentApiConfig(env).maxInflatedBytes,
  };
}
