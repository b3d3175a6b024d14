import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { sweeperConfig } from "../../functions/shared/config.js";
import { composeSweeper } from "../../functions/sweeper/composition.js";
import { type AgentApiUnderTest, startAgentApi } from "./agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "./console-api-harness.js";

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
