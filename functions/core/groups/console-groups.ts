import { isClassName } from "../c2/class-name.js";
import { BeaconError } from "../errors.js";
import type { FollowHeldOperations, WindowedGroup } from "../fleet/agent-windows.js";
import {
  type AgentFilters,
  type AgentReader,
  type AgentReaderDependencies,
  makeAgentReader,
} from "../fleet/agents.js";
import type { FleetRegistry } from "../fleet/ports.js";
import { isValidIdentifier } from "../identity/credentials.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { dropUndefined } from "../json.js";
import type { ManifestCatalog } from "../manifests/ports.js";
import {
  allPagesOf,
  decodeCursor,
  encodeCursor,
  type ListQuery,
  pageBodyOf,
  pageRequestOf,
  pageSize,
  toIso,
} from "../paging.js";
import type { GroupValueHolder } from "../parameters/console-parameters.js";
import type { ParameterStore } from "../parameters/ports.js";
import { type OwnValues, ownValuesOf } from "../parameters/rendered-flow-ids.js";
import type { Clock } from "../ports.js";
import { KeptFor } from "../recently-used.js";
import type { ConsoleResult } from "../result.js";
import { type MaintenanceWindow, maintenanceWindowsOf } from "../schedules/windows.js";
import { type AgentGroupValues, assertMayHoldValues, holdsValues } from "./group-values.js";
import { makeGroupMembership } from "./membership.js";
import type { Group, GroupStore } from "./ports.js";
import { type GroupQuery, needsHotState, validateGroupQuery } from "./query.js";

export interface GroupsDependencies {
  groups: GroupStore;
  manifests: ManifestCatalog;
  registry: FleetRegistry;
  /** The agents as the list shows them. */
  reader: AgentReader;
  clock: Clock;
  /** The console's: held operations follow a change of a group's windows (the sweeper changes no group). */
  followHeldOperations?: FollowHeldOperations;
  /**
   * Groups' parameter values and how an agent is told its values over its class; absent where groups are
   * only read (the sweeper's counting and targeting).
   */
  values?: {
    overClass: AgentGroupValues;
    parameters: Pick<ParameterStore, "list" | "remove">;
    tell(tenant: string, agentId: string, own: OwnValues): Promise<void>;
    /** After a change of a group holding values is written: what registering agents read is read again. */
    groupsChanged(tenant: string): Promise<void>;
  };
}

/** What a group is given by a person: its query, what it is for, and its members' settings. */
export interface GroupDefinition {
  description?: string;
  query: GroupQuery;
  requireApproval?: boolean;
  maintenanceWindows?: MaintenanceWindow[];
  parameterPriority?: number;
}

/** The range of a group's parameterPriority: plenty of room between groups, and exact in JSON. */
const PARAMETER_PRIORITY_LIMIT = 1_000_000;

/** The priority a definition gives, stored only when not the default 0; a non-integer or one out of range is refused. */
function parameterPriorityOf(priority: unknown): number | undefined {
  if (priority === undefined || priority === 0) return undefined;
  if (!Number.isInteger(priority) || Math.abs(priority as number) > PARAMETER_PRIORITY_LIMIT)
    throw new BeaconError(
      "invalid_request",
      `A group's parameterPriority is an integer from -${PARAMETER_PRIORITY_LIMIT} to ${PARAMETER_PRIORITY_LIMIT}`,
    );
  return priority as number;
}

/** How long a container serves a tenant's groups with windows before reading them again. */
export const WINDOWED_GROUPS_TTL_MS = 60_000;
/** Tenants whose groups with windows a container keeps at once. */
const WINDOWED_GROUPS_CAPACITY = 1_000;

/** A group as the console shows it, with its count by the last counting pass when there is one. */
const view = (group: Group) =>
  dropUndefined({
    name: group.name,
    description: group.description,
    query: group.query,
    requireApproval: group.requireApproval === true,
    maintenanceWindows: group.maintenanceWindows ?? [],
    parameterPriority: group.parameterPriority ?? 0,
    parameterNames: group.parameterNames ?? [],
    createdAt: toIso(group.createdAt),
    updatedAt: toIso(group.updatedAt),
    memberCount: group.memberCount,
    countedAt: toIso(group.countedAt),
  });

/**
 * Groups: saved queries over the tenant's agents, whose members are those the query picks when they are read,
 * never a list kept beside the registry, so an agent joins and leaves as it registers, changes and goes, with
 * nothing evaluated on its heartbeats (membership.ts). Their counts are the sweeper's counting pass's
 * (counting.ts), read with the groups; one group's may be counted live instead, at the cost of a read of
 * its agents' index.
 */
export function makeGroupsApi(deps: GroupsDependencies) {
  const { groups, registry, reader, clock } = deps;
  const membership = makeGroupMembership(deps.manifests);
  const windowed = new KeptFor<string, Group[]>(WINDOWED_GROUPS_CAPACITY, WINDOWED_GROUPS_TTL_MS);

  /** The tenant's groups with windows, read at most once a minute, and at once after this container changed one. */
  async function groupsWithWindows(tenant: string): Promise<Group[]> {
    const now = clock.now();
    const cached = windowed.get(tenant, now);
    if (cached) return cached;
    const found = (await allPagesOf((page) => groups.list(tenant, page))).filter(
      (group) => (group.maintenanceWindows ?? []).length > 0,
    );
    windowed.set(tenant, found, now);
    return found;
  }
  /**
   * After a change of a group: its windows, had it or has it any, are read again at once, and the operations
   * held for them follow the change. Its members may be of any class. One that held values is read again by
   * the agents registering next.
   */
  async function changed(
    tenant: string,
    ...versions: (Group | undefined)[]
  ): Promise<{ streamError?: unknown }> {
    windowed.forget(tenant);
    if (versions.some((group) => group !== undefined && holdsValues(group)))
      await deps.values?.groupsChanged(tenant);
    const windowedVersion = versions.some((group) => (group?.maintenanceWindows ?? []).length > 0);
    return windowedVersion && deps.followHeldOperations ? deps.followHeldOperations(tenant) : {};
  }

  async function find(tenant: string, name: string): Promise<Group> {
    const group = await groups.get(tenant, name);
    if (!group) throw new BeaconError("not_found", "No such group");
    return group;
  }

  /** The agent list's filters that pick the group's members now; undefined when no agent can be one. */
  const membersOf = (tenant: string, query: GroupQuery) => membership.filtersAt(tenant, query, clock.now());

  /**
   * How many agents the filters pick: the registry's count query, unless status or last seen need the
   * cache's values, when the members are paged through as the list reads them.
   */
  async function count(tenant: string, filters: AgentFilters | undefined): Promise<number> {
    if (filters === undefined) return 0;
    if (!needsHotState(filters)) return registry.countMatching(tenant, filters);
    let counted = 0;
    for await (const page of reader.pages(tenant, filters)) counted += page.items.length;
    return counted;
  }

  /**
   * Tells every agent the filters pick its values over its class anew: after a change of a group's values,
   * or of which agents a value-holding group picks or how it ranks.
   */
  async function retell(tenant: string, memberFilters: readonly (AgentFilters | undefined)[]) {
    const { values } = deps;
    if (!values) return;
    await values.overClass.retell(tenant, { reader, registry }, memberFilters, (agentId, over) =>
      values.tell(tenant, agentId, ownValuesOf(over)),
    );
  }

  function groupOf(tenant: string, name: string, definition: GroupDefinition): Group {
    if (!isClassName(name))
      throw new BeaconError("invalid_request", `Group name "${name}" is not one a class could have`);
    validateGroupQuery(definition.query);
    const windows = maintenanceWindowsOf(definition.maintenanceWindows ?? []);
    const now = clock.now();
    // Stored only when set: a group without them is as it was before groups had settings.
    return dropUndefined({
      tenant,
      name,
      description: definition.description,
      query: definition.query,
      requireApproval: definition.requireApproval === true ? true : undefined,
      maintenanceWindows: windows.length > 0 ? windows : undefined,
      parameterPriority: parameterPriorityOf(definition.parameterPriority),
      createdAt: now,
      updatedAt: now,
    });
  }

  return {
    /** The tenant's groups by name, with their counts by the last counting pass. */
    async list(principal: Principal, request: ListQuery): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const page = await groups.list(principal.tenant, pageRequestOf(request, isClassName));
      return { body: pageBodyOf(page, view) };
    },

    /** The group with its count by the last counting pass, or (`live`) its members counted now, and when. */
    async get(
      principal: Principal,
      name: string,
      counting: "pass" | "live" = "pass",
    ): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const group = await find(principal.tenant, name);
      if (counting === "pass") return { body: view(group) };
      const countedAt = clock.now();
      const memberCount = await count(principal.tenant, await membersOf(principal.tenant, group.query));
      return { body: { ...view(group), memberCount, countedAt: toIso(countedAt) } };
    },

    async create(principal: Principal, body: GroupDefinition & { name: string }): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { name, ...definition } = body;
      const group = groupOf(principal.tenant, name, definition);
      if (!(await groups.create(group)))
        throw new BeaconError("group_exists", `The tenant has a group named "${name}" already`);
      const { streamError } = await changed(principal.tenant, group);
      return { status: 201, body: view(group), streamError };
    },

    /**
     * Replaces the group's definition. One holding parameter values keeps to queries that may hold them, and
     * when its query or priority changes, its members before and after are told their values anew.
     */
    async put(principal: Principal, name: string, definition: GroupDefinition): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const group = groupOf(tenant, name, definition);
      const before = await find(tenant, name);
      const reranks =
        holdsValues(before) &&
        (JSON.stringify(before.query) !== JSON.stringify(group.query) ||
          (before.parameterPriority ?? 0) !== (group.parameterPriority ?? 0));
      if (holdsValues(before)) assertMayHoldValues(group.query);
      const membersBefore = reranks ? await membersOf(tenant, before.query) : undefined;
      if (!(await groups.replace(group))) throw new BeaconError("not_found", "No such group");
      const { streamError } = await changed(tenant, before, group);
      if (reranks) await retell(tenant, [membersBefore, await membersOf(tenant, group.query)]);
      return { body: view(await find(tenant, name)), streamError };
    },

    /** Deletes the group and the values it sets: its members are told their values without them. */
    async delete(principal: Principal, name: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const group = await find(tenant, name);
      const scope = { layer: "group", group: name } as const;
      const members = holdsValues(group) ? await membersOf(tenant, group.query) : undefined;
      const values = deps.values?.parameters;
      if (values && members)
        for (const { name: parameter } of await values.list(tenant, scope))
          await values.remove(tenant, scope, parameter);
      if (!(await groups.delete(tenant, name))) throw new BeaconError("not_found", "No such group");
      const { streamError } = await changed(tenant, group);
      if (members) await retell(tenant, [members]);
      return { body: view(group), streamError };
    },

    /** The group as the holder of its values, for the parameters API. */
    async valueHolder(tenant: string, name: string): Promise<GroupValueHolder> {
      const group = await find(tenant, name);
      const classes = group.query.classes ?? [];
      return {
        className: classes.length === 1 ? classes[0] : undefined,
        assertMayHoldValues: () => assertMayHoldValues(group.query),
        async mark(parameter, holds) {
          if (!(await groups.markParameter(tenant, name, parameter, holds)))
            throw new BeaconError("not_found", "No such group");
        },
        valuesChanged: async () => deps.values?.groupsChanged(tenant),
        tellMembers: async () => retell(tenant, [await membersOf(tenant, group.query)]),
      };
    },

    /** Tells these agents their values over their classes anew: their labels changed, and so may their groups. */
    async labelsChanged(tenant: string, agentIds: readonly string[]): Promise<void> {
      const { values } = deps;
      if (!values || agentIds.length === 0) return;
      await values.overClass.retellAgents(tenant, registry, agentIds, (agentId, over) =>
        values.tell(tenant, agentId, ownValuesOf(over)),
      );
    },

    /** One page of the group's members as the agent list shows them, in agent id order, with no cap overall. */
    async agents(principal: Principal, name: string, request: ListQuery): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const group = await find(principal.tenant, name);
      const filters = await membersOf(principal.tenant, group.query);
      if (filters === undefined) return { body: { items: [] } };
      const after = decodeCursor(request.cursor, isValidIdentifier);
      const page = await reader.page(principal.tenant, { ...filters, after }, pageSize(request.limit));
      return {
        body: dropUndefined({
          items: page.items,
          nextCursor: page.next === undefined ? undefined : encodeCursor(page.next),
        }),
        cacheError: page.cacheError,
      };
    },

    /** The agent list's filters of the named group's members now, for selectors that name a group. */
    async filtersOf(tenant: string, name: string): Promise<AgentFilters | undefined> {
      return membersOf(tenant, (await find(tenant, name)).query);
    },

    /**
     * The tenant's groups with maintenance windows and their members' filters now: what an agent's windows
     * are made of beside its class's. Another container's change of a group reaches it within a minute.
     */
    async withWindows(tenant: string): Promise<WindowedGroup[]> {
      return Promise.all(
        (await groupsWithWindows(tenant)).map(async (group) => ({
          name: group.name,
          maintenanceWindows: group.maintenanceWindows ?? [],
          members: await membersOf(tenant, group.query),
        })),
      );
    },
    /** How many agents the filters pick now, as a group's members are counted. */
    count,
  };
}

export type GroupsApi = ReturnType<typeof makeGroupsApi>;

/** The agent list's reader and the groups, each reading through the other: a selector may name a group. */
export function makeGroupReader(
  deps: Omit<GroupsDependencies, "reader"> & Omit<AgentReaderDependencies, "groupFilters">,
) {
  const reader = makeAgentReader({ ...deps, groupFilters: (tenant, name) => groups.filtersOf(tenant, name) });
  const groups = makeGroupsApi({ ...deps, reader });
  return { reader, groups };
}
