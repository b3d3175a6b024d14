import type { Page, PageRequest } from "../paging.js";
import type { MaintenanceWindow } from "../schedules/windows.js";
import type { GroupQuery } from "./query.js";

/** A saved query over a tenant's agents, named as a class is. Its members are evaluated when read. */
export interface Group {
  tenant: string;
  name: string;
  description?: string;
  query: GroupQuery;
  /** A rollout to the group waits for a second operator's approval, as one to a class that requires it. */
  requireApproval?: boolean;
  /** A rollout to the group sends batches only while these (and its class's) windows are open. */
  maintenanceWindows?: MaintenanceWindow[];
  createdAt: number;
  updatedAt: number;
}

/** The tenant's groups, by name. */
export interface GroupStore {
  /** Conditional create: false, changing nothing, when the tenant has a group of that name. */
  create(group: Group): Promise<boolean>;
  /** Replaces an existing group's description and query, keeping its `createdAt`; false when there is none. */
  replace(group: Group): Promise<boolean>;
  get(tenant: string, name: string): Promise<Group | undefined>;
  /** One page of the tenant's groups by name. */
  list(tenant: string, page: PageRequest): Promise<Page<Group>>;
  /** False when there was no such group. */
  delete(tenant: string, name: string): Promise<boolean>;
}
