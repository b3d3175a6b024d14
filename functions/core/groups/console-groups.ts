import { isClassName } from "../c2/class-name.js";
import { BeaconError } from "../errors.js";
import {
  type AgentFilters,
  type AgentReader,
  type AgentReaderDependencies,
  makeAgentReader,
} from "../fleet/agents.js";
import type { FleetRegistry } from "../fleet/ports.js";
import { isValidIdentifier } from "../identity/credentials.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { dropUndefined, type JsonObject } from "../json.js";
import type { ManifestCatalog, ManifestRecord } from "../manifests/ports.js";
import {
  decodeCursor,
  encodeCursor,
  type ListQuery,
  MAX_PAGE_SIZE,
  pageBodyOf,
  pageRequestOf,
  pageSize,
  toIso,
} from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import type { Group, GroupStore } from "./ports.js";
import {
  type Binary,
  filtersOfGroup,
  type GroupQuery,
  matchingBinaries,
  namesBinaries,
  needsHotState,
  validateGroupQuery,
} from "./query.js";

export interface GroupsDependencies {
  groups: GroupStore;
  manifests: ManifestCatalog;
  registry: FleetRegistry;
  /** The agents as the list shows them. */
  reader: AgentReader;
  clock: Clock;
}

/** What a group is given by a person: its query, and what it is for. */
export interface GroupDefinition {
  description?: string;
  query: GroupQuery;
}

const view = (group: Group) =>
  dropUndefined({
    name: group.name,
    description: group.description,
    query: group.query,
    createdAt: toIso(group.createdAt),
    updatedAt: toIso(group.updatedAt),
  });

/**
 * Groups: saved queries over the tenant's agents, whose members are those the query picks when they are read,
 * never a list kept beside the registry, so an agent joins and leaves as it registers, changes and goes, with
 * nothing evaluated on its heartbeats. Binary criteria (agent type and version, manifest, components) are
 * answered first by the tenant's manifest catalog, a few tens of binaries, into the manifest ids they hold
 * for; the rest is the registry's index query, the agent list's, filtered by those ids.
 */
export function makeGroupsApi(deps: GroupsDependencies) {
  const { groups, manifests, registry, reader, clock } = deps;

  async function find(tenant: string, name: string): Promise<Group> {
    const group = await groups.get(tenant, name);
    if (!group) throw new BeaconError("not_found", "No such group");
    return group;
  }

  /** Every binary of the tenant, with its content read only when the query names components. */
  async function binariesOf(tenant: string, query: GroupQuery): Promise<Binary[]> {
    const records: ManifestRecord[] = [];
    let after: string | undefined;
    do {
      const page = await manifests.list(tenant, { limit: MAX_PAGE_SIZE, after });
      records.push(...page.items);
      after = page.last;
    } while (after !== undefined);
    if (query.components === undefined) return records.map((record) => ({ record }));
    // The cheap criteria first: only the binaries they keep have their content read.
    const candidates = matchingBinaries(
      { ...query, components: undefined },
      records.map((record) => ({ record })),
    );
    return Promise.all(
      records
        .filter((record) => candidates.includes(record.manifestId))
        .map(async (record) => {
          const content = await manifests.read(tenant, record.manifestId);
          return { record, content: content === undefined ? undefined : (JSON.parse(content) as JsonObject) };
        }),
    );
  }

  /** The agent list's filters that pick the group's members now; undefined when no agent can be one. */
  async function membersOf(tenant: string, query: GroupQuery): Promise<AgentFilters | undefined> {
    const binaries = namesBinaries(query)
      ? matchingBinaries(query, await binariesOf(tenant, query))
      : undefined;
    return filtersOfGroup(query, binaries, clock.now());
  }

  /**
   * How many agents the filters pick: the registry's count query, unless status or last seen need the
   * cache's values, when the members are paged through as the list reads them.
   */
  async function count(tenant: string, filters: AgentFilters | undefined): Promise<number> {
    if (filters === undefined) return 0;
    if (!needsHotState(filters)) return registry.countMatching(tenant, filters);
    let counted = 0;
    let after: string | undefined;
    do {
      const page = await reader.page(tenant, { ...filters, after }, MAX_PAGE_SIZE);
      counted += page.items.length;
      after = page.next;
    } while (after !== undefined);
    return counted;
  }

  function groupOf(tenant: string, name: string, definition: GroupDefinition): Group {
    if (!isClassName(name))
      throw new BeaconError("invalid_request", `Group name "${name}" is not one a class could have`);
    validateGroupQuery(definition.query);
    const now = clock.now();
    return dropUndefined({
      tenant,
      name,
      description: definition.description,
      query: definition.query,
      createdAt: now,
      updatedAt: now,
    });
  }

  return {
    /** The tenant's groups by name; their member counts are on each group's own read, which counts them. */
    async list(principal: Principal, request: ListQuery): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const page = await groups.list(principal.tenant, pageRequestOf(request, isClassName));
      return { body: pageBodyOf(page, view) };
    },

    /** The group with its members counted now, and when. */
    async get(principal: Principal, name: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const group = await find(principal.tenant, name);
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
      return { status: 201, body: view(group) };
    },

    async put(principal: Principal, name: string, definition: GroupDefinition): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const group = groupOf(principal.tenant, name, definition);
      if (!(await groups.replace(group))) throw new BeaconError("not_found", "No such group");
      return { body: view(await find(principal.tenant, name)) };
    },

    async delete(principal: Principal, name: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const group = await find(principal.tenant, name);
      if (!(await groups.delete(principal.tenant, name))) throw new BeaconError("not_found", "No such group");
      return { body: view(group) };
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
