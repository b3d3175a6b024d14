import type { AgentFilters } from "../fleet/agents.js";
import type { JsonObject } from "../json.js";
import type { ManifestCatalog } from "../manifests/ports.js";
import { allPagesOf } from "../paging.js";
import { type Binary, filtersOfGroup, type GroupQuery, matchingBinaries, namesBinaries } from "./query.js";

/**
 * What picks a group's members: binary criteria (agent type and version, manifest, components) are answered
 * first by the tenant's manifest catalog, a few tens of binaries, into the manifest ids they hold for; the
 * rest are the agent list's filters, narrowed to those ids.
 */
export function makeGroupMembership(manifests: ManifestCatalog) {
  /** Every binary of the tenant, with its content read only when the query names components. */
  async function binariesOf(tenant: string, query: GroupQuery): Promise<Binary[]> {
    const records = await allPagesOf((page) => manifests.list(tenant, page));
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

  return {
    /** The agent list's filters that pick the query's members at `now`; undefined when no agent can be one. */
    async filtersAt(tenant: string, query: GroupQuery, now: number): Promise<AgentFilters | undefined> {
      const binaries = namesBinaries(query)
        ? matchingBinaries(query, await binariesOf(tenant, query))
        : undefined;
      return filtersOfGroup(query, binaries, now);
    },
  };
}

export type GroupMembership = ReturnType<typeof makeGroupMembership>;
