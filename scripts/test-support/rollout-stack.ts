import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { sweeperConfig } from "../../functions/shared/config.js";
import { composeSweeper } from "../../functions/sweeper/composition.js";
import { type AgentApiUnderTest, startAgentApi } from "./agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "./console-api-harness.js";
import { cppYamlFlow } from "./flow-fixtures.js";

/**
 * What a test of flows reaching agents drives on the local stack: the agent API (through the mutual-TLS
 * gateway) and the console API, the sweeper's own composition to move rollouts on look by look, and a tenant
 * of its own with a fleet certificate and an operator's token.
 */
export interface RolloutStack {
  agentApi: AgentApiUnderTest;
  consoleApi: ConsoleApiUnderTest;
  sweeper: ReturnType<typeof composeSweeper>;
  tenant: string;
  fleet: string;
  operator: string;
  close(): Promise<void>;
}

export async function startRolloutStack(tenantPrefix: string): Promise<RolloutStack> {
  const agentApi = await startAgentApi();
  const consoleApi = await startConsoleApi(agentApi);
  const sweeper = composeSweeper(sweeperConfig(agentApi.env));
  const tenant = `${tenantPrefix}-${randomUUID().slice(0, 8)}`;
  return {
    agentApi,
    consoleApi,
    sweeper,
    tenant,
    fleet: await agentApi.issueCertificate({ tenant, fleet: true }),
    operator: await consoleApi.token({ tenant, role: "operator" }),
    close: async () => {
      await sweeper.close();
      await consoleApi.close();
      await agentApi.close();
    },
  };
}

/** Starts the stack before the file's tests and hands it to `use`; closes it after them. */
export function onRolloutStack(tenantPrefix: string, use: (stack: RolloutStack) => void): void {
  let stack: RolloutStack | undefined;
  beforeAll(async () => {
    stack = await startRolloutStack(tenantPrefix);
    use(stack);
  });
  afterAll(async () => {
    await stack?.close();
  });
}

/**
 * A version of the C++ YAML flow, which the all-extensions manifest can run, published to the class; its
 * hash. Throws unless the console created it.
 */
export async function publishFlow(
  consoleApi: ConsoleApiUnderTest,
  token: string,
  className: string,
  name: string,
): Promise<string> {
  const response = await consoleApi.request("POST", `/api/v1/classes/${className}/flows`, {
    token,
    body: new TextEncoder().encode(cppYamlFlow.replace("name: pumps", `name: ${name}`)),
    headers: { "content-type": "application/yaml" },
  });
  if (response.status !== 201) throw new Error(`Publishing ${name}: ${response.status} ${response.body}`);
  return response.json().hash as string;
}
