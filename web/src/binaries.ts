import type { components } from "./api/schema.js";

/** A binary with the agents running it, in all and per class. */
export interface BinaryRow {
  /** Absent for the agents whose binary Beacon does not know yet. */
  manifestId?: string;
  name: string;
  agentType?: string;
  version?: string;
  agents: number;
  classes: { className: string; agents: number }[];
}

/** The per-class counts of `GET /fleet/binaries` gathered by binary, the most run first, then by name. */
export function binaryRows(
  items: readonly components["schemas"]["FleetBinaries"]["items"][number][],
): BinaryRow[] {
  const rows = new Map<string, BinaryRow>();
  for (const { className, agents, ...binary } of items) {
    const key = binary.manifestId ?? "";
    const row = rows.get(key) ?? { ...binary, agents: 0, classes: [] };
    row.agents += agents;
    row.classes.push({ className, agents });
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => b.agents - a.agents || a.name.localeCompare(b.name));
}

/** The agent list of one binary's agents, of one class or all. */
export function binaryAgentsHref(manifestId: string, className?: string): string {
  const params = new URLSearchParams({ manifestId });
  if (className !== undefined) params.set("class", className);
  return `/agents?${params}`;
}
