import type { AgentRecord } from "../agents/ports.js";
import { syncDigestOf, syncResourceArgs, updateAssetArgs } from "../assets/location.js";
import { isAssetId } from "../assets/model.js";
import type { AssetCatalog, ResourceSetStore } from "../assets/ports.js";
import type { ResourceSet } from "../assets/resource-set.js";
import { dropUndefined } from "../c2/json.js";
import type { OperationArgs } from "../c2/model.js";
import { debugBundleUrl } from "../c2/routes.js";
import { BeaconError } from "../errors.js";
import type { AgentFilters } from "../fleet/agents.js";
import type { FleetRegistry, HotAgentState } from "../fleet/ports.js";
import { isFlowHash } from "../flows/flow-hash.js";
import { updateConfigurationArgs } from "../flows/location.js";
import type { FlowCatalog } from "../flows/ports.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { ConsoleResult } from "../result.js";
import { isValidOperationId } from "./ids.js";
import type { LifecycleResult } from "./lifecycle.js";
import { isFinal, OperationKinds, type OperationRecord, type OperationState } from "./model.js";
import type { OperationResultStore, OperationStore } from "./ports.js";
import {
  makeOperationQueue,
  type OperationDraft,
  type OperationQueue,
  type OperationQueueDependencies,
  type Refusal,
} from "./queue.js";
import { RESULT_CONTENT_TYPE } from "./results.js";

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
  /** Numbers and booleans are sent as the strings agents parse; objects only in C++ UPDATE PROPERTIES' form. */
  args?: Record<string, string | number | boolean | PropertyUpdate>;
  dependsOn?: string[];
  /** UPDATE CONFIGURATION: the flow version to send, of the targets' class unless `flowClass` names another. */
  flowHash?: string;
  flowClass?: string;
  /** UPDATE ASSET: the asset to send. */
  assetId?: string;
  /** Required true for what cannot be undone: START or STOP `c2`, CLEAR REPOSITORIES. */
  confirm?: boolean;
};

/** MiNiFi C++ UPDATE PROPERTIES' object form of a value: whether the agent writes it to its properties file. */
export interface PropertyUpdate {
  value: string;
  persist?: boolean;
}

export interface OperationsDependencies extends OperationQueueDependencies {
  operations: OperationStore;
  operationResults: OperationResultStore;
  registry: FleetRegistry;
  flows: FlowCatalog;
  assets: AssetCatalog;
  resourceSets: ResourceSetStore;
  /** The agent API's public base URL (`https://host[:port]`), for the URLs agents are sent to. */
  agentApiUrl: string;
  /** The base of TRANSFER DEBUG's upload targets: where the streaming bundle intake is reached. */
  debugBundleTargetBase: string;
  /** The agents the console's agent list shows for these filters, reading on until `limit` or the end. */
  selectAgents(tenant: string, filters: AgentFilters, limit: number): Promise<{ agentId: string }[]>;
}

/** Operations whose args Beacon builds from a flow version, an asset or a resource set, not from the caller. */
const UPDATE_CONFIGURATION = "UPDATE CONFIGURATION";
const UPDATE_ASSET = "UPDATE ASSET";
const SYNC_RESOURCE = "SYNC RESOURCE";
const TRANSFER_DEBUG = "TRANSFER DEBUG";
/** UPDATE ASSET takes one arg from the caller, as the string agents parse. */
const FORCE_DOWNLOAD = "forceDownload";

/** The args a caller gives an operation: whether it needs some, and the names it takes when they are fixed. */
const CALLER_ARGS: Record<string, { required: boolean; names?: readonly string[] }> = {
  "UPDATE PROPERTIES": { required: true },
  "CLEAR CONNECTION": { required: true },
  "CLEAR CORECOMPONENTSTATE": { required: true },
  "START PROCESSOR": { required: true, names: ["processorId"] },
  "STOP PROCESSOR": { required: true, names: ["processorId"] },
  [UPDATE_ASSET]: { required: false, names: [FORCE_DOWNLOAD] },
  "DESCRIBE METRICS": { required: false, names: ["metricsClass"] },
};

/**
 * What cannot be undone, sent only with `"confirm": true`: STOP `c2` ends the C++ agent (SIGTERM) and START
 * `c2` restarts it, CLEAR REPOSITORIES destroys the data the agent holds queued.
 */
const NEEDS_CONFIRMATION = new Set(["START C2", "STOP C2", "CLEAR REPOSITORIES"]);

/** A C++ component START or STOP names as its operand: its id or name, `FlowController`, `c2`. */
const COMPONENT_OPERAND = /^[A-Za-z0-9][A-Za-z0-9 ._:-]{0,127}$/;

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
    result: record.result && {
      bytes: record.result.bytes,
      expiresAt: toIso(record.result.expiresAt) as string,
    },
    resultLost: record.resultLost,
    bundle: record.bundle && {
      bytes: record.bundle.bytes,
      expiresAt: toIso(record.bundle.expiresAt) as string,
    },
  });

const nameOf = (kind: { operation: string; operand?: string }) =>
  `${kind.operation} ${kind.operand ?? ""}`.trim();

/**
 * The caller's args as agents take them: strings (`"30"`, not `30`: MiNiFi Java reads anything else as
 * absent), and UPDATE PROPERTIES' object form `{value, persist}` as it is (gating.ts sends it to C++ only).
 */
function callerArgsOf(name: string, args: OperationRequest["args"]): OperationArgs | undefined {
  if (args === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(args).map(([arg, value]) => {
      if (typeof value !== "object") return [arg, String(value)];
      if (name !== "UPDATE PROPERTIES")
        throw new BeaconError("invalid_request", `${name} takes strings as args, not objects (${arg})`);
      return [arg, dropUndefined({ value: value.value, persist: value.persist })];
    }),
  );
}

/** The operation as Beacon sends it: a kind it creates, with the arguments that kind takes. */
function kindOf(request: OperationRequest): { operation: string; operand?: string } {
  const operation = request.operation.toUpperCase();
  const operand = request.operand?.toUpperCase() ?? "";
  const known = OperationKinds.some((entry) => entry.operation === operation && entry.operand === operand);
  const component = (operation === "START" || operation === "STOP") && COMPONENT_OPERAND.test(operand);
  if (!known && !component)
    throw new BeaconError("invalid_request", `Beacon does not create ${operation} ${operand}`.trim());
  const name = nameOf({ operation, operand });
  if (NEEDS_CONFIRMATION.has(name) && request.confirm !== true)
    throw new BeaconError(
      "confirmation_required",
      `${name} cannot be undone (${name === "CLEAR REPOSITORIES" ? "it destroys the data the agent holds queued" : "it ends or restarts the agent itself"}): send it with "confirm": true`,
    );
  const argNames = Object.keys(request.args ?? {});
  const takes = CALLER_ARGS[name];
  if (takes?.required && argNames.length === 0)
    throw new BeaconError("invalid_request", `${name} needs args`);
  if (!takes && request.args !== undefined) throw new BeaconError("invalid_request", `${name} takes no args`);
  if (takes?.names && argNames.some((arg) => !takes.names?.includes(arg)))
    throw new BeaconError("invalid_request", `${name} takes only the args ${takes.names.join(", ")}`);
  if (name === UPDATE_ASSET) {
    const force = callerArgsOf(name, request.args)?.[FORCE_DOWNLOAD];
    if (force !== undefined && force !== "true" && force !== "false")
      throw new BeaconError("invalid_request", `${FORCE_DOWNLOAD} is "true" or "false"`);
  }
  if (name === UPDATE_CONFIGURATION && request.flowHash === undefined)
    throw new BeaconError("invalid_request", `${name} needs a flowHash`);
  if (name !== UPDATE_CONFIGURATION && (request.flowHash !== undefined || request.flowClass !== undefined))
    throw new BeaconError("invalid_request", `${name} takes no flow`);
  if (name === UPDATE_ASSET && request.assetId === undefined)
    throw new BeaconError("invalid_request", `${name} needs an assetId`);
  if (name !== UPDATE_ASSET && request.assetId !== undefined)
    throw new BeaconError("invalid_request", `${name} takes no asset`);
  return { operation, operand: operand || undefined };
}

/** The 409 for drafts their agents cannot take, naming each agent with the reason. */
function refusedError(refused: Refusal[]): BeaconError {
  const shown = refused
    .slice(0, 10)
    .map(({ draft, reason }) => `${draft.agent.agentId} (${nameOf(draft)}: ${reason})`)
    .join("; ");
  const more = refused.length > 10 ? `; and ${refused.length - 10} more` : "";
  const who =
    refused.length === 1 ? "The agent cannot take the operation" : `${refused.length} agents cannot`;
  return new BeaconError("operation_not_supported", `${who}: ${shown}${more}`);
}

/** A queued or delivered SYNC RESOURCE of the agent that brings it to this set, when there is one. */
const openSyncTo = (open: OperationRecord[], set: ResourceSet) =>
  open.find(
    (record) =>
      record.operation === "SYNC" &&
      record.operand === "RESOURCE" &&
      (record.state === "queued" || record.state === "delivered") &&
      syncDigestOf(record.args) === set.digest,
  );

export function makeOperationsApi(deps: OperationsDependencies) {
  const { operations, lifecycle, registry, flows, assets, resourceSets } = deps;
  const queue: OperationQueue = makeOperationQueue(deps);

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

  /** The class's resource set, read once per request and class. */
  function resourceSetReader(tenant: string) {
    const read = new Map<string, Promise<ResourceSet | undefined>>();
    return (className: string) => {
      let set = read.get(className);
      if (!set) {
        set = resourceSets.get(tenant, className);
        read.set(className, set);
      }
      return set;
    };
  }

  /**
   * A flow that names assets (`@{asset-id:…}`) fails to apply on an agent that lacks them, so each agent's
   * UPDATE CONFIGURATION depends on the SYNC RESOURCE that brings it its class's set: one already queued or
   * delivered, else one queued with it. An agent that reports the set's digest holds it already. The set
   * must hold every asset the flow names.
   */
  async function assetPrerequisites(
    tenant: string,
    agents: AgentRecord[],
    assetIds: string[],
    hot: Map<string, HotAgentState>,
  ): Promise<Map<string, { dependsOn: string; sync?: OperationDraft }>> {
    const setOf = resourceSetReader(tenant);
    const prerequisites = new Map<string, { dependsOn: string; sync?: OperationDraft }>();
    for (const agent of agents) {
      const set = await setOf(agent.agentClass);
      const held = new Set(set?.entries.map((entry) => entry.assetId));
      const missing = assetIds.filter((assetId) => !held.has(assetId));
      if (!set || missing.length > 0)
        throw new BeaconError(
          "flow_incompatible",
          `The flow uses assets the resource set of class ${agent.agentClass} does not hold (${missing.join(", ")}); add them with PUT /classes/{name}/resources`,
        );
      if (hot.get(agent.agentId)?.resourceHash === set.digest) continue;
      const pending = openSyncTo(await operations.open(tenant, agent.agentId), set);
      if (pending) {
        prerequisites.set(agent.agentId, { dependsOn: pending.operationId });
        continue;
      }
      const sync: OperationDraft = {
        agent,
        operation: "SYNC",
        operand: "RESOURCE",
        args: syncResourceArgs(set, deps.agentApiUrl),
        operationId: queue.newId(agent.agentId),
      };
      prerequisites.set(agent.agentId, { dependsOn: sync.operationId as string, sync });
    }
    return prerequisites;
  }

  /** UPDATE CONFIGURATION's drafts: the version's download, after the assets it names where it names any. */
  async function updateConfigurationDrafts(
    tenant: string,
    request: OperationRequest,
    agents: AgentRecord[],
    hot: Map<string, HotAgentState>,
  ): Promise<OperationDraft[]> {
    const flowHash = request.flowHash as string;
    const classes = request.flowClass
      ? [request.flowClass]
      : [...new Set(agents.map((agent) => request.selector?.agentClass ?? agent.agentClass))];
    const assetIds = new Set<string>();
    for (const className of classes) {
      const version = isFlowHash(flowHash) ? await flows.get(tenant, className, flowHash) : undefined;
      if (!version) throw new BeaconError("not_found", `Class ${className} has no flow version ${flowHash}`);
      for (const assetId of version.assetIds ?? []) assetIds.add(assetId);
    }
    const args = updateConfigurationArgs(deps.agentApiUrl, flowHash);
    const prerequisites =
      assetIds.size === 0 ? new Map() : await assetPrerequisites(tenant, agents, [...assetIds], hot);
    return agents.flatMap((agent) => {
      const prerequisite = prerequisites.get(agent.agentId);
      const dependsOn = [...(request.dependsOn ?? []), ...(prerequisite ? [prerequisite.dependsOn] : [])];
      const update: OperationDraft = {
        agent,
        operation: "UPDATE",
        operand: "CONFIGURATION",
        args,
        dependsOn: dependsOn.length > 0 ? dependsOn : undefined,
      };
      return prerequisite?.sync ? [prerequisite.sync, update] : [update];
    });
  }

  /** One draft per agent, with the args Beacon builds for the kind or the caller's. */
  async function draftsFor(
    tenant: string,
    request: OperationRequest,
    kind: { operation: string; operand?: string },
    agents: AgentRecord[],
    hot: Map<string, HotAgentState>,
  ): Promise<OperationDraft[]> {
    const name = nameOf(kind);
    if (name === UPDATE_CONFIGURATION) return updateConfigurationDrafts(tenant, request, agents, hot);
    const each = (argsOf: (agent: AgentRecord) => OperationArgs | undefined) =>
      agents.map((agent) => ({ agent, ...kind, args: argsOf(agent), dependsOn: request.dependsOn }));
    if (name === UPDATE_ASSET) {
      const assetId = request.assetId as string;
      const asset = isAssetId(assetId) ? await assets.get(tenant, assetId) : undefined;
      if (!asset) throw new BeaconError("not_found", "No such asset");
      const force = callerArgsOf(name, request.args)?.[FORCE_DOWNLOAD] === "true";
      const args = updateAssetArgs(asset, deps.agentApiUrl, force);
      return each(() => args);
    }
    if (name === SYNC_RESOURCE) {
      const setOf = resourceSetReader(tenant);
      const sets = new Map<string, ResourceSet>();
      for (const agent of agents) {
        const set = await setOf(agent.agentClass);
        if (!set)
          throw new BeaconError(
            "not_found",
            `Class ${agent.agentClass} has no resource set; set one with PUT /classes/{name}/resources`,
          );
        sets.set(agent.agentId, set);
      }
      return each((agent) => syncResourceArgs(sets.get(agent.agentId) as ResourceSet, deps.agentApiUrl));
    }
    if (name === TRANSFER_DEBUG)
      // Each upload target names its own operation, whose id is made here for it.
      return agents.map((agent) => {
        const operationId = queue.newId(agent.agentId);
        const target = debugBundleUrl(deps.debugBundleTargetBase, operationId);
        return { agent, ...kind, operationId, args: { target }, dependsOn: request.dependsOn };
      });
    const args = callerArgsOf(name, request.args);
    return each(() => args);
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
      const drafts = await draftsFor(tenant, request, kind, agents, hot);
      // Every agent must be able to take its operation: the Java agent drops a whole reply it cannot parse.
      const refused = await queue.refusals(tenant, drafts, hot);
      if (refused.length > 0) throw refusedError(refused);
      if (request.agentId !== undefined && request.dependsOn)
        await assertDependencies(tenant, request.agentId, request.dependsOn);
      const { records, streamError } = await queue.enqueue(tenant, drafts, principal.subject);
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
