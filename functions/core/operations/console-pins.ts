import type { AgentPin, AgentRecord, PinCache } from "../agents/ports.js";
import { BeaconError, isBeaconError } from "../errors.js";
import {
  type AgentFilters,
  type AgentReader,
  type AgentSummary,
  bothFilters,
  pinView,
} from "../fleet/agents.js";
import type { FleetRegistry } from "../fleet/ports.js";
import { isFlowHash } from "../flows/flow-hash.js";
import type { FlowCatalog, FlowVersionRecord } from "../flows/ports.js";
import { tellCacheFirst } from "../guarded-cache.js";
import { type Principal, reachesClass, requireRole } from "../identity/principal.js";
import { asObject, dropUndefined } from "../json.js";
import type { FlowRenderings, OwnValues } from "../parameters/rendered-flow-ids.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import type { OperationRequest } from "./drafts.js";
import { noneSkipped, skippedView, withSkipped } from "./skipped.js";

export interface PinsDependencies {
  registry: Pick<FleetRegistry, "get" | "putPin">;
  flows: Pick<FlowCatalog, "get" | "list">;
  renderings: Pick<FlowRenderings, "agentFlowIds" | "withOwnValues">;
  /** Where the pin goes for catch-up to hold the agent to it. */
  hotState: PinCache;
  clock: Clock;
  /** Creates an operation as the console's POST /operations does: the UPDATE CONFIGURATION a pin sends. */
  createOperation(principal: Principal, request: OperationRequest): Promise<ConsoleResult>;
  /** The agents as the list shows them, through which a group's members are paged. */
  reader: Pick<AgentReader, "pages">;
  /** The agent list's filters of the named group's members now (not_found when there is no such group). */
  groupFilters(tenant: string, groupName: string): Promise<AgentFilters | undefined>;
}

/** How many of a class's versions one page of the search for the agent's running version reads. */
const VERSIONS_PAGE = 100;
/** How many of the members a group's pin or unpin passed over it names; `skippedCount` counts them all. */
export const MAX_SKIPPED_LISTED = 100;

/** What a group's pin or unpin did: how many members it changed, and those it passed over and why. */
class MemberTally {
  done = 0;
  skipped = noneSkipped;
  streamError: unknown;

  skip(agentId: string, reason: string) {
    this.skipped = withSkipped(this.skipped, [{ agentId, reason }], MAX_SKIPPED_LISTED);
  }

  bodyAs(count: "pinned" | "unpinned") {
    return { [count]: this.done, ...skippedView(this.skipped) };
  }
}

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

  async function unpinAgent(tenant: string, agentId: string): Promise<ConsoleResult> {
    await agentOf(tenant, agentId);
    await putPin(tenant, agentId, undefined);
    return { body: { agentId } };
  }

  /**
   * Pins the agent to a version of its class, the one it runs when `flowHash` names none. An agent running
   * another flow is sent the version once, as a console operation would be; catch-up keeps it there afterwards.
   */
  async function pinAgent(
    principal: Principal,
    agent: AgentRecord,
    flowHash: unknown,
  ): Promise<ConsoleResult> {
    const { tenant } = principal;
    const { agentId } = agent;
    const version = await versionToPin(tenant, agent, flowHash);
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
  }

  /**
   * Does `act` to every member the filters pick, page by page with no cap, as far as the principal's classes
   * reach (a member of another class is left as it is and not counted). A member `act` refuses as a request
   * would be refused (no version to pin, gone meanwhile) is passed over with the reason; anything else stops.
   */
  async function eachMember(
    principal: Principal,
    filters: AgentFilters | undefined,
    act: (member: AgentSummary) => Promise<ConsoleResult>,
  ): Promise<MemberTally> {
    const tally = new MemberTally();
    if (filters === undefined) return tally;
    for await (const page of deps.reader.pages(principal.tenant, filters))
      for (const member of page.items.filter((item) => reachesClass(principal, item.agentClass))) {
        try {
          tally.streamError ??= (await act(member)).streamError;
          tally.done++;
        } catch (error) {
          if (!isBeaconError(error) || !["invalid_request", "not_found"].includes(error.code)) throw error;
          tally.skip(member.agentId, error.message);
        }
      }
    return tally;
  }

  /** The filters of the group's members; a named version belongs to one class, so its group must name exactly one. */
  async function membersToPin(tenant: string, groupName: string, flowHash: unknown) {
    const filters = await deps.groupFilters(tenant, groupName);
    if (flowHash !== undefined && filters !== undefined && filters.agentClass === undefined)
      throw new BeaconError(
        "invalid_request",
        `A flowHash is a version of one class: the query of group ${groupName} names exactly one class to pin its members to one`,
      );
    return filters;
  }

  return {
    /** Pins the agent to a version of its class ({@link pinAgent}). */
    async pin(principal: Principal, agentId: string, body: unknown): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      return pinAgent(principal, await agentOf(principal.tenant, agentId), asObject(body)?.flowHash);
    },

    /**
     * Pins every member of the group the principal reaches, as each would be pinned on its own: to the version
     * it runs, or to `flowHash` of the group's one class.
     */
    async pinGroup(principal: Principal, groupName: string, body: unknown): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const flowHash = asObject(body)?.flowHash;
      const members = await membersToPin(tenant, groupName, flowHash);
      const tally = await eachMember(principal, members, async ({ agentId }) =>
        pinAgent(principal, await agentOf(tenant, agentId), flowHash),
      );
      return { body: tally.bodyAs("pinned"), streamError: tally.streamError };
    },

    /** Unpins every pinned member of the group the principal reaches; the others are not counted. */
    async unpinGroup(principal: Principal, groupName: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const members = await deps.groupFilters(tenant, groupName);
      const pinned = members && bothFilters(members, { pinned: true });
      const tally = await eachMember(principal, pinned, ({ agentId }) => unpinAgent(tenant, agentId));
      return { body: tally.bodyAs("unpinned") };
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
      return unpinAgent(principal.tenant, agentId);
    },
  };
}
