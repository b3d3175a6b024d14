import { ManualClock } from "../../functions/adapters/memory/clock.js";
import { MemoryGroupStore } from "../../functions/adapters/memory/group-store.js";
import { MemoryManifestCatalog } from "../../functions/adapters/memory/manifest-catalog.js";
import type { AgentRegistry } from "../../functions/core/agents/ports.js";
import { makeGroupValues } from "../../functions/core/groups/group-values.js";
import { makeGroupMembership } from "../../functions/core/groups/membership.js";
import type { GroupStore } from "../../functions/core/groups/ports.js";
import type { ValuesOverClassOf, ValuesOverClassOfEach } from "../../functions/core/parameters/over-class.js";
import type { ParameterStore } from "../../functions/core/parameters/ports.js";
import type { Clock } from "../../functions/core/ports.js";

/**
 * Agents' values over their classes as the functions read them, over a test's memory stores: its groups
 * (none unless given) and its agents (none unless given, when no group holds values either).
 */
export function groupValuesIn(stores: {
  parameters: Pick<ParameterStore, "list">;
  registry?: Pick<AgentRegistry, "get">;
  groups?: GroupStore;
  clock?: Clock;
}) {
  return makeGroupValues({
    groups: stores.groups ?? new MemoryGroupStore(),
    parameters: stores.parameters,
    registry: stores.registry ?? { get: async () => undefined },
    membership: makeGroupMembership(new MemoryManifestCatalog()),
    clock: stores.clock ?? new ManualClock(),
  });
}

/** One agent's values over its class, over a test's memory stores (groupValuesIn). */
export const valuesOverClassIn = (stores: Parameters<typeof groupValuesIn>[0]): ValuesOverClassOf =>
  groupValuesIn(stores).overClass;

/** Agents' values over their classes read together, over a test's memory stores (groupValuesIn). */
export const valuesOverClassOfEachIn = (stores: Parameters<typeof groupValuesIn>[0]): ValuesOverClassOfEach =>
  groupValuesIn(stores).overClassOfEach;
