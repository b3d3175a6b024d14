import type { BinaryTally, CountedBinaries } from "../fleet/binaries.js";
import type { Page, PageRequest } from "../paging.js";
import type { MaintenanceWindow } from "../schedules/windows.js";
import type { GroupQuery } from "./query.js";

/**
 * A saved query over a tenant's agents, named as a class is. Its members are evaluated when read; its count,
 * by the sweeper's counting pass (counting.ts), is absent until a pass counted the group as it is now.
 */
export interface Group {
  tenant: string;
  name: string;
  description?: string;
  query: GroupQuery;
  /**
   * Rollouts to the group wait until an operator other than their creator approves them (four eyes), as
   * one to a class that requires it does.
   */
  requireApproval?: boolean;
  /**
   * When its members may be sent operations, and a rollout to the group batches, with their class's windows:
   * absent, always.
   */
  maintenanceWindows?: MaintenanceWindow[];
  /**
   * Which of the groups an agent is a member of gives a parameter they all set a value for: the highest
   * priority's, and of equal priorities the name sorting last. Absent, 0.
   */
  parameterPriority?: number;
  /**
   * The parameters the group sets values for, by name, kept as values are set and removed: absent when it
   * sets none, so an agent's values are found without reading every group's.
   */
  parameterNames?: string[];
  createdAt: number;
  updatedAt: number;
  /** The members the last counting pass found, of the group as last changed at `updatedAt`. */
  memberCount?: number;
  /** When that pass ended. */
  countedAt?: number;
}

/** The counting pass of a tenant's groups under way: the agents read so far and what they counted. */
export interface RunningCount {
  startedAt: number;
  /** The groups counted, each as changed at `updatedAt`: a group changed since is counted by the next pass. */
  groups: { name: string; updatedAt: number }[];
  /** Members found so far, by group name. */
  counts: Record<string, number>;
  /** Agents found so far by class and binary; absent in a pass started before binaries were counted. */
  binaries?: BinaryTally;
  /** The agent id the pass reads on after; absent before its first page. */
  after?: string;
}

/** Where a tenant's counting passes are: the last one's end, and the one under way. */
export interface CountingState {
  finishedAt?: number;
  /** The tenant's agents by class and binary, as the last pass that ended counted them. */
  binaries?: CountedBinaries;
  running?: RunningCount;
}

/** The tenant's groups, by name. */
export interface GroupStore {
  /** Conditional create: false, changing nothing, when the tenant has a group of that name. */
  create(group: Group): Promise<boolean>;
  /**
   * Replaces an existing group's definition (description, query, settings), keeping its `createdAt` and its
   * parameters' names, and dropping its count (the next pass counts it anew); false when there is none.
   */
  replace(group: Group): Promise<boolean>;
  get(tenant: string, name: string): Promise<Group | undefined>;
  /** One page of the tenant's groups by name. */
  list(tenant: string, page: PageRequest): Promise<Page<Group>>;
  /** False when there was no such group. */
  delete(tenant: string, name: string): Promise<boolean>;
  /**
   * Marks the group as setting a value for the parameter (`holds`) or no longer: one name added or taken at
   * once, whatever other names are marked meanwhile. False when there is no such group.
   */
  markParameter(tenant: string, name: string, parameter: string, holds: boolean): Promise<boolean>;
  /** Sets the group's count, unless it changed since `updatedAt` or is gone: false then, changing nothing. */
  putCount(
    tenant: string,
    name: string,
    count: { updatedAt: number; memberCount: number; countedAt: number },
  ): Promise<boolean>;
  /** The tenant's counting state; empty before its first pass. */
  countingState(tenant: string): Promise<CountingState>;
  putCountingState(tenant: string, state: CountingState): Promise<void>;
}
