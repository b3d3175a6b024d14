import type { AgentRecord } from "../agents/ports.js";
import { isAssetId } from "../assets/model.js";
import type { AssetCatalog, ResourceSetStore } from "../assets/ports.js";
import type { ResourceSet } from "../assets/resource-set.js";
import { BeaconError } from "../errors.js";
import type { OperationState } from "../events/model.js";
import { groupsWithAgent, type WindowedGroup, windowSetsOf } from "../fleet/agent-windows.js";
import type { AgentFilters, AgentReader } from "../fleet/agents.js";
import type { FleetRegistry, TenantSettingsStore } from "../fleet/ports.js";
import { isFlowHash } from "../flows/flow-hash.js";
import { declaresParameters, updateConfigurationArgs } from "../flows/location.js";
import type { FlowCatalog, FlowVersionRecord } from "../flows/ports.js";
import { guardedCache } from "../guarded-cache.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { pageBodyOf, pageRequestOf } from "../paging.js";
import type { FlowRenderings } from "../parameters/rendered-flow-ids.js";
import type { ConsoleResult } from "../result.js";
import { DEFAULT_TIME_ZONE, windowsTogetherState } from "../schedules/windows.js";
import {
  type AgentsRead,
  agentsLackingAssets,
  assetIdsOf,
  assetPrerequisites,
  type ClosedWindows,
  type DraftContext,
  drafts,
  flowClassesOf,
  kindOf,
  MAX_SELECTED_AGENTS,
  nameOf,
  type OperationKind,
  type OperationRequest,
  operationView,
  outsideWindowError,
  outsideWindows,
  refusedError,
  SYNC_RESOURCE,
  UPDATE_ASSET,
  UPDATE_CONFIGURATION,
  updateConfigurationDrafts,
} from "./drafts.js";
import { isValidOperationId } from "./ids.js";
import type { LifecycleResult } from "./lifecycle.js";
import { isFinal, type OperationRecord } from "./model.js";
import type { OperationResultStore, OperationStore } from "./ports.js";
import {
  makeOperationQueue,
  type OperationDraft,
  type OperationQueue,
  type OperationQueueDependencies,
} from "./queue.js";
import { RESULT_CONTENT_TYPE } from "./results.js";

export interface OperationsDependencies extends OperationQueueDependencies {
  operations: OperationStore;
  operationResults: OperationResultStore;
  registry: FleetRegistry;
  flows: FlowCatalog;
  /** The flow ids agents report for a version that declares parameters, rendered with their values. */
  renderings: Pick<FlowRenderings, "agentFlowIds">;
  assets: AssetCatalog;
  resourceSets: ResourceSetStore;
  /** The agent API's public base URL (`https://host[:port]`), for the URLs agents are sent to. */
  agentApiUrl: string;
  /** The base of TRANSFER DEBUG's upload targets: where the streaming bundle intake is reached. */
  debugBundleTargetBase: string;
  /** The tenant's time zone, for classes and groups with maintenance windows. */
  tenantSettings: Pick<TenantSettingsStore, "get">;
  /** The tenant's groups with maintenance windows and their members' filters. */
  windowedGroups(tenant: string): Promise<WindowedGroup[]>;
  /** The agents as the list shows them (status, last seen), for matching them to groups. */
  merge: AgentReader["merge"];
  /** The agents the console's agent list shows for these filters, reading on until `limit` or the end. */
  selectAgents(tenant: string, filters: AgentFilters, limit: number): Promise<{ agentId: string }[]>;
}

/** The console's operations: the reads a request's drafts need (drafts.ts decides), and the writes. */
export function makeOperationsApi(deps: OperationsDependencies) {
  const { operations, lifecycle, registry, flows, assets, resourceSets } = deps;
  const queue: OperationQueue = makeOperationQueue(deps);
  const context: DraftContext = {
    agentApiUrl: deps.agentApiUrl,
    debugBundleTargetBase: deps.debugBundleTargetBase,
    newOperationId: queue.newId,
  };

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

  /** The resource set of each agent's class, each class's read once. */
  async function resourceSetsOf(tenant: string, agents: AgentRecord[]) {
    const classes = [...new Set(agents.map((agent) => agent.agentClass))];
    const sets = await Promise.all(classes.map((className) => resourceSets.get(tenant, className)));
    return new Map<string, ResourceSet | undefined>(classes.map((className, at) => [className, sets[at]]));
  }

  /**
   * The agents whose maintenance windows (their class's and their groups') are not all open now. Groups are
   * matched only when the tenant has groups with windows, and the time zone read only for agents with windows.
   */
  async function closedWindowsOf(tenant: string, agents: AgentRecord[]): Promise<Map<string, ClosedWindows>> {
    const now = deps.clock.now();
    const classes = [...new Set(agents.map((agent) => agent.agentClass))];
    const classWindows = new Map(
      await Promise.all(
        classes.map(
          async (className) =>
            [className, (await deps.catalog.get(tenant, className))?.maintenanceWindows] as const,
        ),
      ),
    );
    const groups = await deps.windowedGroups(tenant);
    // Status and last seen, which a group's query may name, as the list shows them.
    const merged = groups.length > 0 ? await deps.merge(tenant, agents, guardedCache()) : [];
    const closed = new Map<string, ClosedWindows>();
    let timeZone: string | undefined;
    for (const [at, { agentId, agentClass }] of agents.entries()) {
      const agent = merged[at];
      const sets = windowSetsOf(
        agentClass,
        classWindows.get(agentClass),
        agent === undefined ? [] : groupsWithAgent(agent, groups),
      );
      if (sets.length === 0) continue;
      timeZone ??= (await deps.tenantSettings.get(tenant)).timeZone ?? DEFAULT_TIME_ZONE;
      const state = windowsTogetherState(
        now,
        sets.map((set) => set.windows),
        timeZone,
      );
      if (!state.open) closed.set(agentId, { of: sets.map((set) => set.of), nextOpening: state.nextOpening });
    }
    return closed;
  }

  /** The flow version of each class an UPDATE CONFIGURATION sends, refused where a class has none. */
  async function flowVersionsOf(tenant: string, flowHash: string, classes: string[]) {
    const versions: FlowVersionRecord[] = [];
    for (const className of classes) {
      const version = isFlowHash(flowHash) ? await flows.get(tenant, className, flowHash) : undefined;
      if (!version) throw new BeaconError("not_found", `Class ${className} has no flow version ${flowHash}`);
      versions.push(version);
    }
    return versions;
  }

  /** The flow id each agent reports once it runs its class's version, rendered with its values. */
  async function renderedFlowIdsOf(
    tenant: string,
    request: OperationRequest,
    agents: AgentRecord[],
    versions: FlowVersionRecord[],
  ): Promise<Map<string, string>> {
    const flowIds = new Map<string, string>();
    for (const version of versions) {
      const agentIds = agents
        .filter((agent) => (request.flowClass ?? agent.agentClass) === version.className)
        .map((agent) => agent.agentId);
      for (const [agentId, flowId] of await deps.renderings.agentFlowIds(
        tenant,
        version.className,
        version,
        agentIds,
      ))
        flowIds.set(agentId, flowId);
    }
    return flowIds;
  }

  async function updateConfiguration(
    tenant: string,
    request: OperationRequest,
    read: Omit<AgentsRead, "resourceSets">,
  ): Promise<OperationDraft[]> {
    const flowHash = request.flowHash as string;
    const versions = await flowVersionsOf(tenant, flowHash, flowClassesOf(request, read.agents));
    const assetIds = assetIdsOf(versions);
    // One hash, one document: every class's version of it declares the same parameters.
    const parameterized = versions.some(declaresParameters);
    if (
      parameterized &&
      read.agents.some((agent) => agent.agentClass !== (request.flowClass ?? agent.agentClass))
    )
      throw new BeaconError(
        "invalid_request",
        "A flow that declares parameters goes to agents of its own class only, whose values are set for it",
      );
    const flowIds = parameterized
      ? await renderedFlowIdsOf(tenant, request, read.agents, versions)
      : new Map();
    const flowArgs = (agent: AgentRecord) =>
      updateConfigurationArgs(deps.agentApiUrl, flowHash, {
        agentId: agent.agentId,
        renderedFlowId: flowIds.get(agent.agentId),
      });
    if (assetIds.length === 0) return updateConfigurationDrafts(request, read.agents, flowArgs, new Map());
    const withSets = { ...read, resourceSets: await resourceSetsOf(tenant, read.agents) };
    const lacking = agentsLackingAssets(withSets, assetIds);
    const open = new Map(
      await Promise.all(
        lacking.map(async (agent) => [agent.agentId, await operations.open(tenant, agent.agentId)] as const),
      ),
    );
    const prerequisites = assetPrerequisites(lacking, withSets, open, context);
    return updateConfigurationDrafts(request, read.agents, flowArgs, prerequisites);
  }

  /** What the kind's drafts are made of, read, then drafted. */
  async function draftsFor(
    tenant: string,
    request: OperationRequest,
    kind: OperationKind,
    read: Omit<AgentsRead, "resourceSets">,
  ): Promise<OperationDraft[]> {
    const name = nameOf(kind);
    if (name === UPDATE_CONFIGURATION) return updateConfiguration(tenant, request, read);
    const resourceSets =
      name === SYNC_RESOURCE ? await resourceSetsOf(tenant, read.agents) : new Map<string, undefined>();
    const assetId = request.assetId as string;
    const asset = name === UPDATE_ASSET && isAssetId(assetId) ? await assets.get(tenant, assetId) : undefined;
    return drafts(request, kind, { ...read, resourceSets, asset }, context);
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

  async function publish(result: LifecycleResult): Promise<unknown> {
    try {
      await deps.events.publish(result.events);
      return undefined;
    } catch (error) {
      return error;
    }
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
      const hot = await queue.hotStateOf(tenant, agents);
      const drafted = await draftsFor(tenant, request, kind, { agents, hot });
      // Every agent must be able to take its operation: the Java agent drops a whole reply it cannot parse.
      const refused = await queue.refusals(tenant, drafted, hot);
      if (refused.length > 0) throw refusedError(refused);
      if (request.agentId !== undefined && request.dependsOn)
        await assertDependencies(tenant, request.agentId, request.dependsOn);
      const windowed = outsideWindows(
        drafted,
        await closedWindowsOf(tenant, agents),
        request.outsideWindow ?? "wait",
      );
      // Refused when any agent is: a request goes to all its agents or to none.
      if (windowed.refused.length > 0) throw outsideWindowError(windowed.refused);
      const { records, streamError } = await queue.enqueue(tenant, windowed.drafts, principal.subject);
      return { status: 201, body: { items: records.map(operationView) }, streamError };
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

    /**
     * The answer the operation's acknowledgement brought (a DESCRIBE's, results.ts), as kept, until it
     * expires. Operators and admins only: it holds the agent's configuration values and components' state,
     * which viewers are not shown.
     */
    async result(principal: Principal, operationId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const record = await findOperation(principal.tenant, operationId);
      if (!record.result)
        throw new BeaconError(
          "not_found",
          record.resultLost ? "The operation's result could not be kept" : "The operation has no result",
        );
      // The bucket's lifecycle deletes the answer some hours after this, at a day's boundary: gone for the
      // console already, so that every answer lasts the same.
      const expired = () => new BeaconError("result_expired", "The operation's result has expired");
      if (deps.clock.now() >= record.result.expiresAt) throw expired();
      const bytes = await deps.operationResults.read(principal.tenant, operationId);
      if (!bytes) throw expired();
      return { body: new TextDecoder().decode(bytes), contentType: RESULT_CONTENT_TYPE };
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
