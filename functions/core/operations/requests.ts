import type { AgentRecord, ClassCatalog } from "../agents/ports.js";
import { ackTimeoutMsOf } from "../agents/status.js";
import { dropUndefined } from "../c2/json.js";
import { supports } from "../c2/manifest.js";
import { BeaconError } from "../errors.js";
import type { EventSink } from "../events/ports.js";
import type { AgentFilters } from "../fleet/agents.js";
import type { FleetHotState, FleetRegistry } from "../fleet/ports.js";
import { isFlowHash } from "../flows/document.js";
import { updateConfigurationArgs } from "../flows/location.js";
import type { FlowCatalog } from "../flows/ports.js";
import { guardedCache } from "../guarded-cache.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { operationsOfAgent } from "../manifests/agent-manifest.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { Clock, IdGenerator } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { isValidOperationId, newOperationId } from "./ids.js";
import type { LifecycleResult, OperationLifecycle } from "./lifecycle.js";
import { isFinal, OperationKinds, type OperationRecord, type OperationState } from "./model.js";
import type { OperationStore } from "./ports.js";

/** Most agents one request may queue an operation for; a larger fleet is addressed in narrower selections. */
export const MAX_SELECTED_AGENTS = 1_000;

/** Which agents: one by id, or those the agent list would show for these filters within a class. */
export type OperationTarget =
  | { agentId: string; selector?: undefined }
  | {
      agentId?: undefined;
      selector: AgentFilters & { agentClass: string };
    };

export type OperationRequest = OperationTarget & {
  operation: string;
  operand?: string;
  args?: Record<string, string>;
  dependsOn?: string[];
  /** UPDATE CONFIGURATION: the flow version to send, of the targets' class unless `flowClass` names another. */
  flowHash?: string;
  flowClass?: string;
};

export interface OperationsDependencies {
  operations: OperationStore;
  lifecycle: OperationLifecycle;
  registry: FleetRegistry;
  catalog: Pick<ClassCatalog, "get">;
  hotState: FleetHotState;
  flows: FlowCatalog;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  /** The agent API's public base URL (`https://host[:port]`), for the URLs agents are sent to. */
  agentApiUrl: string;
  /** The agents the console's agent list shows for these filters, reading on until `limit` or the end. */
  selectAgents(tenant: string, filters: AgentFilters, limit: number): Promise<{ agentId: string }[]>;
}

const ARGS_REQUIRED = new Set(["UPDATE PROPERTIES", "CLEAR CONNECTION"]);
/** Operations whose args Beacon builds from a flow version rather than taking them from the caller. */
const UPDATE_CONFIGURATION = "UPDATE CONFIGURATION";

export const operationView = (record: OperationRecord) =>
  dropUndefined({
    operationId: record.operationId,
    agentId: record.agentId,
    operation: record.operation,
    operand: record.operand,
    args: record.args,
    dependsOn: record.dependsOn,
    state: record.state,
    createdAt: toIso(record.createdAt) as string,
    createdBy: record.createdBy,
    deliveredAt: toIso(record.deliveredAt),
    timeoutAt: toIso(record.timeoutAt),
    finishedAt: toIso(record.finishedAt),
    ackState: record.ackState,
    confirmedBy: record.confirmedBy,
    details: record.details,
    failureCause: record.failureCause,
    reason: record.reason,
  });

/** The operation as Beacon sends it: a kind it creates, with the arguments that kind takes. */
function kindOf(request: OperationRequest): { operation: string; operand?: string } {
  const operation = request.operation.toUpperCase();
  const operand = request.operand?.toUpperCase() ?? "";
  const kind = OperationKinds.find((entry) => entry.operation === operation && entry.operand === operand);
  if (!kind)
    throw new BeaconError("invalid_request", `Beacon does not create ${operation} ${operand}`.trim());
  const name = `${operation} ${operand}`.trim();
  const hasArgs = request.args !== undefined && Object.keys(request.args).length > 0;
  if (ARGS_REQUIRED.has(name) && !hasArgs) throw new BeaconError("invalid_request", `${name} needs args`);
  if (!ARGS_REQUIRED.has(name) && request.args !== undefined)
    throw new BeaconError("invalid_request", `${name} takes no args`);
  const namesFlow = request.flowHash !== undefined || request.flowClass !== undefined;
  if (name === UPDATE_CONFIGURATION && request.flowHash === undefined)
    throw new BeaconError("invalid_request", `${name} needs a flowHash`);
  if (name !== UPDATE_CONFIGURATION && namesFlow)
    throw new BeaconError("invalid_request", `${name} takes no flow`);
  return { operation, operand: operand || undefined };
}

export function makeOperationsApi(deps: OperationsDependencies) {
  const { operations, lifecycle, registry, catalog, flows, hotState, events, clock, ids } = deps;

  async function publish(result: LifecycleResult): Promise<unknown> {
    try {
      await events.publish(result.events);
      return undefined;
    } catch (error) {
      return error;
    }
  }

  async function targets(principal: Principal, request: OperationRequest): Promise<AgentRecord[]> {
    const { tenant } = principal;
    if (request.agentId !== undefined) {
      const record = await registry.get(tenant, request.agentId);
      if (!record) throw new BeaconError("not_found", "No such agent");
      return [record];
    }
    const agentIds = (await deps.selectAgents(tenant, request.selector, MAX_SELECTED_AGENTS + 1)).map(
      (agent) => agent.agentId,
    );
    if (agentIds.length > MAX_SELECTED_AGENTS)
      throw new BeaconError(
        "invalid_request",
        `The selector matches more than ${MAX_SELECTED_AGENTS} agents; narrow it`,
      );
    if (agentIds.length === 0) throw new BeaconError("invalid_request", "The selector matches no agent");
    const records = await Promise.all(agentIds.map((agentId) => registry.get(tenant, agentId)));
    return records.filter((record): record is AgentRecord => record !== undefined);
  }

  /**
   * Every agent must list the pair in its manifest, the one of the hash it reports now: the Java agent
   * drops a whole reply it cannot parse.
   */
  async function assertSupported(
    tenant: string,
    agents: AgentRecord[],
    kind: { operation: string; operand?: string },
  ) {
    const cache = guardedCache();
    const hot = await cache.attempt(() =>
      hotState.agents(
        tenant,
        agents.map((agent) => agent.agentId),
      ),
    );
    const refused: string[] = [];
    for (const agent of agents) {
      const supported = operationsOfAgent(agent, hot?.get(agent.agentId)?.manifestHash ?? agent.manifestHash);
      if (!supported || !supports(supported, kind.operation, kind.operand)) refused.push(agent.agentId);
    }
    if (refused.length > 0) {
      const name = `${kind.operation} ${kind.operand ?? ""}`.trim();
      const shown = refused.slice(0, 10).join(", ");
      throw new BeaconError(
        "operation_not_supported",
        `The manifest of ${refused.length === 1 ? "agent" : `${refused.length} agents`} ${shown}${refused.length > 10 ? ", …" : ""} does not list ${name} (or Beacon does not know it yet)`,
      );
    }
  }

  /** UPDATE CONFIGURATION's args: where the agents download the flow version and the id it goes by. */
  async function flowArgs(
    tenant: string,
    request: OperationRequest,
    agents: AgentRecord[],
  ): Promise<Record<string, string>> {
    const flowHash = request.flowHash as string;
    const classes = request.flowClass
      ? [request.flowClass]
      : [...new Set(agents.map((agent) => request.selector?.agentClass ?? agent.agentClass))];
    for (const className of classes) {
      const version = isFlowHash(flowHash) ? await flows.get(tenant, className, flowHash) : undefined;
      if (!version) throw new BeaconError("not_found", `Class ${className} has no flow version ${flowHash}`);
    }
    return updateConfigurationArgs(deps.agentApiUrl, flowHash);
  }

  async function assertDependencies(tenant: string, agentId: string, dependsOn: string[]) {
    for (const operationId of dependsOn) {
      const dependency = await operations.get(tenant, agentId, operationId);
      if (!dependency)
        throw new BeaconError("invalid_request", `The agent has no operation ${operationId} to depend on`);
      if (isFinal(dependency.state) && dependency.state !== "done")
        throw new BeaconError(
          "operation_not_queued",
          `Operation ${operationId} is ${dependency.state}: it will never be done`,
        );
    }
  }

  async function findOperation(tenant: string, operationId: string): Promise<OperationRecord> {
    const record = await lifecycle.find(tenant, operationId);
    if (!record) throw new BeaconError("not_found", "No such operation");
    return record;
  }

  /** Each class's own acknowledgement timeout, read once per class of the agents. */
  async function ackTimeoutsOf(tenant: string, agents: AgentRecord[]): Promise<Map<string, number>> {
    const timeouts = new Map<string, number>();
    for (const agentClass of new Set(agents.map((agent) => agent.agentClass))) {
      const timeout = ackTimeoutMsOf(await catalog.get(tenant, agentClass));
      if (timeout !== undefined) timeouts.set(agentClass, timeout);
    }
    return timeouts;
  }

  return {
    async create(principal: Principal, request: OperationRequest): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      if ((request.agentId === undefined) === (request.selector === undefined))
        throw new BeaconError("invalid_request", "Name either one agent (agentId) or a selector");
      if (request.dependsOn && request.agentId === undefined)
        throw new BeaconError("invalid_request", "dependsOn names operations of one agent: use agentId");
      const kind = kindOf(request);
      const agents = await targets(principal, request);
      await assertSupported(tenant, agents, kind);
      if (request.agentId !== undefined && request.dependsOn)
        await assertDependencies(tenant, request.agentId, request.dependsOn);

      const args = request.flowHash === undefined ? request.args : await flowArgs(tenant, request, agents);
      const ackTimeouts = await ackTimeoutsOf(tenant, agents);

      const now = clock.now();
      const records: OperationRecord[] = agents.map((agent) =>
        dropUndefined({
          tenant,
          agentId: agent.agentId,
          operationId: newOperationId(now, ids, agent.agentId),
          ...kind,
          args,
          dependsOn: request.dependsOn,
          state: "queued" as const,
          createdAt: now,
          createdBy: principal.subject,
          ackTimeoutMs: ackTimeouts.get(agent.agentClass),
        }),
      );
      // The marker goes first: without it the agents' heartbeats would not look at their queues.
      const cache = guardedCache();
      await cache.attempt(() =>
        hotState.markOperationsPending(
          tenant,
          agents.map((agent) => agent.agentId),
        ),
      );
      if (cache.error !== undefined)
        throw new BeaconError(
          "cache_unavailable",
          "Beacon's cache is unreachable, so agents would not learn of the operation; try again",
        );
      const created = await lifecycle.create(records);
      return {
        status: 201,
        body: { items: records.map(operationView) },
        streamError: await publish(created),
      };
    },

    async list(
      principal: Principal,
      request: { state?: OperationState; agentId?: string; cursor?: string; limit?: number },
    ): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const page = await operations.list(principal.tenant, {
        ...pageRequestOf(request, isValidOperationId),
        state: request.state,
        agentId: request.agentId,
      });
      return { body: pageBodyOf(page, operationView) };
    },

    async get(principal: Principal, operationId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      return { body: operationView(await findOperation(principal.tenant, operationId)) };
    },

    async cancel(principal: Principal, operationId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const record = await findOperation(principal.tenant, operationId);
      const result = await lifecycle.cancel(record, `Cancelled by ${principal.subject}`);
      const streamError = await publish(result);
      if (!result.cancelled)
        throw new BeaconError(
          "operation_not_queued",
          `The operation is ${record.state}: only a queued one can be cancelled`,
        );
      return { body: operationView(await findOperation(principal.tenant, operationId)), streamError };
    },
  };
}
