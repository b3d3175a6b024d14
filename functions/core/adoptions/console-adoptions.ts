import { assertClassName } from "../c2/class-name.js";
import { debugBundleUrl } from "../c2/routes.js";
import { BeaconError } from "../errors.js";
import type { FleetHotState, FleetRegistry } from "../fleet/ports.js";
import { declaresParameters } from "../flows/location.js";
import type { FlowCatalog, FlowVersionRecord } from "../flows/ports.js";
import { guardedCache } from "../guarded-cache.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { asString, dropUndefined, type JsonObject } from "../json.js";
import { isValidOperationId } from "../operations/ids.js";
import type { OperationQueue } from "../operations/queue.js";
import { type ListQuery, pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { GroupValues, ValuesOverClassOf } from "../parameters/over-class.js";
import type { ParameterStore } from "../parameters/ports.js";
import { ownValuesOf, renderedFlowIdOf, renderingOf } from "../parameters/rendered-flow-ids.js";
import type { ConsoleResult } from "../result.js";
import type { AdoptionRecord } from "./model.js";
import { type HeldVersion, heldFlowIdsOf, runningFlows } from "./running-flows.js";
import { type AdoptionSettlementDependencies, makeAdoptionSettlement } from "./settlement.js";

/** Longest flow id taken: the incumbent's are UUIDs, Beacon's 64 hex digits. */
const MAX_FLOW_ID_LENGTH = 256;
/** Agents reporting the flow whose last heartbeat is compared to pick the one to fetch it from. */
const CANDIDATE_AGENTS = 20;
/** Versions of a class read per page when telling which running flows Beacon holds. */
const VERSION_PAGE = 100;

export interface AdoptionsDependencies extends AdoptionSettlementDependencies {
  registry: Pick<FleetRegistry, "get" | "reportedFlows">;
  hotState: Pick<FleetHotState, "agents" | "rememberClassFlow">;
  flows: FlowCatalog;
  /** The class's values and agents' own, which name its versions' renderings. */
  parameters: Pick<ParameterStore, "list" | "agentValuesOf">;
  /** An agent's values over its class: its groups' and its own. */
  valuesOverClass: ValuesOverClassOf;
  /** The values of the tenant's groups that set any, each group's. */
  groupValues(tenant: string): Promise<GroupValues[]>;
  queue: OperationQueue;
  /** The base of TRANSFER DEBUG's upload targets: where agents reach the streaming bundle intake. */
  debugBundleTargetBase: string;
}

const declaredNames = (version: FlowVersionRecord): string[] =>
  (version.parameters ?? []).map(({ name }) => name);

const adoptionView = (record: AdoptionRecord) =>
  dropUndefined({
    adoptionId: record.adoptionId,
    className: record.className,
    flowId: record.flowId,
    agentId: record.agentId,
    operationId: record.adoptionId,
    state: record.state,
    reason: record.reason,
    flowHash: record.flowHash,
    bundleEntry: record.bundleEntry,
    current: record.current,
    createdAt: toIso(record.createdAt) as string,
    createdBy: record.createdBy,
    updatedAt: toIso(record.updatedAt) as string,
  });

/**
 * Adopting the flows a class's agents run without Beacon: which they run (grouped by flow id), fetching one
 * from an agent running it, and keeping it as a version whose adopted flow id the class's policy accepts.
 */
export function makeAdoptionsApi(deps: AdoptionsDependencies) {
  const { adoptions, registry, flows, clock } = deps;
  const { settled } = makeAdoptionSettlement(deps);

  /**
   * The class's versions, each that declares parameters with the flow ids of its renderings: the class's, and,
   * for the versions the class's policy names (those its agents run), those of each group's values and of
   * the tenant's agents with values of their own, over their groups' (one index query per declared
   * parameter, the groups' values, and each such agent's values over its class). An agent of several
   * value-holding groups and no value of its own is not among them.
   */
  async function classVersions(
    tenant: string,
    className: string,
  ): Promise<(FlowVersionRecord & HeldVersion)[]> {
    const versions: FlowVersionRecord[] = [];
    let after: string | undefined;
    do {
      const page = await flows.list(tenant, className, { limit: VERSION_PAGE, after });
      versions.push(...page.items);
      after = page.last;
    } while (after !== undefined);
    if (!versions.some(declaresParameters)) return versions;
    const policy = (await deps.catalog.get(tenant, className))?.flowPolicy;
    const inForce = new Set(policy ? [policy.target, ...policy.accepted] : []);
    const names = new Set(versions.filter((version) => inForce.has(version.hash)).flatMap(declaredNames));
    const [classValues, holdings, groups] = await Promise.all([
      deps.parameters.list(tenant, { layer: "class", className }),
      Promise.all([...names].map((name) => deps.parameters.agentValuesOf(tenant, name))),
      deps.groupValues(tenant),
    ]);
    const holders = [...new Set(holdings.flat().map(({ agentId }) => agentId))];
    const ownValues = [
      ...groups.map(({ values }) => values),
      ...(await Promise.all(holders.map((agentId) => deps.valuesOverClass(tenant, agentId)))),
    ];
    return versions.map((version) => {
      const rendering = renderingOf(version, classValues);
      if (!rendering) return version;
      const own = inForce.has(version.hash)
        ? ownValues.map((records) => renderedFlowIdOf(rendering, ownValuesOf(records)))
        : [];
      return { ...version, renderedFlowIds: [...new Set([rendering.flowId, ...own])] };
    });
  }

  /** The agent to fetch the flow from: the one asked for, else the one of those reporting it seen last. */
  async function sourceAgent(tenant: string, className: string, flowId: string, agentId: string | undefined) {
    if (agentId !== undefined) {
      const agent = await registry.get(tenant, agentId);
      if (!agent || agent.agentClass !== className)
        throw new BeaconError("not_found", "No such agent in the class");
      const hot = await guardedCache().attempt(() => deps.hotState.agents(tenant, [agentId]));
      if ((hot?.get(agentId)?.flowId ?? agent.flowId) !== flowId)
        throw new BeaconError("invalid_request", `Agent ${agentId} does not report flow ${flowId}`);
      return agent;
    }
    const reporting = (await registry.reportedFlows(tenant, className))
      .filter((agent) => agent.flowId === flowId)
      .slice(0, CANDIDATE_AGENTS)
      .map((agent) => agent.agentId);
    if (reporting.length === 0)
      throw new BeaconError("not_found", `No agent of class ${className} reports flow ${flowId}`);
    const hot = (await guardedCache().attempt(() => deps.hotState.agents(tenant, reporting))) ?? new Map();
    const seen = (id: string) => hot.get(id)?.lastSeen ?? 0;
    const newest = [...reporting].sort((a, b) => seen(b) - seen(a))[0] as string;
    return (await registry.get(tenant, newest)) ?? sourceGone(newest);
  }

  return {
    /** The flows the class's agents report, grouped, and which of them Beacon holds. */
    async runningFlows(principal: Principal, className: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      assertClassName(className);
      const [agents, versions] = await Promise.all([
        registry.reportedFlows(principal.tenant, className),
        classVersions(principal.tenant, className),
      ]);
      return { body: { className, agentCount: agents.length, ...runningFlows(agents, versions) } };
    },

    /**
     * Asks an agent running the flow for its debug bundle, which holds it; the adoption settles once the
     * bundle is stored (or the operation ends without one), at the sweeper's next pass or a read before it.
     */
    async adopt(principal: Principal, className: string, body: JsonObject): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      assertClassName(className);
      const { tenant } = principal;
      const flowId = asString(body.flowId);
      if (!flowId || flowId.length > MAX_FLOW_ID_LENGTH || /\s/.test(flowId))
        throw new BeaconError("invalid_request", "flowId must be a flow id agents report, without spaces");
      const held = (await classVersions(tenant, className)).find((version) =>
        heldFlowIdsOf(version).includes(flowId),
      );
      if (held)
        throw new BeaconError(
          "invalid_request",
          `The class holds flow ${flowId} already, as version ${held.hash}`,
        );
      const agent = await sourceAgent(tenant, className, flowId, asString(body.agentId));
      const operationId = deps.queue.newId(agent.agentId);
      const draft = {
        agent,
        operation: "TRANSFER",
        operand: "DEBUG",
        operationId,
        args: { target: debugBundleUrl(deps.debugBundleTargetBase, operationId) },
      };
      const [refused] = await deps.queue.refusals(
        tenant,
        [draft],
        await deps.queue.hotStateOf(tenant, [agent]),
      );
      if (refused)
        throw new BeaconError("operation_not_supported", `Agent ${agent.agentId}: ${refused.reason}`);
      const { streamError } = await deps.queue.enqueue(tenant, [draft], principal.subject);
      const now = clock.now();
      const record: AdoptionRecord = {
        tenant,
        className,
        adoptionId: operationId,
        flowId,
        agentId: agent.agentId,
        state: "requested",
        createdAt: now,
        createdBy: principal.subject,
        updatedAt: now,
      };
      await adoptions.create(record);
      return { status: 201, body: adoptionView(record), streamError };
    },

    /** The class's adoptions, newest first, as they are stored: the sweeper settles those still requested. */
    async list(principal: Principal, className: string, request: ListQuery): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      assertClassName(className);
      const page = await adoptions.list(
        principal.tenant,
        className,
        pageRequestOf(request, isValidOperationId),
      );
      return { body: pageBodyOf(page, adoptionView) };
    },

    async get(principal: Principal, className: string, adoptionId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const record = await adoptions.get(principal.tenant, className, adoptionId);
      if (!record) throw new BeaconError("not_found", "No such adoption");
      return { body: adoptionView(await settled(record)) };
    },
  };
}

const sourceGone = (agentId: string): never => {
  throw new BeaconError("not_found", `Agent ${agentId} left the registry`);
};
