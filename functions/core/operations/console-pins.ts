import type { AgentPin, AgentRecord, PinCache } from "../agents/ports.js";
import { BeaconError } from "../errors.js";
import { pinView } from "../fleet/agents.js";
import type { FleetRegistry } from "../fleet/ports.js";
import { isFlowHash } from "../flows/flow-hash.js";
import type { FlowCatalog, FlowVersionRecord } from "../flows/ports.js";
import { tellCacheFirst } from "../guarded-cache.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { asObject, dropUndefined } from "../json.js";
import type { FlowRenderings, OwnValues } from "../parameters/rendered-flow-ids.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import type { OperationRequest } from "./drafts.js";

export interface PinsDependencies {
  registry: Pick<FleetRegistry, "get" | "putPin">;
  flows: Pick<FlowCatalog, "get" | "list">;
  renderings: Pick<FlowRenderings, "agentFlowIds" | "withOwnValues">;
  /** Where the pin goes for catch-up to hold the agent to it. */
  hotState: PinCache;
  clock: Clock;
  /** Creates an operation as the console's POST /operations does: the UPDATE CONFIGURATION a pin sends. */
  createOperation(principal: Principal, request: OperationRequest): Promise<ConsoleResult>;
}

/** How many of a class's versions one page of the search for the agent's running version reads. */
const VERSIONS_PAGE = 100;

/**
 * Agents pinned to a flow version of their class: catch-up and rollouts leave them on it until they are
 * unpinned (the heartbeat's catch-up holds them to it, the rollout engine passes them over).
 */
export function makePinsApi(deps: PinsDependencies) {
  const { registry, flows, renderings, hotState, clock } = deps;

  async function agentOf(tenant: string, agentId: string): Promise<AgentRecord> {
    const agent = await registry.get(tenant, agentId);
    if (!agent) throw new BeaconError("not_found", "No such agent");
    return agent;
  }

  /** The version's flow ids: the agent's rendering's first (the hash's), then an adopted flow's. */
  const flowIdsOf = (version: FlowVersionRecord, rendered: string) =>
    version.adoptedFlowId === undefined ? [rendered] : [rendered, version.adoptedFlowId];

  /** The flow ids the agent reports running the version, with the values it has. */
  async function flowIdsFor(tenant: string, agent: AgentRecord, version: FlowVersionRecord) {
    const rendered = await renderings.agentFlowIds(tenant, agent.agentClass, version, [agent.agentId]);
    return flowIdsOf(version, rendered.get(agent.agentId) ?? version.hash);
  }

  /** The version of its class the agent runs now, by the flow id it reports; undefined when Beacon knows none. */
  async function runningVersionOf(
    tenant: string,
    agent: AgentRecord,
  ): Promise<FlowVersionRecord | undefined> {
    const { flowId, agentClass } = agent;
    if (flowId === undefined) return undefined;
    if (isFlowHash(flowId)) {
      const version = await flows.get(tenant, agentClass, flowId);
      if (version) return version;
    }
    let after: string | undefined;
    do {
      const page = await flows.list(tenant, agentClass, { limit: VERSIONS_PAGE, after });
      for (const version of page.items)
        if ((await flowIdsFor(tenant, agent, version)).includes(flowId)) return version;
      after = page.last;
    } while (after !== undefined);
    return undefined;
  }

  async function versionToPin(tenant: string, agent: AgentRecord, flowHash: unknown) {
    if (flowHash === undefined) {
      const running = await runningVersionOf(tenant, agent);
      if (!running)
        throw new BeaconError(
          "invalid_request",
          `The agent runs no flow version Beacon knows of class ${agent.agentClass}: name one (flowHash)`,
        );
      return running;
    }
    const version =
      typeof flowHash === "string" && isFlowHash(flowHash)
        ? await flows.get(tenant, agent.agentClass, flowHash)
        : undefined;
    if (!version)
      throw new BeaconError("not_found", `Class ${agent.agentClass} has no flow version ${String(flowHash)}`);
    return version;
  }

  /** Tells heartbeats first (refused while the cache is unreachable), then stores it. */
  async function putPin(tenant: string, agentId: string, pin: AgentPin | undefined) {
    await tellCacheFirst(
      () => hotState.rememberPin(tenant, agentId, pin),
      "the agent's heartbeats would not learn of the pin",
    );
    if (!(await registry.putPin(tenant, agentId, pin))) throw new BeaconError("not_found", "No such agent");
  }

  return {
    /**
     * Pins the agent to a version of its class, the one it runs when none is named. An agent running another
     * flow is sent the version once, as a console operation would be; catch-up keeps it there afterwards.
     */
    async pin(principal: Principal, agentId: string, body: unknown): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const agent = await agentOf(tenant, agentId);
      const version = await versionToPin(tenant, agent, asObject(body)?.flowHash);
      const flowIds = await flowIdsFor(tenant, agent, version);
      const pin: AgentPin = {
        flowHash: version.hash,
        flowIds,
        pinnedAt: clock.now(),
        pinnedBy: principal.subject,
      };
      await putPin(tenant, agentId, pin);
      const sent =
        agent.flowId !== undefined && flowIds.includes(agent.flowId)
          ? undefined
          : await deps.createOperation(principal, {
              agentId,
              operation: "UPDATE",
              operand: "CONFIGURATION",
              flowHash: version.hash,
            });
      const operation = (sent?.body as { items?: unknown[] } | undefined)?.items?.[0];
      return {
        body: dropUndefined({ agentId, pinnedFlow: pinView(pin), operation }),
        streamError: sent?.streamError,
      };
    },

    /**
     * Renders the agent's pin anew with the own values it is about to have: the version it downloads then
     * carries the flow id catch-up holds it to, so it is not sent its pin again and again. No pin, nothing.
     */
    async followValues(tenant: string, agentId: string, own: OwnValues): Promise<void> {
      const agent = await registry.get(tenant, agentId);
      const pin = agent?.pin;
      const version = pin && (await flows.get(tenant, agent.agentClass, pin.flowHash));
      if (!pin || !version) return;
      const flowIdOf = await renderings.withOwnValues(tenant, agent.agentClass, version);
      await putPin(tenant, agentId, { ...pin, flowIds: flowIdsOf(version, flowIdOf(own)) });
    },

    /** Unpins the agent: the class's catch-up brings it to the class's target in its normal way. */
    async unpin(principal: Principal, agentId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      await agentOf(tenant, agentId);
      await putPin(tenant, agentId, undefined);
      return { body: { agentId } };
    },
  };
}
