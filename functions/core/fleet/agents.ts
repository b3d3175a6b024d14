import {
  type AttentionReason,
  attentionReasonsOf,
  LISTED_ATTENTION_REASONS,
  type ListedAttentionReason,
} from "../agents/attention.js";
import { effectiveLabels, matchesLabels, parseLabelSelector } from "../agents/labels.js";
import type { AgentClassRecord, AgentPin, AgentRecord, ClassCatalog } from "../agents/ports.js";
import {
  type AgentStatus,
  type LastSeenSource,
  onlineSince,
  type StatusRule,
  statusOf,
  statusRuleOf,
} from "../agents/status.js";
import { BeaconError } from "../errors.js";
import { type GuardedCache, guardedCache } from "../guarded-cache.js";
import { dropUndefined } from "../json.js";
import { currentManifest, manifestIdOf } from "../manifests/agent-manifest.js";
import { MAX_PAGE_SIZE, toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import {
  type AttentionCursor,
  type AttentionPosition,
  attentionCursorOf,
  attentionCursorText,
} from "./attention-pages.js";
import type { FleetHotState, FleetRegistry, HotAgentState, RegistryFilters } from "./ports.js";
export interface AgentReaderDependencies {
  registry: FleetRegistry;
  /** The filters that pick a group's members now; undefined when no agent can be one. */
  groupFilters(tenant: string, group: string): Promise<AgentFilters | undefined>;
  catalog: ClassCatalog;
  hotState: FleetHotState;
  clock: Clock;
  registryLagMs: number;
}

/** Which agents the list shows: the registry's filters, and the hot values' read after it. */
export interface AgentFilters extends RegistryFilters {
  status?: AgentStatus;
  /** Epoch ms, inclusive. */
  lastSeenAfter?: number;
  /** Epoch ms, exclusive. */
  lastSeenBefore?: number;
  /** Only agents pinned to a flow version (true), or only those not pinned (false). */
  pinned?: boolean;
  /** The members of this group (AND-ed with the other filters). */
  group?: string;
  /** Only agents that need attention for this reason, or for any. */
  attention?: ListedAttentionReason | "any";
}

/**
 * A selector as the console API spells it: the agent list's query parameters of the same names (`q` for
 * the text, `labels` for `label`, times as ISO 8601), which the use cases read as the list's filters.
 */
export interface AgentSelector {
  class?: string;
  status?: AgentStatus;
  manifestHash?: string;
  manifestId?: string;
  flowId?: string;
  lastSeenAfter?: string;
  lastSeenBefore?: string;
  q?: string;
  labels?: readonly string[];
  pinned?: boolean;
  group?: string;
  attention?: ListedAttentionReason | "any";
}

const epochOf = (time: string | undefined) => (time === undefined ? undefined : Date.parse(time));

/** The list's filters a selector spells. */
export const filtersOfSelector = (selector: AgentSelector): AgentFilters => ({
  agentClass: selector.class,
  status: selector.status,
  manifestHash: selector.manifestHash,
  manifestId: selector.manifestId,
  flowId: selector.flowId,
  lastSeenAfter: epochOf(selector.lastSeenAfter),
  lastSeenBefore: epochOf(selector.lastSeenBefore),
  text: selector.q,
  labels: selector.labels === undefined ? undefined : parseLabelSelector(selector.labels),
  pinned: selector.pinned,
  group: selector.group,
  attention: selector.attention,
});

/**
 * Agents both filters pick: labels AND-ed, last-seen bounds narrowed, every other field given by both the
 * same in both; undefined when they disagree on one, and so pick no agent.
 */
export function bothFilters(a: AgentFilters, b: AgentFilters): AgentFilters | undefined {
  const { labels, lastSeenAfter, lastSeenBefore, ...rest } = a;
  const disagree = Object.entries(rest).some(([field, value]) => {
    const other = (b as Record<string, unknown>)[field];
    return value !== undefined && other !== undefined && JSON.stringify(value) !== JSON.stringify(other);
  });
  if (disagree) return undefined;
  const bound = (pick: (...times: number[]) => number, x?: number, y?: number) =>
    x === undefined ? y : y === undefined ? x : pick(x, y);
  return dropUndefined({
    ...b,
    ...dropUndefined(rest),
    labels: labels || b.labels ? [...(labels ?? []), ...(b.labels ?? [])] : undefined,
    lastSeenAfter: bound(Math.max, lastSeenAfter, b.lastSeenAfter),
    lastSeenBefore: bound(Math.min, lastSeenBefore, b.lastSeenBefore),
  });
}

export interface AgentListRequest extends AgentFilters {
  sort?: "agentId" | "-agentId";
  cursor?: string;
  limit?: number;
}

/**
 * Index pages one list request may read. Filters on hot values (status, last seen) are applied after
 * the query, so a page can come back short; the cursor then continues where the reading stopped.
 */
const MAX_QUERY_PAGES = 10;

/** Index items read per query page when filters may discard most of them. */
const FILTERED_QUERY_LIMIT = 200;

/** The registry's entry with the cache's fresher values on top. */
export interface MergedAgent {
  record: AgentRecord;
  hot: HotAgentState | undefined;
  agentClass: string;
  lastSeen: number;
  lastSeenFrom: LastSeenSource;
  status: AgentStatus;
}

/** The agent's registry entry with its hot values on top, its status at `now` by its class's rule. */
export function mergedAgent(
  record: AgentRecord,
  hot: HotAgentState | undefined,
  ruleOf: (agentClass: string) => StatusRule,
  now: number,
): MergedAgent {
  const agentClass = hot?.agentClass ?? record.agentClass;
  const lastSeenFrom: LastSeenSource = hot?.lastSeen === undefined ? "registry" : "cache";
  const lastSeen = Math.max(record.lastSeen, hot?.lastSeen ?? 0);
  return {
    record,
    hot,
    agentClass,
    lastSeen,
    lastSeenFrom,
    status: statusOf(lastSeen, now, ruleOf(agentClass), lastSeenFrom),
  };
}

/** The agent's manifest, when Beacon knows the one of the hash the agent reports now. */
export const manifestOfAgent = ({ record, hot }: MergedAgent) =>
  currentManifest(record.manifest, hot?.manifestHash ?? record.manifestHash);

/** A pin as the console shows it, wherever it shows the agent's flow. */
export const pinView = (pin: AgentPin) => ({
  flowHash: pin.flowHash,
  pinnedAt: toIso(pin.pinnedAt) as string,
  pinnedBy: pin.pinnedBy,
});

export const summaryOf = (agent: MergedAgent) => {
  const { record, hot, agentClass, lastSeen, lastSeenFrom, status } = agent;
  return dropUndefined({
    agentId: record.agentId,
    agentClass,
    status,
    lastSeen: toIso(lastSeen) as string,
    lastSeenFrom,
    manifestHash: hot?.manifestHash ?? record.manifestHash,
    manifestId: manifestOfAgent(agent)?.manifestId,
    flowId: hot?.flowId ?? record.flowId,
    hostname: (hot?.device ?? record.device)?.hostname,
    runStatus: hot?.runStatus,
    labels: record.labels,
    // Absent rather than empty, as operators' labels are: a class without sources reads none.
    reportedLabels:
      record.reportedLabels && Object.keys(record.reportedLabels).length > 0
        ? record.reportedLabels
        : undefined,
    pinnedFlow: record.pin && pinView(record.pin),
  });
};

/** An agent as the list shows it, with why it needs attention where the cache could tell. */
export type AgentSummary = ReturnType<typeof summaryOf> & { attention?: AttentionReason[] };

/** One page of the list: `next` is the agent id to read on after, absent when the list ended. */
export interface AgentPage {
  items: AgentSummary[];
  next?: string;
  cacheError?: unknown;
}

/** The filters of the request that the registry evaluates, those given. */
export function registryFiltersOf(request: AgentFilters): RegistryFilters {
  return dropUndefined({
    agentClass: request.agentClass,
    agentClasses: request.agentClasses,
    manifestHash: request.manifestHash,
    manifestId: request.manifestId,
    manifestIds: request.manifestIds,
    flowId: request.flowId,
    text: request.text,
    labels: request.labels?.length ? request.labels : undefined,
    operatingSystem: request.operatingSystem,
    machineArch: request.machineArch,
  });
}

/** Whether the registry's filters pick the record, as the table's index query and filter expression do. */
export function meetsRegistryFilters(record: AgentRecord, filters: RegistryFilters): boolean {
  const { text } = filters;
  return (
    (filters.agentClass === undefined || record.agentClass === filters.agentClass) &&
    (filters.agentClasses === undefined || filters.agentClasses.includes(record.agentClass)) &&
    (filters.manifestHash === undefined || record.manifestHash === filters.manifestHash) &&
    (filters.manifestId === undefined || manifestIdOf(record) === filters.manifestId) &&
    (filters.manifestIds === undefined || filters.manifestIds.includes(manifestIdOf(record) ?? "")) &&
    (filters.flowId === undefined || record.flowId === filters.flowId) &&
    (text === undefined || record.agentId.includes(text) || (record.device?.hostname ?? "").includes(text)) &&
    (filters.operatingSystem === undefined || record.device?.operatingSystem === filters.operatingSystem) &&
    (filters.machineArch === undefined || record.device?.machineArch === filters.machineArch) &&
    matchesLabels(effectiveLabels(record), filters.labels ?? [])
  );
}

/** The filters on the cache's values (status, last seen) and the pin, which the registry's query cannot apply. */
export const meetsHotFilters = (agent: MergedAgent, filters: AgentFilters) =>
  (filters.status === undefined || agent.status === filters.status) &&
  (filters.lastSeenAfter === undefined || agent.lastSeen >= filters.lastSeenAfter) &&
  (filters.lastSeenBefore === undefined || agent.lastSeen < filters.lastSeenBefore) &&
  (filters.pinned === undefined || (agent.record.pin !== undefined) === filters.pinned);

/** Whether the filters, but a group's, pick the merged agent: its registry entry's and its hot values'. */
export const matchesAgentFilters = (agent: MergedAgent, filters: AgentFilters): boolean =>
  meetsRegistryFilters(agent.record, filters) && meetsHotFilters(agent, filters);

/** The first of an agent's reasons the list reads, in its reasons' order. */
const firstListedReason = (held: AttentionReason[] | undefined, reasons: readonly ListedAttentionReason[]) =>
  held?.find((one) => reasons.includes(one as ListedAttentionReason));

/**
 * A tenant's agents as the console shows them: the registry's entries with the cache's fresher values,
 * each with its status by its class's heartbeat interval. The agent list, the flow validation and the
 * operations sent to a selection all read agents through it.
 */
export function makeAgentReader(deps: AgentReaderDependencies) {
  const { registry, catalog, hotState, clock, registryLagMs, groupFilters } = deps;

  /** Merges hot state into registry records, deriving each agent's status from its class's interval. */
  async function merge(tenant: string, records: AgentRecord[], cache: GuardedCache): Promise<MergedAgent[]> {
    if (records.length === 0) return [];
    const now = clock.now();
    const hot = await cache.attempt(() =>
      hotState.agents(
        tenant,
        records.map((record) => record.agentId),
      ),
    );
    const classNames = new Set(
      records.map((record) => hot?.get(record.agentId)?.agentClass ?? record.agentClass),
    );
    const classes = new Map<string, AgentClassRecord | undefined>(
      await Promise.all(
        [...classNames].map(async (name) => [name, await catalog.get(tenant, name)] as const),
      ),
    );
    return records.map((record) =>
      mergedAgent(
        record,
        hot?.get(record.agentId),
        (agentClass) => statusRuleOf(classes.get(agentClass), registryLagMs),
        now,
      ),
    );
  }

  /** Up to `limit` agents that match, in agent id order after `after`. */
  async function page(
    tenant: string,
    request: AgentFilters & { after?: string; descending?: boolean },
    limit: number,
  ): Promise<AgentPage> {
    if (request.group !== undefined) {
      const { group, ...filters } = request;
      const members = await groupFilters(tenant, group);
      const both = members && bothFilters(filters, members);
      return both
        ? page(tenant, { ...both, after: request.after, descending: request.descending }, limit)
        : { items: [] };
    }
    if (request.attention !== undefined) return attentionPage(tenant, request, request.attention, limit);
    const registryFilters = registryFiltersOf(request);
    const filtered =
      request.status !== undefined ||
      request.lastSeenAfter !== undefined ||
      request.lastSeenBefore !== undefined ||
      request.pinned !== undefined ||
      Object.keys(registryFilters).some((key) => key !== "agentClass");
    const cache = guardedCache();
    const items: MergedAgent[] = [];
    let after = request.after;
    let more = true;
    for (let pages = 0; more && items.length < limit && pages < MAX_QUERY_PAGES; pages++) {
      const queried = await registry.query(tenant, {
        ...registryFilters,
        descending: request.descending,
        after,
        limit: filtered ? FILTERED_QUERY_LIMIT : limit,
      });
      more = queried.last !== undefined;
      after = queried.last;
      for (const agent of await merge(tenant, queried.items, cache)) {
        if (!meetsHotFilters(agent, request)) continue;
        items.push(agent);
        if (items.length === limit) {
          // Stopped inside the page: continue after this agent, whether or not the page had more.
          after = agent.record.agentId;
          more = more || agent.record !== queried.items.at(-1);
          break;
        }
      }
    }
    const reasons = await attentionOf(tenant, items, cache);
    return { items: withAttention(items, reasons), next: more ? after : undefined, cacheError: cache.error };
  }

  /** Why each agent needs attention, by agent id: one cache round trip; none where the cache cannot tell. */
  async function attentionOf(tenant: string, agents: MergedAgent[], cache: GuardedCache) {
    const now = clock.now();
    const facts = await cache.attempt(() =>
      hotState.attentionOf(
        tenant,
        agents.map(({ record, agentClass }) => ({ agentId: record.agentId, agentClass })),
        now,
      ),
    );
    const reasons = new Map<string, AttentionReason[]>();
    if (facts === undefined) return reasons;
    for (const agent of agents) {
      const known = facts.get(agent.record.agentId) ?? {};
      reasons.set(agent.record.agentId, attentionReasonsOf({ status: agent.status, ...known }, { now }));
    }
    return reasons;
  }

  const withAttention = (agents: MergedAgent[], reasons: Map<string, AttentionReason[]>) =>
    agents.map(
      (agent): AgentSummary => ({ ...summaryOf(agent), attention: reasons.get(agent.record.agentId) }),
    );

  /** The tenant's classes a request reaches: the one or those it names, otherwise every class. */
  async function classesOf(tenant: string, request: AgentFilters): Promise<AgentClassRecord[]> {
    const names = request.agentClass !== undefined ? [request.agentClass] : request.agentClasses;
    if (names !== undefined) {
      const records = await Promise.all(names.map((name) => catalog.get(tenant, name)));
      return records.filter((record): record is AgentClassRecord => record !== undefined);
    }
    const classes: AgentClassRecord[] = [];
    let after: string | undefined;
    do {
      const page = await catalog.list(tenant, { limit: MAX_PAGE_SIZE, after });
      classes.push(...page.items);
      after = page.last;
    } while (after !== undefined);
    return classes;
  }

  /**
   * A page of the agents that need attention: the cache's indexes name them a page at a time, in (score,
   * agent id) order, and the registry reads only those. For `any`, the reasons one after another, each agent
   * listed under the first of its reasons only. `after` is the cursor the previous page's `next` carried.
   * Without the cache, no agent can be told to.
   */
  async function attentionPage(
    tenant: string,
    request: AgentFilters & { after?: string; descending?: boolean },
    reason: ListedAttentionReason | "any",
    limit: number,
  ): Promise<AgentPage> {
    const reasons = reason === "any" ? LISTED_ATTENTION_REASONS : [reason];
    let cursor: AttentionCursor | undefined = { reason: reasons[0] as ListedAttentionReason };
    if (request.after !== undefined) {
      cursor = attentionCursorOf(request.after);
      if (cursor === undefined || !reasons.includes(cursor.reason))
        throw new BeaconError("invalid_request", "The cursor is not one this list returned");
    }
    const cache = guardedCache();
    const now = clock.now();
    const classes = (await classesOf(tenant, request)).map((record) => ({
      name: record.name,
      onlineSince: onlineSince(now, statusRuleOf(record, registryLagMs), "cache"),
    }));
    const items: AgentSummary[] = [];
    for (let pages = 0; cursor !== undefined && items.length < limit && pages < MAX_QUERY_PAGES; pages++) {
      const { reason: reading, after }: AttentionCursor = cursor;
      const asked = limit - items.length;
      const positions: AttentionPosition[] | undefined = await cache.attempt(() =>
        hotState.attentionPage(tenant, classes, reading, now, {
          after,
          limit: asked,
          descending: request.descending,
        }),
      );
      if (positions === undefined) return { items: [], cacheError: cache.error };
      const ids = positions.map(({ agentId }) => agentId);
      const agents = (await merge(tenant, await registry.getMany(tenant, ids), cache))
        .filter((agent) => matchesAgentFilters(agent, request))
        .sort((a, b) => ids.indexOf(a.record.agentId) - ids.indexOf(b.record.agentId));
      const held = await attentionOf(tenant, agents, cache);
      // An agent the reason no longer holds by the time it was read is left out, as is one listed under an
      // earlier reason of `any`.
      const listed = agents.filter(
        (agent) => firstListedReason(held.get(agent.record.agentId), reasons) === reading,
      );
      items.push(...withAttention(listed, held));
      const last = positions.at(-1);
      const following: ListedAttentionReason | undefined = reasons[reasons.indexOf(reading) + 1];
      cursor =
        positions.length === asked && last !== undefined
          ? { reason: reading, after: last }
          : following === undefined
            ? undefined
            : { reason: following };
    }
    return {
      items,
      next: cursor && attentionCursorText(cursor),
      cacheError: cache.error,
    };
  }

  /**
   * Up to `limit` agents the list shows for these filters, after the agent id `after`, reading page after
   * page; `next` continues where they stop.
   */
  async function selectAfter(
    tenant: string,
    filters: AgentFilters,
    limit: number,
    after?: string,
  ): Promise<AgentPage> {
    const items: AgentSummary[] = [];
    let next = after;
    const size = () => Math.min(MAX_PAGE_SIZE, limit - items.length);
    for await (const read of pages(tenant, filters, { after, size })) {
      items.push(...read.items);
      next = read.next;
      if (items.length >= limit) break;
    }
    return { items, next };
  }

  /**
   * The pages the list shows for these filters, after the agent id `after`, one after another to the list's
   * end unless the caller stops; each asks for `size()` agents, a page's most unless told.
   */
  async function* pages(
    tenant: string,
    filters: AgentFilters,
    { after, size = () => MAX_PAGE_SIZE }: { after?: string; size?: () => number } = {},
  ): AsyncGenerator<AgentPage> {
    let next = after;
    do {
      const read = await page(tenant, { ...filters, after: next }, size());
      yield read;
      next = read.next;
    } while (next !== undefined);
  }

  return {
    page,

    /** The agents the list shows for these filters, reading on until `limit` or the end. */
    async select(tenant: string, filters: AgentFilters, limit: number): Promise<AgentSummary[]> {
      return (await selectAfter(tenant, filters, limit)).items;
    },

    selectAfter,

    pages,

    merge,

    async find(tenant: string, agentId: string): Promise<AgentRecord> {
      const record = await registry.get(tenant, agentId);
      if (!record) throw new BeaconError("not_found", "No such agent");
      return record;
    },
  };
}

export type AgentReader = ReturnType<typeof makeAgentReader>;
