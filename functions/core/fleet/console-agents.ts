import {
  changesNothing,
  type LabelChange,
  labelsAfter,
  tooManyLabels,
  validateLabelChange,
} from "../agents/labels.js";
import { supportedOperationEntriesOf } from "../c2/manifest.js";
import { BeaconError } from "../errors.js";
import type { FlowCatalog } from "../flows/ports.js";
import { flowVersionNames } from "../flows/version-names.js";
import { type GuardedCache, guardedCache } from "../guarded-cache.js";
import { isValidIdentifier } from "../identity/credentials.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { dropUndefined } from "../json.js";
import { namedBinaries } from "../manifests/named-binaries.js";
import type { ManifestCatalog } from "../manifests/ports.js";
import { decodeCursor, encodeCursor, MAX_PAGE_SIZE, pageSize, toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import {
  type AgentFilters,
  type AgentListRequest,
  type AgentReader,
  type AgentSummary,
  type MergedAgent,
  manifestOfAgent,
  summaryOf,
} from "./agents.js";
import { isAttentionCursor } from "./attention-pages.js";
import type { FleetHotState, FleetRegistry } from "./ports.js";

export interface AgentsDependencies {
  registry: FleetRegistry;
  hotState: FleetHotState;
  clock: Clock;
  /** The agents as the list shows them. */
  reader: AgentReader;
  /** Where the names of agents' flow versions and binaries are read. */
  flows: Pick<FlowCatalog, "get">;
  manifests: Pick<ManifestCatalog, "get">;
  /** Tells agents whose labels changed their parameter values anew: a group's values follow its members. */
  labelsChanged(tenant: string, agentIds: readonly string[]): Promise<void>;
  /** Revokes every agent certificate of the agent; returns the serials it revoked. */
  revokeAgentCertificates(tenant: string, agentId: string, cache: GuardedCache): Promise<string[]>;
  /** The agent's agent certificates not revoked, soonest to expire first. */
  agentCertificateExpiry(
    tenant: string,
    agentId: string,
  ): Promise<{ serial: string; notAfter: string; state: string }[]>;
}

/** Labels changed on every agent a selector picks, as the agent list would. */
export interface SelectedLabelChange extends LabelChange {
  selector: AgentFilters;
}

/** Agents a bulk change names by id among those it could not label; the rest are counted. */
const LISTED_REFUSALS = 100;

export function makeAgentsApi(deps: AgentsDependencies) {
  const { registry, hotState, clock, reader } = deps;

  /**
   * The agents with the names of their flow versions and binaries, each distinct version and binary read
   * once: a page costs a read per version and binary it shows (a few), not per agent.
   */
  async function named<Agent extends AgentSummary>(tenant: string, agents: readonly Agent[]) {
    const flowOf = (agent: Agent) => ({ className: agent.agentClass, flow: agent.flowId ?? "" });
    const [versionName, binaries] = await Promise.all([
      flowVersionNames(deps.flows, tenant, agents.map(flowOf)),
      namedBinaries(
        deps.manifests,
        tenant,
        agents.flatMap(({ manifestId }) => (manifestId === undefined ? [] : [manifestId])),
      ),
    ]);
    return agents.map((agent) => {
      const binary = agent.manifestId === undefined ? undefined : binaries.get(agent.manifestId);
      return dropUndefined({
        ...agent,
        flowVersion: versionName(flowOf(agent)),
        binaryName: binary?.name,
        agentType: binary?.agentType,
        agentVersion: binary?.version,
      });
    });
  }

  return {
    async list(principal: Principal, request: AgentListRequest): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const limit = pageSize(request.limit);
      // The attention list pages by its indexes' order, its cursor saying where (attention-pages.ts).
      const after = decodeCursor(
        request.cursor,
        request.attention === undefined ? isValidIdentifier : isAttentionCursor,
      );
      const page = await reader.page(
        principal.tenant,
        { ...request, after, descending: request.sort === "-agentId" },
        limit,
      );
      return {
        body: dropUndefined({
          items: await named(principal.tenant, page.items),
          nextCursor: page.next === undefined ? undefined : encodeCursor(page.next),
        }),
        cacheError: page.cacheError,
      };
    },

    async get(principal: Principal, agentId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const cache = guardedCache();
      const [agent] = await reader.merge(
        principal.tenant,
        [await reader.find(principal.tenant, agentId)],
        cache,
      );
      const { record, hot } = agent as MergedAgent;
      const manifest = manifestOfAgent(agent as MergedAgent);
      const certificates = await deps.agentCertificateExpiry(principal.tenant, agentId);
      const loadSamples = await cache.attempt(() => hotState.loadSamples(principal.tenant, agentId));
      const [summary] = await named(principal.tenant, [summaryOf(agent as MergedAgent)]);
      return {
        body: dropUndefined({
          ...summary,
          supportedOperations: manifest && supportedOperationEntriesOf(manifest.supportedOperations),
          firstSeen: toIso(record.firstSeen),
          device: hot?.device ?? record.device,
          statusSummary: hot?.status,
          repositories: hot?.repositories,
          queues: hot?.queues,
          bulletins: hot?.bulletins,
          processors: hot?.processors,
          resourceHash: hot?.resourceHash,
          system: hot?.system,
          configurationChecksums: hot?.configurationChecksums,
          loadSamples: loadSamples?.map(({ at, ...figures }) => ({ at: toIso(at), ...figures })),
          certificates,
        }),
        cacheError: cache.error,
      };
    },

    async label(principal: Principal, agentId: string, change: LabelChange): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      validateLabelChange(change);
      const record = await reader.find(principal.tenant, agentId);
      const labels = labelsAfter(record.labels, change);
      if (labels === undefined) throw tooManyLabels();
      if (
        !changesNothing(record.labels, labels) &&
        !(await registry.putLabels(principal.tenant, agentId, labels))
      )
        throw new BeaconError("not_found", "No such agent");
      if (!changesNothing(record.labels, labels)) await deps.labelsChanged(principal.tenant, [agentId]);
      return { body: { agentId, labels } };
    },

    /**
     * Pages through every agent the selector picks, with no cap, labelling a page's agents at once. An agent
     * the change would take past the labels it may have is left as it is and counted as refused.
     */
    async labelSelected(principal: Principal, request: SelectedLabelChange): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      validateLabelChange(request);
      const { tenant } = principal;
      const counts = { matched: 0, changed: 0, refused: 0 };
      const refusedAgents: string[] = [];
      let after: string | undefined;
      do {
        const page = await reader.page(tenant, { ...request.selector, after }, MAX_PAGE_SIZE);
        counts.matched += page.items.length;
        const outcomes = await Promise.all(
          page.items.map(async ({ agentId, labels: before }) => {
            const labels = labelsAfter(before, request);
            if (labels === undefined) return { agentId, outcome: "refused" as const };
            if (changesNothing(before, labels)) return { agentId, outcome: "unchanged" as const };
            // An agent decommissioned since the page was read is no longer there to label.
            return {
              agentId,
              outcome: (await registry.putLabels(tenant, agentId, labels)) ? "changed" : "gone",
            };
          }),
        );
        await deps.labelsChanged(
          tenant,
          outcomes.filter(({ outcome }) => outcome === "changed").map(({ agentId }) => agentId),
        );
        for (const { agentId, outcome } of outcomes) {
          if (outcome === "changed") counts.changed++;
          if (outcome !== "refused") continue;
          counts.refused++;
          if (refusedAgents.length < LISTED_REFUSALS) refusedAgents.push(agentId);
        }
        after = page.next;
      } while (after !== undefined);
      return { body: { ...counts, refusedAgents } };
    },

    /**
     * Forgets the agent: its agent certificates are revoked, its hot state removed, its registry entry kept
     * as decommissioned, out of every read and list, as the sweeper's clean-up does. An agent still running
     * with a fleet certificate registers again at its next heartbeat.
     */
    async decommission(principal: Principal, agentId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const record = await reader.find(tenant, agentId);
      const cache = guardedCache();
      const revoked = await deps.revokeAgentCertificates(tenant, agentId, cache);
      const hot = (await cache.attempt(() => hotState.agents(tenant, [agentId])))?.get(agentId);
      const at = clock.now();
      const lastSeen = Math.max(record.lastSeen, hot?.lastSeen ?? 0);
      await registry.decommission(tenant, agentId, { at, reason: "console", lastSeen });
      const classes = [...new Set([record.agentClass, hot?.agentClass ?? record.agentClass])];
      await cache.attempt(() => hotState.forgetAgent(tenant, agentId, classes));
      return {
        body: { agentId, decommissionedAt: toIso(at), revokedCertificates: revoked },
        cacheError: cache.error,
      };
    },
  };
}
