import { type LabelSource, validateLabelSources } from "../agents/label-sources.js";
import type { AgentClassChange, AgentClassRecord, ClassCatalog, ValueChanges } from "../agents/ports.js";
import { heartbeatPeriodMsOf } from "../agents/presence.js";
import {
  DEFAULT_HEARTBEAT_INTERVAL_SECONDS,
  type LastSeenSource,
  onlineSince,
  statusRuleOf,
} from "../agents/status.js";
import { assertClassName, isClassName } from "../c2/class-name.js";
import { BeaconError } from "../errors.js";
import { policyInForce } from "../flows/policy.js";
import type { ClassFlowWriter, FlowCatalog } from "../flows/ports.js";
import { type FlowVersionName, flowVersionNames } from "../flows/version-names.js";
import { guardedCache } from "../guarded-cache.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { dropUndefined } from "../json.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { type MaintenanceWindow, maintenanceWindowsOf } from "../schedules/windows.js";
import type { FollowHeldOperations } from "./agent-windows.js";
import type { FleetHotState, FleetRegistry } from "./ports.js";

export interface ClassesDependencies {
  catalog: ClassCatalog;
  registry: FleetRegistry;
  hotState: FleetHotState;
  /** Where the class's policy goes, rendered, when its timing changes. */
  classFlowCache: ClassFlowWriter;
  clock: Clock;
  /** How stale the registry's last-seen times may be: the agent API's checkpoint interval. */
  registryLagMs: number;
}

export interface AgentCounts {
  total: number;
  online: number;
  offline: number;
}

export interface ClassView {
  name: string;
  description?: string;
  heartbeatIntervalSeconds: number;
  ackTimeoutSeconds?: number;
  cleanUpAfterDays?: number;
  labelSources?: LabelSource[];
  maintenanceWindows?: MaintenanceWindow[];
  /** The flow the class's agents are brought to, and the flows that count as current. */
  flow?: { target: string; accepted: string[]; targetVersion?: FlowVersionName };
  valueChanges: ValueChanges;
  requireApproval: boolean;
  activeRolloutId?: string;
  autoCreated: boolean;
  createdAt: string;
  updatedAt?: string;
  agents: AgentCounts;
}

/** Classes read for one tenant-wide answer; a tenant with more is answered over its first ones, and says so. */
const MAX_COUNTED_CLASSES = 1_000;
const CLASS_PAGE = 100;

/** The tenant's first classes, by name, up to what one answer counts, and whether there are more. */
export async function classesToCount(
  catalog: ClassCatalog,
  tenant: string,
): Promise<{ classes: AgentClassRecord[]; truncated: boolean }> {
  const classes: AgentClassRecord[] = [];
  let after: string | undefined;
  do {
    const page = await catalog.list(tenant, { limit: CLASS_PAGE, after });
    classes.push(...page.items);
    after = page.last;
  } while (after !== undefined && classes.length < MAX_COUNTED_CLASSES);
  return { classes, truncated: after !== undefined };
}

/**
 * Agents per class and status. The cache's per-class index answers in one round trip; without the
 * cache the registry's class index is counted, against its checkpointed last-seen times.
 */
export function makeClassCounter(deps: ClassesDependencies) {
  const { registry, hotState, clock, registryLagMs } = deps;
  return async function countAgents(
    tenant: string,
    classes: AgentClassRecord[],
  ): Promise<{ counts: Map<string, AgentCounts>; source: LastSeenSource; cacheError?: unknown }> {
    const now = clock.now();
    const since = (record: AgentClassRecord, source: LastSeenSource) =>
      onlineSince(now, statusRuleOf(record, registryLagMs), source);
    const cache = guardedCache();
    const cached = await cache.attempt(() =>
      hotState.classCounts(
        tenant,
        classes.map((record) => ({ name: record.name, onlineSince: since(record, "cache") })),
      ),
    );
    const counts = new Map<string, AgentCounts>();
    if (cached) {
      for (const record of classes) {
        const { total, online } = cached.get(record.name) ?? { total: 0, online: 0 };
        counts.set(record.name, { total, online, offline: total - online });
      }
      return { counts, source: "cache" };
    }
    await Promise.all(
      classes.map(async (record) => {
        const [total, online] = await Promise.all([
          registry.count(tenant, record.name),
          registry.count(tenant, record.name, since(record, "registry")),
        ]);
        counts.set(record.name, { total, online, offline: total - online });
      }),
    );
    return { counts, source: "registry", cacheError: cache.error };
  };
}

const view = (
  record: AgentClassRecord,
  agents: AgentCounts | undefined,
  targetVersion: FlowVersionName | undefined,
): ClassView =>
  dropUndefined({
    name: record.name,
    description: record.description,
    heartbeatIntervalSeconds: record.heartbeatIntervalSeconds ?? DEFAULT_HEARTBEAT_INTERVAL_SECONDS,
    ackTimeoutSeconds: record.ackTimeoutSeconds,
    cleanUpAfterDays: record.cleanUpAfterDays,
    labelSources: record.labelSources,
    maintenanceWindows: record.maintenanceWindows,
    // The policy's ack timeout is the class's own, shown above; the policy carries it for the agent API.
    flow:
      record.flowPolicy &&
      dropUndefined({
        target: record.flowPolicy.target,
        accepted: record.flowPolicy.accepted,
        targetVersion,
      }),
    valueChanges: record.valueChanges ?? "immediate",
    requireApproval: record.requireApproval === true,
    activeRolloutId: record.activeRolloutId,
    autoCreated: record.autoCreated,
    createdAt: toIso(record.createdAt) as string,
    updatedAt: toIso(record.updatedAt),
    agents: agents ?? { total: 0, online: 0, offline: 0 },
  });

export function makeClassesApi(
  deps: ClassesDependencies & {
    followHeldOperations: FollowHeldOperations;
    /** Where the names of classes' target versions are read. */
    flows: Pick<FlowCatalog, "get">;
  },
) {
  const { catalog, clock } = deps;
  const countAgents = makeClassCounter(deps);

  const targetOf = (record: AgentClassRecord) => ({
    className: record.name,
    flow: record.flowPolicy?.target ?? "",
  });

  /** Classes as the API shows them, counts and target versions' names included. */
  async function viewsOf(tenant: string, records: AgentClassRecord[]) {
    const [{ counts, source, cacheError }, targetName] = await Promise.all([
      countAgents(tenant, records),
      flowVersionNames(deps.flows, tenant, records.map(targetOf)),
    ]);
    const viewOf = (record: AgentClassRecord) =>
      view(record, counts.get(record.name), targetName(targetOf(record)));
    return { viewOf, source, cacheError };
  }

  /** One class as the API shows it, counts included. */
  async function viewOne(tenant: string, record: AgentClassRecord) {
    const { viewOf, source, cacheError } = await viewsOf(tenant, [record]);
    return { body: { ...viewOf(record), countsFrom: source }, cacheError };
  }

  return {
    async list(principal: Principal, request: { cursor?: string; limit?: number }): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const page = await catalog.list(principal.tenant, pageRequestOf(request, isClassName));
      const { viewOf, source, cacheError } = await viewsOf(principal.tenant, page.items);
      const body = pageBodyOf(page, viewOf);
      return { body: { ...body, countsFrom: source }, cacheError };
    },

    async get(principal: Principal, name: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const record = await catalog.get(principal.tenant, name);
      if (!record) throw new BeaconError("not_found", "No such agent class");
      return viewOne(principal.tenant, record);
    },

    async put(principal: Principal, name: string, change: AgentClassChange): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      assertClassName(name);
      if (change.labelSources) validateLabelSources(change.labelSources);
      const windows = change.maintenanceWindows && maintenanceWindowsOf(change.maintenanceWindows);
      const { record, created } = await catalog.put(
        principal.tenant,
        name,
        dropUndefined({ ...change, maintenanceWindows: windows }),
        clock.now(),
      );
      // Catch-up gives its operations the class's acknowledgement timeout from the cache's copy of the policy,
      // and heartbeats hold the class's agents to the heartbeat period beside it.
      const policy = record.flowPolicy;
      if ((policy && change.ackTimeoutSeconds !== undefined) || change.heartbeatIntervalSeconds !== undefined)
        await guardedCache().attempt(() =>
          deps.classFlowCache.rememberClassFlow(
            principal.tenant,
            name,
            policy && policyInForce(policy, record.ackTimeoutSeconds),
            heartbeatPeriodMsOf(record),
          ),
        );
      const followed =
        change.maintenanceWindows === undefined
          ? {}
          : await deps.followHeldOperations(principal.tenant, name);
      return {
        status: created ? 201 : 200,
        ...(await viewOne(principal.tenant, record)),
        streamError: followed.streamError,
      };
    },
  };
}
