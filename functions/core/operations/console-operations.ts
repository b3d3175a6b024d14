import type { AgentRecord, ClassCatalog } from "../agents/ports.js";
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
import { allPagesOf, pageBodyOf, pageRequestOf } from "../paging.js";
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
import { heldChange } from "./held.js";
import { isValidOperationId } from "./ids.js";
import type { LifecycleResult } from "./lifecycle.js";
import { isFinal, isHeld, type OperationRecord } from "./model.js";
import type { OperationResultStore, OperationStore, SelectionJobStore } from "./ports.js";
import {
  makeOperationQueue,
  type OperationDraft,
  type OperationQueue,
  type OperationQueueDependencies,
  type Refusal,
} from "./queue.js";
import { RESULT_CONTENT_TYPE } from "./results.js";
import {
  AGENTS_PER_SELECTION_STEP,
  createdOperationsBody,
  draftsTaken,
  noSelection,
  type SelectedAgents,
  selectionAfter,
  skippedOf,
} from "./selection.js";
import {
  budgetSpent,
  failedJob,
  jobAfterStep,
  newSelection,
  runningJob,
  type SelectionJob,
  selectionJobView,
  selectionOperationId,
} from "./selection-jobs.js";

/** What a step queued, whom it skipped, and whether its events missed the stream. */
type StepQueued = { records: OperationRecord[]; refused: Refusal[]; streamError?: unknown };

export interface OperationsDependencies extends OperationQueueDependencies {
  /** Classes' windows, and every class of a tenant when a group's windows change. */
  catalog: Pick<ClassCatalog, "get" | "list">;
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
  /** Up to `limit` agents the console's agent list shows for these filters after `after`; `next` reads on. */
  selectAgents(tenant: string, filters: AgentFilters, limit: number, after?: string): Promise<SelectedAgents>;
  /** Selections a request left to the sweeper. */
  selectionJobs: SelectionJobStore;
  /** How long a request by selector queues operations before it leaves the rest to a selection job. */
  selectionBudgetMs: number;
}

/** Held operations a change of windows moved to a new release, or cancelled as never released. */
export interface HeldFollowed {
  moved: number;
  cancelled: number;
  streamError?: unknown;
}

/** Held operations read and decided at once when windows change. */
const HELD_PAGE_SIZE = 100;

/** What the sweeper's run of the selection jobs did. */
export interface SelectionSweepOutcome {
  steps: number;
  done: number;
  failed: number;
  /** Jobs left running for the next run: the run reached its bound or deadline. */
  deferred: number;
  errors: { tenant: string; selectionId: string; error: unknown }[];
  streamError?: unknown;
}

/** The console's operations: the reads a request's drafts need (drafts.ts decides), and the writes. */
export function makeOperationsApi(deps: OperationsDependencies) {
  const { operations, lifecycle, registry, flows, assets, resourceSets, selectionJobs } = deps;
  const queue: OperationQueue = makeOperationQueue(deps);
  const context: DraftContext = {
    agentApiUrl: deps.agentApiUrl,
    debugBundleTargetBase: deps.debugBundleTargetBase,
    newOperationId: queue.newId,
  };
  /** A selection's drafts: the SYNC RESOURCE an operation waits for has an id of the selection's too. */
  const selectionContext = (selectionId: string): DraftContext => ({
    ...context,
    newOperationId: (agentId) => selectionOperationId(selectionId, agentId, true),
  });

  async function agentOf(tenant: string, agentId: string): Promise<AgentRecord> {
    const record = await registry.get(tenant, agentId);
    if (!record) throw new BeaconError("not_found", "No such agent");
    return record;
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

  /** One page of held operations moved to their agents' windows now, or cancelled; counted in `followed`. */
  async function followPage(tenant: string, page: OperationRecord[], followed: HeldFollowed) {
    const now = deps.clock.now();
    const held = page.filter((record) => record.state === "queued" && isHeld(record, now));
    if (held.length === 0) return;
    const agents = await registry.getMany(tenant, [...new Set(held.map((record) => record.agentId))]);
    const closed = await closedWindowsOf(tenant, agents);
    const known = new Set(agents.map((agent) => agent.agentId));
    for (const record of held.filter((candidate) => known.has(candidate.agentId))) {
      const change = heldChange(record, closed.get(record.agentId), now);
      if (change === undefined) continue;
      if ("cancel" in change) {
        const result = await lifecycle.cancel(record, change.cancel);
        followed.streamError ??= await publish(result);
        if (result.cancelled) followed.cancelled++;
      } else {
        // Not a move of the state machine: only its release changes, and only while it is still queued.
        const release = { state: "queued" as const, notBefore: change.notBefore, dueAt: change.notBefore };
        if (await operations.transition(record, "queued", release)) followed.moved++;
      }
    }
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
    context: DraftContext,
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
    context: DraftContext,
  ): Promise<OperationDraft[]> {
    const name = nameOf(kind);
    if (name === UPDATE_CONFIGURATION) return updateConfiguration(tenant, request, read, context);
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

  /**
   * Drafts, checks and queues the operations of these agents. Agents that cannot take theirs, or are outside
   * their class's windows when the request refuses those, fail the whole step (`refuse`) or are skipped. A
   * selection's operations have its ids, and one a former run of the step made is kept as done.
   */
  async function queueStep(
    principal: Pick<Principal, "tenant" | "subject">,
    request: OperationRequest,
    kind: OperationKind,
    agents: AgentRecord[],
    refusals: "refuse" | "skip",
    selectionId?: string,
  ): Promise<StepQueued> {
    const { tenant } = principal;
    if (agents.length === 0) return { records: [], refused: [] };
    const hot = await queue.hotStateOf(tenant, agents);
    const drafted = await draftsFor(
      tenant,
      request,
      kind,
      { agents, hot },
      selectionId === undefined ? context : selectionContext(selectionId),
    );
    // Every agent must be able to take its operation: the Java agent drops a whole reply it cannot parse.
    const unable = await queue.refusals(tenant, drafted, hot);
    if (unable.length > 0 && refusals === "refuse") throw refusedError(unable);
    if (request.agentId !== undefined && request.dependsOn)
      await assertDependencies(tenant, request.agentId, request.dependsOn);
    const windowed = outsideWindows(
      draftsTaken(drafted, unable),
      await closedWindowsOf(tenant, agents),
      request.outsideWindow ?? "wait",
    );
    // A request's agents are of one class (one agent, or a selector within a class): all refused, or none.
    if (windowed.refused.length > 0 && refusals === "refuse") throw outsideWindowError(windowed.refused);
    const refused = [...unable, ...windowed.refused];
    const taken = draftsTaken(windowed.drafts, refused);
    if (taken.length === 0) return { records: [], refused };
    const ids =
      selectionId === undefined
        ? {}
        : {
            idOf: (agentId: string) => selectionOperationId(selectionId, agentId),
            existing: "keep" as const,
          };
    return { ...(await queue.enqueue(tenant, taken, principal.subject, ids)), refused };
  }

  /** Reads the selection's next step after `after`, and queues its operations. */
  async function selectionStep(
    principal: Pick<Principal, "tenant" | "subject">,
    request: SelectionJob["request"],
    kind: OperationKind,
    selectionId: string,
    after: string | undefined,
  ): Promise<{ queued: StepQueued; next?: string }> {
    const { tenant } = principal;
    const step = await deps.selectAgents(tenant, request.selector, AGENTS_PER_SELECTION_STEP, after);
    if (after === undefined && step.items.length === 0)
      throw new BeaconError("invalid_request", "The selector matches no agent");
    const agents = await registry.getMany(
      tenant,
      step.items.map((agent) => agent.agentId),
    );
    // The first step is all or nothing, as a request for one agent; later ones skip who cannot take it.
    const refusals = after === undefined ? "refuse" : "skip";
    const queued = await queueStep(principal, request, kind, agents, refusals, selectionId);
    return { queued, next: step.next };
  }

  /**
   * The job's next step, written from the cursor it read on after; a step refused for good (its flow version
   * gone, say) fails the job, any other error leaves it for the next run.
   */
  async function continueSelection(
    job: SelectionJob & { cursor: string },
  ): Promise<{ job: SelectionJob; streamError?: unknown }> {
    const principal = { tenant: job.tenant, subject: job.createdBy };
    try {
      const { queued, next } = await selectionStep(
        principal,
        job.request,
        kindOf(job.request),
        job.selectionId,
        job.cursor,
      );
      const step = { created: queued.records.length, skipped: skippedOf(queued.refused) };
      const stepped = jobAfterStep(job, step, next, deps.clock.now());
      const advanced = await selectionJobs.advance(stepped, job.cursor);
      return { job: advanced ? stepped : job, streamError: queued.streamError };
    } catch (error) {
      if (!(error instanceof BeaconError) || error.code === "cache_unavailable") throw error;
      const failed = failedJob(job, error.message, deps.clock.now());
      return { job: (await selectionJobs.advance(failed, job.cursor)) ? failed : job };
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
      if (request.agentId !== undefined) {
        const agent = await agentOf(tenant, request.agentId);
        const { records, streamError } = await queueStep(principal, request, kind, [agent], "refuse");
        return { status: 201, body: { items: records.map(operationView) }, streamError };
      }
      const selected = { ...request, selector: request.selector };
      const selection = newSelection(deps.clock.now(), deps.ids);
      let progress = noSelection;
      let after: string | undefined;
      do {
        const { queued, next } = await selectionStep(principal, selected, kind, selection.selectionId, after);
        progress = selectionAfter(progress, queued);
        after = next;
        const now = deps.clock.now();
        if (after !== undefined && budgetSpent(selection.createdAt, now, deps.selectionBudgetMs)) {
          const job = runningJob(selection, tenant, selected, principal.subject, progress, after, now);
          await selectionJobs.create(job);
          return { status: 202, body: selectionJobView(job), streamError: progress.streamError };
        }
      } while (after !== undefined);
      return { status: 201, body: createdOperationsBody(progress), streamError: progress.streamError };
    },

    /** A selection job: how far it got, and what it skipped. */
    async selection(principal: Principal, selectionId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const job = await selectionJobs.get(principal.tenant, selectionId);
      if (!job) throw new BeaconError("not_found", "No such selection");
      return { body: selectionJobView(job) };
    },

    /**
     * Continues every running selection job a step at a time, at most `maxSteps` steps in all; no step starts
     * at or after `deadline` (ms). What is left waits for the next run.
     */
    async continueSelections(deadline: number, maxSteps: number): Promise<SelectionSweepOutcome> {
      const outcome: SelectionSweepOutcome = { steps: 0, done: 0, failed: 0, deferred: 0, errors: [] };
      for await (const { tenant, selectionId } of selectionJobs.running()) {
        let job = await selectionJobs.get(tenant, selectionId);
        try {
          while (job?.state === "running" && job.cursor !== undefined) {
            if (outcome.steps >= maxSteps || deps.clock.now() >= deadline) {
              outcome.deferred++;
              break;
            }
            outcome.steps++;
            const stepped = await continueSelection({ ...job, cursor: job.cursor });
            outcome.streamError ??= stepped.streamError;
            // Another run wrote this step first: that run goes on with the job.
            if (stepped.job === job) break;
            job = stepped.job;
          }
        } catch (error) {
          outcome.errors.push({ tenant, selectionId, error });
        }
        if (job?.state === "done") outcome.done++;
        if (job?.state === "failed") outcome.failed++;
      }
      return outcome;
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

    /**
     * Makes the operations held for the windows of the class's agents (of every class's without one) follow
     * a change of windows, a page at a time, each decided from its agent's windows now (held.ts).
     */
    async followWindows(tenant: string, agentClass?: string): Promise<HeldFollowed> {
      const followed: HeldFollowed = { moved: 0, cancelled: 0 };
      const classes =
        agentClass === undefined
          ? (await allPagesOf((page) => deps.catalog.list(tenant, page))).map((record) => record.name)
          : [agentClass];
      for (const className of classes) {
        let after: string | undefined;
        do {
          const page = await operations.held(tenant, className, { limit: HELD_PAGE_SIZE, after });
          await followPage(tenant, page.items, followed);
          after = page.last;
        } while (after !== undefined);
      }
      return followed;
    },
  };
}
