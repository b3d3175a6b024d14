import type { Page, PageRequest } from "../paging.js";
import type { MaintenanceWindow } from "../schedules/windows.js";
import type { GroupQuery } from "./query.js";

/** A saved query over a tenant's agents, named as a class is. Its members are evaluated when read. */
export interface Group {
  tenant: string;
  name: string;
  description?: string;
  query: GroupQuery;
  /** Rollouts to the group wait until an operator other than their creator approves them (four eyes). */
  requireApproval?: boolean;
  /** When its members may be sent operations and rollout batches, with their class's: absent, always. */
  maintenanceWindows?: MaintenanceWindow[];
  createdAt: number;
  updatedAt: number;
}

/** The tenant's groups, by name. */
export interface GroupStore {
  /** Conditional create: false, changing nothing, when the tenant has a group of that name. */
  create(group: Group): Promise<boolean>;
  /** Replaces an existing group's definition (description, query, settings), keeping its `createdAt`; false when there is none. */
  replace(group: Group): Promise<boolean>;
  get(tenant: string, name: string): Promise<Group | undefined>;
  /** One page of the tenant's groups by name. */
  list(tenant: string, page: PageRequest): Promise<Page<Group>>;
  /** False when there was no such group. */
  delete(tenant: string, name: string): Promise<boolean>;
}
