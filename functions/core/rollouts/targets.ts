import { BeaconError } from "../errors.js";
import { type AgentFilters, bothFilters, filtersOfSelector } from "../fleet/agents.js";
import type { GroupsApi } from "../groups/console-groups.js";
import type { Group, GroupStore } from "../groups/ports.js";
import type { RolloutSelector } from "./model.js";

/** Which of its class's agents a rollout takes: all of them, a group's members, or those a selector picks. */
export interface RolloutTarget {
  className: string;
  group?: string;
  selector?: RolloutSelector;
}

/** The target as read now: the filters that pick its agents (undefined: none can be one), and its group. */
export interface TargetNow {
  filters: AgentFilters | undefined;
  group?: Group;
}

export interface RolloutTargetDependencies {
  /** The group records, for their approval and windows. */
  groups: Pick<GroupStore, "get">;
  /** The groups' members: the filters that pick them now, and how many filters pick. */
  members: Pick<GroupsApi, "filtersOf" | "count">;
}

/**
 * A rollout's agents, evaluated each time they are read (at each batch): its class's agents that are also
 * its group's members, or that its selector picks.
 */
export function makeRolloutTargets(deps: RolloutTargetDependencies) {
  async function read(tenant: string, target: RolloutTarget): Promise<TargetNow> {
    const classOnly: AgentFilters = { agentClass: target.className };
    if (target.selector !== undefined)
      return { filters: bothFilters(classOnly, filtersOfSelector(target.selector)) };
    if (target.group === undefined) return { filters: classOnly };
    const group = await deps.groups.get(tenant, target.group);
    if (!group) throw new BeaconError("not_found", "No such group");
    const members = await deps.members.filtersOf(tenant, target.group);
    return { filters: members && classMembers(target.className, members), group };
  }

  return {
    read,
    /** How many agents the target holds now. */
    async count(tenant: string, now: TargetNow): Promise<number> {
      return deps.members.count(tenant, now.filters);
    },
    /** The target as a rollout is created on it: refused when its group's query leaves its class out. */
    async check(tenant: string, target: RolloutTarget): Promise<TargetNow> {
      if (target.group !== undefined && target.selector !== undefined)
        throw new BeaconError("invalid_request", "A rollout names a group or a selector, not both");
      const now = await read(tenant, target);
      const classes = now.group?.query.classes;
      if (classes !== undefined && !classes.includes(target.className))
        throw new BeaconError(
          "invalid_request",
          `Group ${target.group} holds no agent of class ${target.className}: its query names other classes`,
        );
      return now;
    },
  };
}

export type RolloutTargets = ReturnType<typeof makeRolloutTargets>;

/** A group's filters within one class: a group of several classes names that one among them. */
function classMembers(className: string, members: AgentFilters): AgentFilters | undefined {
  const { agentClasses, ...rest } = members;
  if (agentClasses !== undefined && !agentClasses.includes(className)) return undefined;
  return bothFilters({ agentClass: className }, rest);
}
