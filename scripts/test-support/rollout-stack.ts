import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect } from "vitest";
import type { JsonObject } from "../../functions/core/json.js";
import { isRolloutFinal } from "../../functions/core/rollouts/model.js";
import { sweeperConfig } from "../../functions/shared/config.js";
import { composeSweeper } from "../../functions/sweeper/composition.js";
import { cppAckOf, cppHeartbeatOf } from "../common/c2-examples.js";
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
 * The operator's console call on the stack started for the file: the answer's JSON, once its status is the
 * one expected (201 for a POST, 200 otherwise, unless given).
 */
export const operatorCalls =
  (stack: () => RolloutStack) =>
  async (method: string, path: string, body?: JsonObject, status = method === "POST" ? 201 : 200) => {
    const { consoleApi, operator } = stack();
    const response = await consoleApi.request(method, `/api/v1${path}`, { token: operator, body });
    expect(response.status, response.body).toBe(status);
    return response.json();
  };

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

const HEARTBEAT = "/c2/api/heartbeat";
const ACKNOWLEDGE = "/c2/api/acknowledge";
/** Looks a rollout to six agents takes at most: two per batch (soaking, then healthy), and one to end. */
const MAX_LOOKS = 12;
/** The flow the example C++ agent runs before Beacon sends it any. */
export const FACTORY_FLOW = (cppHeartbeatOf("x", "x").flowInfo as JsonObject).flowId as string;

/** A C++ agent as the tests play it: its class, the flow it runs, and its binary's manifest hash when not the example's. */
export interface PlayedAgent {
  agentId: string;
  className: string;
  flowId: string;
  manifestHash?: string;
}

/**
 * A C++ binary built without one of the example's extensions: the bundle's artifact it lacks, and the hash
 * its agents report for its manifest.
 */
export interface BuiltWithout {
  artifact: string;
  manifestHash: string;
}

/** The example's full heartbeat as a binary built without the extension reports it. */
function withoutExtension(heartbeat: JsonObject, binary: BuiltWithout): JsonObject {
  const agentInfo = heartbeat.agentInfo as JsonObject;
  const manifest = agentInfo.agentManifest as JsonObject;
  manifest.bundles = (manifest.bundles as JsonObject[]).filter(
    (bundle) => bundle.artifact !== binary.artifact,
  );
  agentInfo.agentManifestHash = binary.manifestHash;
  return heartbeat;
}

export interface RequestedOperation {
  identifier: string;
  operation: string;
  operand?: string;
  args?: Record<string, string>;
}

/** C++ agents played through the stack's mutual-TLS gateway with its fleet certificate. */
export function playedAgents(stack: Pick<RolloutStack, "agentApi" | "fleet" | "sweeper" | "tenant">) {
  const { agentApi, fleet, sweeper, tenant } = stack;

  /** The agent's light heartbeat, reporting the flow it runs. */
  function heartbeatOf(agent: PlayedAgent): JsonObject {
    const heartbeat = cppHeartbeatOf(agent.agentId, agent.className);
    if (agent.manifestHash !== undefined)
      (heartbeat.agentInfo as JsonObject).agentManifestHash = agent.manifestHash;
    const flowInfo = heartbeat.flowInfo as JsonObject;
    flowInfo.flowId = agent.flowId;
    (flowInfo.versionedFlowSnapshotURI as JsonObject).flowId = agent.flowId;
    return heartbeat;
  }

  async function beat(agent: PlayedAgent): Promise<RequestedOperation[]> {
    const response = await agentApi.post(HEARTBEAT, heartbeatOf(agent), { certificate: fleet });
    expect(response.status).toBe(200);
    return response.json().requestedOperations as RequestedOperation[];
  }

  /**
   * One heartbeat, and what a MiNiFi agent does with each UPDATE CONFIGURATION in the reply: downloads the
   * flow from the location it names, applies it (or fails to, acknowledging NOT_APPLIED), acknowledges, and
   * reports the flow it runs in its next heartbeat. Returns the updates the reply carried.
   */
  async function turn(
    agent: PlayedAgent,
    outcome: "FULLY_APPLIED" | "NOT_APPLIED" = "FULLY_APPLIED",
  ): Promise<RequestedOperation[]> {
    const updates = (await beat(agent)).filter(
      (operation) => operation.operation === "UPDATE" && operation.operand === "CONFIGURATION",
    );
    for (const update of updates) {
      const download = await agentApi.get(new URL(update.args?.location as string).pathname, {
        certificate: fleet,
      });
      expect(download.status).toBe(200);
      const ack = await agentApi.post(ACKNOWLEDGE, cppAckOf(agent.agentId, update.identifier, outcome), {
        certificate: fleet,
      });
      expect(ack.status).toBe(200);
      if (outcome === "FULLY_APPLIED") agent.flowId = update.args?.flowId as string;
    }
    if (updates.length > 0) await beat(agent);
    return updates;
  }

  /**
   * `count` C++ agents of a class of their own, registered with their full manifest, on the example's flow;
   * named `<class>-<n>` from `first` on, of the example's binary or of one built without an extension.
   */
  async function classOf(
    className: string,
    count: number,
    { first = 1, binary }: { first?: number; binary?: BuiltWithout } = {},
  ): Promise<PlayedAgent[]> {
    const agents = Array.from({ length: count }, (_, index) => ({
      agentId: `${className}-${first + index}`,
      className,
      flowId: FACTORY_FLOW,
      manifestHash: binary?.manifestHash,
    }));
    for (const agent of agents) {
      const full = cppHeartbeatOf(agent.agentId, className, true);
      const response = await agentApi.post(HEARTBEAT, binary ? withoutExtension(full, binary) : full, {
        certificate: fleet,
      });
      expect(response.status).toBe(200);
    }
    return agents;
  }

  /** Every agent's turn, then one look of the sweeper's engine, until the rollout is over. */
  async function rollToTheEnd(rolloutId: string, agents: PlayedAgent[]): Promise<void> {
    for (let look = 1; look <= MAX_LOOKS; look++) {
      for (const agent of agents) await turn(agent);
      const { rollout } = await sweeper.rollouts.advance(tenant, rolloutId);
      if (isRolloutFinal(rollout.state)) return;
    }
    throw new Error(`Rollout ${rolloutId} still under way after ${MAX_LOOKS} looks`);
  }

  return { beat, turn, classOf, rollToTheEnd };
}
