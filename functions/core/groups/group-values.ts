import type { AgentRecord } from "../agents/ports.js";
import { BeaconError } from "../errors.js";
import { type AgentFilters, type AgentReader, meetsRegistryFilters } from "../fleet/agents.js";
import type { FleetRegistry } from "../fleet/ports.js";
import { allPagesOf } from "../paging.js";
import type { ParameterRecord } from "../parameters/model.js";
import {
  type GroupMemberValues,
  type GroupValues,
  type ValueOverClass,
  type ValuesOverClassHints,
  valuesOverClass,
} from "../parameters/over-class.js";
import type { ParameterStore } from "../parameters/ports.js";
import type { Clock } from "../ports.js";
import { KeptFor } from "../recently-used.js";
import type { GroupMembership } from "./membership.js";
import type { Group, GroupStore } from "./ports.js";
import type { GroupQuery } from "./query.js";

/**
 * Criteria on what agents do rather than what they are: a group selecting on them holds no values. Its
 * values would change the flow id it selects on, or change an agent's configuration because it went quiet.
 */
const BEHAVIOUR_CRITERIA = ["flowId", "status", "seenWithinMinutes", "silentForMinutes"] as const;

/** Why a group of this query may not hold parameter values; undefined when it may. */
export function valuesIneligibility(query: GroupQuery): string | undefined {
  const used = BEHAVIOUR_CRITERIA.filter((criterion) => query[criterion] !== undefined);
  if (used.length === 0) return undefined;
  return (
    `A group holding parameter values selects agents on what they are (class, labels, binary, device), not ` +
    `on what they do: its query uses ${used.join(", ")} (a flow id changes with the values themselves, and ` +
    `an agent's configuration must not change because it went quiet)`
  );
}

/** Refuses a query for a group that holds, or is about to hold, parameter values. */
export function assertMayHoldValues(query: GroupQuery): void {
  const reason = valuesIneligibility(query);
  if (reason !== undefined) throw new BeaconError("invalid_request", reason);
}

/** Whether the group sets any parameter value. */
export const holdsValues = (group: Pick<Group, "parameterNames">): boolean =>
  (group.parameterNames?.length ?? 0) > 0;

/**
 * Groups in parameter precedence, lowest first, each overriding those before it: by `parameterPriority`
 * (absent, 0), and of equal priorities by name, the one sorting last overriding.
 */
export const byParameterPrecedence = <T extends Pick<Group, "name" | "parameterPriority">>(
  groups: readonly T[],
): T[] =>
  [...groups].sort(
    (a, b) =>
      (a.parameterPriority ?? 0) - (b.parameterPriority ?? 0) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );

/**
 * How long a container's copy of a tenant's groups, or of a group's values, serves at most, however long the
 * cache's version says it holds: a change the cache was not told of (it was down) reaches registering agents
 * within it, and at once through a container that met the cache down meanwhile (ValuesOverClassHints).
 */
export const GROUPS_COPY_KEPT_MS = 60_000;
/** Tenants whose groups a container keeps a copy of at once. */
const GROUPS_COPIES_KEPT = 1_000;
/** Groups whose values a container keeps a copy of at once. */
const GROUP_VALUE_COPIES_KEPT = 5_000;

/** A container's copies of what it read at a version of the cache's groups: each read's promise, by key. */
type VersionedCopies<T> = KeptFor<string, { version: string; read: Promise<T> }>;

/**
 * `read()` at `version` (the cache's groups version, which every change of a group holding values, and of its
 * values, replaces once written): the container's copy of `key` read at that version while it serves, else a new
 * read, kept as the copy at `version`, and shared by whoever asks meanwhile. Without a version nothing is kept;
 * a read that failed is not kept, so the next caller reads again.
 */
function readAtVersion<T>(
  copies: VersionedCopies<T>,
  key: string,
  version: string | undefined,
  now: number,
  read: () => Promise<T>,
): Promise<T> {
  const copy = version === undefined ? undefined : copies.get(key, now);
  if (copy && copy.version === version) return copy.read;
  const reading = read();
  if (version !== undefined) {
    copies.set(key, { version, read: reading }, now);
    reading.catch(() => {
      if (copies.get(key, now)?.read === reading) copies.forget(key);
    });
  }
  return reading;
}

/** A group holding values, with its members' filters now; its values are read once, when first asked for. */
export interface HoldingGroup {
  name: string;
  members: AgentFilters | undefined;
  values(): Promise<ParameterRecord[]>;
}

export interface GroupValuesDependencies {
  groups: Pick<GroupStore, "list">;
  parameters: Pick<ParameterStore, "list">;
  registry: Pick<FleetRegistry, "get">;
  membership: GroupMembership;
  clock: Clock;
}

/**
 * Agents' values over their classes: the values of the groups they are members of, in precedence order, and
 * their own over them. Which groups hold values is read from the groups' records (their parameters' names),
 * one query of the tenant's groups; a group's values are read only for an agent that is one of its members,
 * and membership is its query's filters evaluated against the agent's registry entry (a value-holding
 * group selects only on what the registry knows).
 */
export function makeGroupValues(deps: GroupValuesDependencies) {
  const { groups, parameters, registry, membership, clock } = deps;
  const groupCopies: VersionedCopies<Group[]> = new KeptFor(GROUPS_COPIES_KEPT, GROUPS_COPY_KEPT_MS);
  const valueCopies: VersionedCopies<ParameterRecord[]> = new KeptFor(
    GROUP_VALUE_COPIES_KEPT,
    GROUPS_COPY_KEPT_MS,
  );

  /**
   * The tenant's groups, at `version` (the cache's, read before) from the container's copy while it serves. A
   * herd of agents registering costs one query.
   */
  const tenantGroups = (tenant: string, version: string | undefined): Promise<Group[]> =>
    readAtVersion(groupCopies, tenant, version, clock.now(), () =>
      allPagesOf((page) => groups.list(tenant, page)),
    );

  /**
   * These of the tenant's groups (`holds`: those that hold values), in precedence order; at `groupsVersion`
   * (ValuesOverClassHints) from the container's copy while it serves.
   */
  async function holdingGroups(
    tenant: string,
    holds: (group: Group) => boolean = holdsValues,
    groupsVersion?: string,
  ): Promise<HoldingGroup[]> {
    const holding = byParameterPrecedence((await tenantGroups(tenant, groupsVersion)).filter(holds));
    const now = clock.now();
    return Promise.all(
      holding.map(async (group) => {
        let values: Promise<ParameterRecord[]> | undefined;
        return {
          name: group.name,
          members: await membership.filtersAt(tenant, group.query, now),
          values: () => {
            values ??= readAtVersion(valueCopies, `${tenant}/${group.name}`, groupsVersion, now, () =>
              parameters.list(tenant, { layer: "group", group: group.name }),
            );
            return values;
          },
        };
      }),
    );
  }

  /** The values of the holding groups the agent is a member of, in precedence order. */
  function groupLayerAmong(holding: readonly HoldingGroup[], agent: AgentRecord | undefined) {
    const memberOf = holding.filter(
      ({ members }) => agent !== undefined && members !== undefined && meetsRegistryFilters(agent, members),
    );
    return Promise.all(memberOf.map(async (group) => ({ group: group.name, values: await group.values() })));
  }

  /**
   * The agent's groups' values and its own, among these holding groups: its record is read only when there
   * are any, its own values unless it was never registered.
   */
  async function layersAmong(
    holding: readonly HoldingGroup[],
    tenant: string,
    agentId: string,
    record?: AgentRecord,
    hints: ValuesOverClassHints = {},
  ): Promise<{ groupValues: GroupValues[]; own: ParameterRecord[] }> {
    const agent = holding.length === 0 ? undefined : (record ?? (await registry.get(tenant, agentId)));
    const [own, groupValues] = await Promise.all([
      hints.neverRegistered ? [] : parameters.list(tenant, { layer: "agent", agentId }),
      groupLayerAmong(holding, agent),
    ]);
    return { groupValues, own };
  }

  /** The agent's values over its class among these holding groups. */
  async function overClassAmong(
    holding: readonly HoldingGroup[],
    tenant: string,
    agentId: string,
    record?: AgentRecord,
    hints?: ValuesOverClassHints,
  ): Promise<ValueOverClass[]> {
    const { groupValues, own } = await layersAmong(holding, tenant, agentId, record, hints);
    return valuesOverClass(groupValues, own);
  }

  return {
    holdingGroups,

    /** The values of the tenant's groups that set any: one query of the groups, one of each one's values. */
    async groupValues(tenant: string): Promise<GroupValues[]> {
      const holding = await holdingGroups(tenant);
      return Promise.all(holding.map(async (group) => ({ group: group.name, values: await group.values() })));
    },

    /** One agent's values over its class: one query of the groups, then its record and member groups' values. */
    async overClass(
      tenant: string,
      agentId: string,
      record?: AgentRecord,
      hints?: ValuesOverClassHints,
    ): Promise<ValueOverClass[]> {
      if (hints?.cacheUnanswered) {
        groupCopies.forgetAll();
        valueCopies.forgetAll();
      }
      return overClassAmong(
        await holdingGroups(tenant, holdsValues, hints?.groupsVersion),
        tenant,
        agentId,
        record,
        hints,
      );
    },

    /**
     * The group layers of these agents' values over their classes, by agent id (an agent in no holding group
     * left out): one query of the groups and, when some hold values, one read of the agents' registry entries.
     */
    async groupLayersOf(
      tenant: string,
      fleet: Pick<FleetRegistry, "getMany">,
      agentIds: readonly string[],
    ): Promise<Map<string, GroupValues[]>> {
      const holding = await holdingGroups(tenant);
      const layers = new Map<string, GroupValues[]>();
      if (holding.length === 0 || agentIds.length === 0) return layers;
      for (const agent of await fleet.getMany(tenant, [...agentIds])) {
        const groupValues = await groupLayerAmong(holding, agent);
        if (groupValues.length > 0) layers.set(agent.agentId, groupValues);
      }
      return layers;
    },

    /**
     * These agents' values over their classes, by agent id: one query of the groups for them all (not one per
     * agent), then as overClass reads for each.
     */
    async overClassOfEach(
      tenant: string,
      agentIds: readonly string[],
    ): Promise<Map<string, ValueOverClass[]>> {
      const holding = await holdingGroups(tenant);
      const values = await Promise.all(agentIds.map((agentId) => overClassAmong(holding, tenant, agentId)));
      return new Map(agentIds.map((agentId, at) => [agentId, values[at] ?? []]));
    },

    /**
     * The group's first `limit` members as the agent list reads them, each with its class, its binary and its
     * values over its class laid with the group's values given in place of the group's own: what a change of
     * the group's values is checked over (readiness-check.ts). None for a group the tenant does not have.
     */
    async membersOver(
      tenant: string,
      fleet: { reader: Pick<AgentReader, "select">; registry: Pick<FleetRegistry, "getMany"> },
      groupName: string,
      limit: number,
    ): Promise<GroupMemberValues[]> {
      const holding = await holdingGroups(tenant, (group) => holdsValues(group) || group.name === groupName);
      const members = holding.find((group) => group.name === groupName)?.members;
      if (members === undefined) return [];
      const summaries = await fleet.reader.select(tenant, members, limit);
      const records = new Map(
        (
          await fleet.registry.getMany(
            tenant,
            summaries.map(({ agentId }) => agentId),
          )
        ).map((record) => [record.agentId, record]),
      );
      return Promise.all(
        summaries.map(async ({ agentId, agentClass, manifestId }) => {
          const { groupValues, own } = await layersAmong(holding, tenant, agentId, records.get(agentId));
          return {
            agentId,
            agentClass,
            manifestId,
            overClass: (values: GroupValues["values"]) =>
              valuesOverClass(
                groupValues.map((layer) =>
                  layer.group === groupName ? { group: groupName, values } : layer,
                ),
                own,
              ),
          };
        }),
      );
    },

    /** Tells these agents their values over their classes now: nothing while no group holds values. */
    async retellAgents(
      tenant: string,
      registry: Pick<FleetRegistry, "getMany">,
      agentIds: readonly string[],
      tell: (agentId: string, values: ValueOverClass[]) => Promise<void>,
    ): Promise<void> {
      const holding = await holdingGroups(tenant);
      if (holding.length === 0) return;
      for (const agent of await registry.getMany(tenant, [...agentIds]))
        await tell(agent.agentId, await overClassAmong(holding, tenant, agent.agentId, agent));
    },

    /**
     * Tells each agent the filters pick (each once, whichever filters pick it) its values over its class
     * now: its members paged through as the agent list reads them, their registry entries read a page at a
     * time, each one's own values read, and each holding group's values read once. The agents told.
     */
    async retell(
      tenant: string,
      fleet: { reader: Pick<AgentReader, "pages">; registry: Pick<FleetRegistry, "getMany"> },
      memberFilters: readonly (AgentFilters | undefined)[],
      tell: (agentId: string, values: ValueOverClass[]) => Promise<void>,
    ): Promise<number> {
      const holding = await holdingGroups(tenant);
      const told = new Set<string>();
      for (const filters of memberFilters) {
        if (filters === undefined) continue;
        for await (const page of fleet.reader.pages(tenant, filters)) {
          const fresh = page.items.map(({ agentId }) => agentId).filter((agentId) => !told.has(agentId));
          for (const agent of await fleet.registry.getMany(tenant, fresh)) {
            told.add(agent.agentId);
            await tell(agent.agentId, await overClassAmong(holding, tenant, agent.agentId, agent));
          }
        }
      }
      return told.size;
    },
  };
}

export type AgentGroupValues = ReturnType<typeof makeGroupValues>;
