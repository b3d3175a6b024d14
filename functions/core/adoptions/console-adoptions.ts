import type { ClassCatalog } from "../agents/ports.js";
import type { DebugBundleContent, DebugBundleStore } from "../bundles/ports.js";
import { assertClassName } from "../c2/class-name.js";
import { debugBundleUrl } from "../c2/routes.js";
import { BeaconError } from "../errors.js";
import type { FleetHotState, FleetRegistry } from "../fleet/ports.js";
import { readFlowDocument } from "../flows/document.js";
import { flowIdsOf } from "../flows/policy.js";
import type { FlowCatalog, FlowVersionRecord } from "../flows/ports.js";
import { guardedCache } from "../guarded-cache.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { asString, dropUndefined, type JsonObject } from "../json.js";
import { isFinal } from "../operations/model.js";
import type { OperationStore } from "../operations/ports.js";
import type { OperationQueue } from "../operations/queue.js";
import { toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { closingOf, policyOf, timingOf } from "../rollouts/decisions.js";
import { periodOf } from "../rollouts/engine.js";
import { flowInBundle } from "./bundle-flow.js";
import type { AdoptionRecord } from "./model.js";
import type { AdoptionStore } from "./ports.js";
import { runningFlows } from "./running-flows.js";

/** Longest flow id taken: the incumbent's are UUIDs, Beacon's 64 hex digits. */
const MAX_FLOW_ID_LENGTH = 256;
/** Agents reporting the flow whose last heartbeat is compared to pick the one to fetch it from. */
const CANDIDATE_AGENTS = 20;
/** Versions of a class read per page when telling which running flows Beacon holds. */
const VERSION_PAGE = 100;
/** How much a bundle may inflate to while its flow is looked for: its logs are counted, never kept. */
const MAX_BUNDLE_TAR_BYTES = 512 * 1024 * 1024;

export interface AdoptionsDependencies {
  adoptions: AdoptionStore;
  catalog: Pick<ClassCatalog, "get">;
  registry: Pick<FleetRegistry, "get" | "reportedFlows">;
  hotState: Pick<FleetHotState, "agents" | "rememberClassFlow">;
  flows: FlowCatalog;
  operations: Pick<OperationStore, "get">;
  queue: OperationQueue;
  debugBundles: DebugBundleStore;
  debugBundleContent: DebugBundleContent;
  clock: Clock;
  /** Largest flow document accepted, inflated: as for a version uploaded. */
  maxFlowBytes: number;
  /** The base of TRANSFER DEBUG's upload targets: where agents reach the streaming bundle intake. */
  debugBundleTargetBase: string;
}

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

  async function classVersions(tenant: string, className: string): Promise<FlowVersionRecord[]> {
    const versions: FlowVersionRecord[] = [];
    let after: string | undefined;
    do {
      const page = await flows.list(tenant, className, { limit: VERSION_PAGE, after });
      versions.push(...page.items);
      after = page.last;
    } while (after !== undefined);
    return versions;
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

  /** Reads the flow out of the stored bundle and keeps it as a version; the settled record, or why it failed. */
  async function adoptFromBundle(record: AdoptionRecord, now: number): Promise<AdoptionRecord> {
    const { tenant, className } = record;
    const bundle = await deps.debugBundles.get(tenant, record.adoptionId);
    if (!bundle) {
      const operation = await deps.operations.get(tenant, record.agentId, record.adoptionId);
      if (operation && !isFinal(operation.state)) return record;
      const closing = operation ? closingOf(operation) : "The operation is gone";
      return failed(record, now, `The agent sent no debug bundle. ${closing}`);
    }
    if (now >= bundle.expiresAt)
      return failed(record, now, "The agent's debug bundle expired before it was read");
    try {
      const { entry, bytes } = await flowInBundle(deps.debugBundleContent.read(bundle), {
        maxFlowBytes: deps.maxFlowBytes,
        maxTarBytes: MAX_BUNDLE_TAR_BYTES,
      });
      const document = readFlowDocument(bytes, deps.maxFlowBytes);
      const { record: version } = await flows.add(
        tenant,
        { ...document, className, createdAt: now, createdBy: record.createdBy, adoptedFlowId: record.flowId },
        bytes,
      );
      if (version.adoptedFlowId !== record.flowId)
        return failed(
          record,
          now,
          `The class holds this flow already as version ${version.hash}, which agents report by that id`,
        );
      const current = await makeCurrent(tenant, className, version, now);
      return {
        ...record,
        state: "adopted",
        flowHash: version.hash,
        bundleEntry: entry,
        current,
        updatedAt: now,
      };
    } catch (error) {
      if (error instanceof BeaconError && error.code === "invalid_request")
        return failed(record, now, error.message);
      throw error;
    }
  }

  /** The version becomes the class's current one when the class has none: catch-up then moves the others. */
  async function makeCurrent(tenant: string, className: string, version: FlowVersionRecord, now: number) {
    const timing = timingOf(await deps.catalog.get(tenant, className));
    const policy = policyOf(version.hash, flowIdsOf(version), timing.ackTimeoutMs);
    if (!(await adoptions.makeCurrent(tenant, className, policy, now))) return false;
    await guardedCache().attempt(() =>
      deps.hotState.rememberClassFlow(tenant, className, policy, periodOf(timing)),
    );
    return true;
  }

  /** The adoption as it stands, settled first when its bundle arrived or its operation ended without one. */
  async function settled(record: AdoptionRecord): Promise<AdoptionRecord> {
    if (record.state !== "requested") return record;
    const next = await adoptFromBundle(record, clock.now());
    if (next === record || (await adoptions.settle(next))) return next;
    return (await adoptions.get(record.tenant, record.className, record.adoptionId)) ?? next;
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
     * Asks an agent running the flow for its debug bundle, which holds it; the adoption completes once the
     * bundle is stored and the adoption is read.
     */
    async adopt(principal: Principal, className: string, body: JsonObject): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      assertClassName(className);
      const { tenant } = principal;
      const flowId = asString(body.flowId);
      if (!flowId || flowId.length > MAX_FLOW_ID_LENGTH || /\s/.test(flowId))
        throw new BeaconError("invalid_request", "flowId must be a flow id agents report, without spaces");
      const held = (await classVersions(tenant, className)).find((version) =>
        flowIdsOf(version).includes(flowId),
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

    async get(principal: Principal, className: string, adoptionId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const record = await adoptions.get(principal.tenant, className, adoptionId);
      if (!record) throw new BeaconError("not_found", "No such adoption");
      return { body: adoptionView(await settled(record)) };
    },
  };
}

const failed = (record: AdoptionRecord, now: number, reason: string): AdoptionRecord => ({
  ...record,
  state: "failed",
  reason,
  updatedAt: now,
});

const sourceGone = (agentId: string): never => {
  throw new BeaconError("not_found", `Agent ${agentId} left the registry`);
};
