import type { MaintenanceWindow } from "../schedules/windows.js";
import { type AgentFilters, type MergedAgent, matchesAgentFilters } from "./agents.js";

/** A group with maintenance windows, and the list's filters of its members now (undefined: none can be). */
export interface WindowedGroup {
  name: string;
  maintenanceWindows: MaintenanceWindow[];
  members: AgentFilters | undefined;
}

/** Windows that must be open for an agent to be reached, and whose they are (`class pumps`, `group night`). */
export interface WindowSet {
  of: string;
  windows: MaintenanceWindow[];
}

/** The groups with windows the agent is a member of, matched as the group's member list would show it. */
export const groupsWithAgent = (agent: MergedAgent, groups: readonly WindowedGroup[]): WindowedGroup[] =>
  groups.filter(({ members }) => members !== undefined && matchesAgentFilters(agent, members));

/**
 * An agent's maintenance windows: its class's, if it has any, and those of each group with windows it is a
 * member of. It may be reached only while all are open.
 */
export function windowSetsOf(
  agentClass: string,
  classWindows: MaintenanceWindow[] | undefined,
  memberOf: readonly WindowedGroup[],
): WindowSet[] {
  const sets: WindowSet[] = [
    { of: `class ${agentClass}`, windows: classWindows ?? [] },
    ...memberOf.map((group) => ({ of: `group ${group.name}`, windows: group.maintenanceWindows })),
  ];
  return sets.filter((set) => set.windows.length > 0);
}

/**
 * Makes the operations held for agents' maintenance windows follow a change of them: those of the class's
 * agents, or of every agent when a group's windows changed.
 */
export type FollowHeldOperations = (
  tenant: string,
  agentClass?: string,
) => Promise<{ streamError?: unknown }>;
