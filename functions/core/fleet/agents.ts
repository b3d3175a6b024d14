import type { LabelRequirement } from "../agents/labels.js";
import type { AgentClassRecord, AgentPin, AgentRecord, ClassCatalog } from "../agents/ports.js";
import { type AgentStatus, type LastSeenSource, statusOf, statusRuleOf } from "../agents/status.js";
import { BeaconError } from "../errors.js";
import { type GuardedCache, guardedCache } from "../guarded-cache.js";
import { dropUndefined } from "../json.js";
import { currentManifest } from "../manifests/agent-manifest.js";
import { MAX_PAGE_SIZE, toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { FleetHotState, FleetRegistry, HotAgentState } from "./ports.js";
export interface AgentReaderDependencies {
  registry: FleetRegistry;
  catalog: ClassCatalog;
  hotState: FleetHotState;
  clock: Clock;
  registryLagMs: number;
}

/** Which agents the list shows. */
export interface AgentFilters {
  agentClass?: string;
  status?: AgentStatus;
  /** The hash the agent reports (its own). */
  manifestHash?: string;
  /** The binary the agent runs: its manifest's canonical identity. */
  manifestId?: string;
  flowId?: string;
  /** Epoch ms, inclusive. */
  lastSeenAfter?: number;
  /** Epoch ms, exclusive. */
  lastSeenBefore?: number;
  text?: string;
  /** Every one met by the agent's labels. */
  labels?: readonly LabelRequirement[];
  /** Only agents pinned to a flow version (true), or only those not pinned (false). */
  pinned?: boolean;
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

/** An agent as the list shows it. */
export type AgentSummary = ReturnType<typeof summaryOf>;

/** One page of the list: `next` is the agent id to read on after, absent when the list ended. */
export interface AgentPage {
  items: AgentSummary[];
  next?: string;
  cacheError?: unknown;
}

const matches = (agent: MergedAgent, filters: AgentFilters) =>
  (filters.status === undefined || agent.status === filters.status) &&
  (filters.lastSeenAfter === undefined || agent.lastSeen >= filters.lastSeenAfter) &&
  (filters.lastSeenBefore === undefined || agent.lastSeen < filters.lastSeenBefore) &&
  (filters.pinned === undefined || (agent.record.pin !== undefined) === filters.pinned);

/**
 * A tenant's agents as the console shows them: the registry's entries with the cache's fresher values,
 * each with its status by its class's heartbeat interval. The agent list, the flow validation and the
 * operations sent to a selection all read agents through it.
 */
export function makeAgentReader(deps: AgentReaderDependencies) {
  const { registry, catalog, hotState, clock, registryLagMs } = deps;

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
    return records.map((record) => {
      const state = hot?.get(record.agentId);
      const agentClass = state?.agentClass ?? record.agentClass;
      const lastSeenFrom: LastSeenSource = state?.lastSeen === undefined ? "registry" : "cache";
      const lastSeen = Math.max(record.lastSeen, state?.lastSeen ?? 0);
      const rule = statusRuleOf(classes.get(agentClass), registryLagMs);
      return {
        record,
        hot: state,
        agentClass,
        lastSeen,
        lastSeenFrom,
        status: statusOf(lastSeen, now, rule, lastSeenFrom),
      };
    });
  }

  /** Up to `limit` agents that match, in agent id order after `after`. */
  async function page(
    tenant: string,
    request: AgentFilters & { after?: string; descending?: boolean },
    limit: number,
  ): Promise<AgentPage> {
    const filtered =
      request.status !== undefined ||
      request.lastSeenAfter !== undefined ||
      request.lastSeenBefore !== undefined ||
      request.manifestHash !== undefined ||
      request.manifestId !== undefined ||
      request.flowId !== undefined ||
      request.text !== undefined ||
      request.pinned !== undefined ||
      (request.labels?.length ?? 0) > 0;
    const cache = guardedCache();
    const items: AgentSummary[] = [];
    let after = request.after;
    let more = true;
    for (let pages = 0; more && items.length < limit && pages < MAX_QUERY_PAGES; pages++) {
      const queried = await registry.query(tenant, {
        agentClass: request.agentClass,
        manifestHash: request.manifestHash,
        manifestId: request.manifestId,
        flowId: request.flowId,
        text: request.text,
        labels: request.labels,
        descending: request.descending,
        after,
        limit: filtered ? FILTERED_QUERY_LIMIT : limit,
      });
      more = queried.last !== undefined;
      after = queried.last;
      for (const agent of await merge(tenant, queried.items, cache)) {
        if (!matches(agent, request)) continue;
        items.push(summaryOf(agent));
        if (items.length === limit) {
          // Stopped inside the page: continue after this agent, whether or not the page had more.
          after = agent.record.agentId;
          more = more || agent.record !== queried.items.at(-1);
          break;
        }
      }
    }
    return { items, next: more ? after : undefined, cacheError: cache.error };
  }

  return {
    page,

    /** The agents the list shows for these filters, reading on until `limit` or the end. */
    async select(tenant: string, filters: AgentFilters, limit: number): Promise<AgentSummary[]> {
      const selected: AgentSummary[] = [];
      let after: string | undefined;
      do {
        const next = await page(tenant, { ...filters, after }, MAX_PAGE_SIZE);
        selected.push(...next.items);
        after = next.next;
      } while (after !== undefined && selected.length < limit);
      return selected.slice(0, limit);
    },

    merge,

    async find(tenant: string, agentId: string): Promise<AgentRecord> {
      const record = await registry.get(tenant, agentId);
      if (!record) throw new BeaconError("not_found", "No such agent");
      return record;
    },
  };
}

export type AgentReader = ReturnType<typeof makeAgentReader>;
