import { describe, expect, it } from "vitest";
import { agentApiEnv } from "../../scripts/test-support/agent-api-env.js";
import { agentApiConfig } from "../shared/config.js";
import { EnvNames } from "../shared/env-names.js";
import { agentServiceConfig } from "./config.js";

const env = agentApiEnv;

describe("agentServiceConfig", () => {
  it("listens on 8080 unless set and holds no more of a body than the agent API takes", () => {
    expect(agentServiceConfig(env)).toEqual({
      port: 8080,
      maxBodyBytes: agentApiConfig(env).maxInflatedBytes,
    });
    expect(
      agentServiceConfig({
        ...env,
        [EnvNames.agentServicePort]: "9090",
        [EnvNames.maxInflatedBytes]: "1024",
      }),
    ).toEqual({ port: 9090, maxBodyBytes: 1024 });
  });

  it("fails where the agent API would: its environment is the agent API's", () => {
    expect(() => agentServiceConfig({ ...env, [EnvNames.tableName]: "" })).toThrow(EnvNames.tableName);
  });
});
