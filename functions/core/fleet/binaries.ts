import type { AgentRecord } from "../agents/ports.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { manifestIdOf } from "../manifests/agent-manifest.js";
import { namedBinaries } from "../manifests/named-binaries.js";
import type { ManifestCatalog } from "../manifests/ports.js";
import type { ConsoleResult } from "../result.js";

/** The tally's key for agents whose binary Beacon does not know yet (no manifest of the hash they report). */
export const UNKNOWN_BINARY = "unknown";

/** Agents counted so far, by class, then by the canonical id of the binary they run (or UNKNOWN_BINARY). */
export type BinaryTally = Record<string, Record<string, number>>;

/** How many agents of one class run one binary, the binary named as the console names it. */
export interface BinaryCount {
  className: string;
  /** Absent for the class's agents whose binary Beacon does not know yet. */
  manifestId?: string;
  name: string;
  agentType?: string;
  version?: string;
  agents: number;
}

/** The agents of a tenant by class and binary, as a counting pass ended with them. */
export interface CountedBinaries {
  countedAt: number;
  items: BinaryCount[];
}

/** The tally with each agent added under its class and the binary it runs now. */
export function tallyBinaries(tally: Readonly<BinaryTally>, agents: readonly AgentRecord[]): BinaryTally {
  const next: BinaryTally = Object.fromEntries(
    Object.entries(tally).map(([className, counts]) => [className, { ...counts }]),
  );
  for (const agent of agents) {
    const binary = manifestIdOf(agent) ?? UNKNOWN_BINARY;
    const counts = next[agent.agentClass] ?? {};
    counts[binary] = (counts[binary] ?? 0) + 1;
    next[agent.agentClass] = counts;
  }
  return next;
}

/**
 * The tally's counts, each binary named from its stored manifest (each distinct binary read once), ordered by
 * binary name, then class.
 */
export async function countedBinaries(
  catalog: Pick<ManifestCatalog, "get">,
  tenant: string,
  tally: Readonly<BinaryTally>,
  countedAt: number,
): Promise<CountedBinaries> {
  const ids = [...new Set(Object.values(tally).flatMap((counts) => Object.keys(counts)))].filter(
    (id) => id !== UNKNOWN_BINARY,
  );
  const binaries = await namedBinaries(catalog, tenant, ids);
  const items = Object.entries(tally).flatMap(([className, counts]) =>
    Object.entries(counts).map(([id, agents]): BinaryCount => {
      const binary = binaries.get(id);
      if (binary === undefined) return { className, name: "Binary not yet known", agents };
      return { className, manifestId: id, ...binary, agents };
    }),
  );
  items.sort((a, b) => a.name.localeCompare(b.name) || a.className.localeCompare(b.className));
  return { countedAt, items };
}

/**
 * The tenant's agents by binary and class, as the sweeper's last counting pass left them beside the groups'
 * counts: one read whatever the fleet's size, as fresh as that pass (it runs every few minutes). Each item
 * is one class's, so a principal limited to some classes keeps its classes' items.
 */
export function makeFleetBinaries(deps: {
  groups: { countingState(tenant: string): Promise<{ binaries?: CountedBinaries }> };
}) {
  return async function fleetBinaries(principal: Principal): Promise<ConsoleResult> {
    requireRole(principal, "viewer");
    const { binaries } = await deps.groups.countingState(principal.tenant);
    return { body: binaries ?? { items: [] } };
  };
}
