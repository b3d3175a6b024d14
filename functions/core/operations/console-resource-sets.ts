import { syncResourceArgs } from "../assets/location.js";
import { isAssetId } from "../assets/model.js";
import type { AssetCatalog, ResourceSetStore } from "../assets/ports.js";
import {
  DIGEST_ALGORITHM,
  isResourcePath,
  MAX_RESOURCE_SET_ASSETS,
  type ResourceEntry,
  type ResourceSet,
  resourceSetOf,
} from "../assets/resource-set.js";
import { BeaconError } from "../errors.js";
import type { AgentFilters } from "../fleet/agents.js";
import type { FleetRegistry } from "../fleet/ports.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { makeOperationQueue, type OperationDraft, type OperationQueueDependencies } from "./queue.js";
import {
  AGENTS_PER_SELECTION_STEP,
  draftsTaken,
  noSelection,
  pushedBody,
  type SelectedAgents,
  selectionAfter,
} from "./selection.js";

export interface ResourceSetsDependencies extends OperationQueueDependencies {
  assets: AssetCatalog;
  resourceSets: ResourceSetStore;
  registry: FleetRegistry;
  clock: Clock;
  /** The agent API's public base URL, for the download URLs SYNC RESOURCE carries. */
  agentApiUrl: string;
  /** Up to `limit` agents the console's agent list shows for these filters after `after`; `next` reads on. */
  selectAgents(tenant: string, filters: AgentFilters, limit: number, after?: string): Promise<SelectedAgents>;
}

/** What a class's set is made of, as the console gives it: assets and where agents keep them. */
export interface ResourceSetRequest {
  items: { assetId: string; path?: string }[];
}

const resourceSetView = (set: ResourceSet) => ({
  className: set.className,
  items: set.entries.map(({ assetId, name, path }) => ({ assetId, name, path })),
  digest: set.digest,
  hashType: DIGEST_ALGORITHM,
  updatedAt: toIso(set.updatedAt) as string,
  updatedBy: set.updatedBy,
});

/**
 * A class's resource set: the assets its agents hold, each under its name in a folder of their asset
 * directory. Setting it queues a SYNC RESOURCE with the whole set for each agent of the class that does
 * not report the set's digest yet; agents delete the resources it no longer lists.
 */
export function makeResourceSetsApi(deps: ResourceSetsDependencies) {
  const { assets, resourceSets, registry, clock } = deps;
  const queue = makeOperationQueue(deps);

  /** The set's entries: each asset once, known to the tenant, at a safe path, no two at the same place. */
  async function entriesOf(tenant: string, request: ResourceSetRequest): Promise<ResourceEntry[]> {
    if (request.items.length > MAX_RESOURCE_SET_ASSETS)
      throw new BeaconError(
        "invalid_request",
        `A class's resource set holds at most ${MAX_RESOURCE_SET_ASSETS} assets`,
      );
    const entries: ResourceEntry[] = [];
    const places = new Set<string>();
    for (const { assetId, path = "" } of request.items) {
      if (entries.some((entry) => entry.assetId === assetId))
        throw new BeaconError("invalid_request", `Asset ${assetId} is in the set twice`);
      if (!isResourcePath(path))
        throw new BeaconError(
          "invalid_request",
          `Path ${JSON.stringify(path)} is not a relative folder of letters, digits, '.', '_' and '-' (no segment starting with '.')`,
        );
      const asset = isAssetId(assetId) ? await assets.get(tenant, assetId) : undefined;
      if (!asset) throw new BeaconError("not_found", `No asset ${assetId}`);
      const place = `${path}/${asset.name}`;
      if (places.has(place))
        throw new BeaconError(
          "invalid_request",
          `Two assets would be ${place.replace(/^\//, "")} on the agents`,
        );
      places.add(place);
      entries.push({ assetId, name: asset.name, path });
    }
    return entries;
  }

  /** A SYNC RESOURCE for the agents of a step of the class's that do not hold the set; who cannot take it is skipped. */
  async function pushStep(tenant: string, set: ResourceSet, subject: string, agentIds: string[]) {
    const agents = await registry.getMany(tenant, agentIds);
    const hot = await queue.hotStateOf(tenant, agents);
    const drafts: OperationDraft[] = agents
      .filter((agent) => hot.get(agent.agentId)?.resourceHash !== set.digest)
      .map((agent) => ({
        agent,
        operation: "SYNC",
        operand: "RESOURCE",
        args: syncResourceArgs(set, deps.agentApiUrl),
      }));
    const refused = await queue.refusals(tenant, drafts, hot);
    const taking = draftsTaken(drafts, refused);
    const queued = taking.length > 0 ? await queue.enqueue(tenant, taking, subject) : { records: [] };
    return { ...queued, refused };
  }

  /** A SYNC RESOURCE for each agent of the class that does not hold the set, a step of agents at a time. */
  async function push(tenant: string, set: ResourceSet, subject: string) {
    let progress = noSelection;
    let after: string | undefined;
    do {
      const step = await deps.selectAgents(
        tenant,
        { agentClass: set.className },
        AGENTS_PER_SELECTION_STEP,
        after,
      );
      const agentIds = step.items.map(({ agentId }) => agentId);
      progress = selectionAfter(progress, await pushStep(tenant, set, subject, agentIds));
      after = step.next;
    } while (after !== undefined);
    return progress;
  }

  return {
    async get(principal: Principal, className: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const set = await resourceSets.get(principal.tenant, className);
      if (!set) throw new BeaconError("not_found", "The class has no resource set");
      return { body: resourceSetView(set) };
    },

    async put(principal: Principal, className: string, request: ResourceSetRequest): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const entries = await entriesOf(tenant, request);
      const previous = await resourceSets.get(tenant, className);
      const set: ResourceSet = {
        className,
        ...resourceSetOf(entries),
        updatedAt: clock.now(),
        updatedBy: principal.subject,
      };
      if ((await resourceSets.replace(tenant, set, previous)) === "conflict")
        throw new BeaconError(
          "resource_set_conflict",
          "The class's resource set, or an asset it adds, changed meanwhile: read it again and retry",
        );
      const pushed = await push(tenant, set, principal.subject);
      return {
        status: previous ? 200 : 201,
        body: { ...resourceSetView(set), ...pushedBody(pushed) },
        streamError: pushed.streamError,
      };
    },
  };
}
