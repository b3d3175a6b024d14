import type { Group, GroupStore } from "../../core/groups/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { ofTenant, pageOf } from "./paging.js";

export class MemoryGroupStore implements GroupStore {
  readonly groups = new Map<string, Group>();

  async create(group: Group) {
    const key = `${group.tenant}/${group.name}`;
    if (this.groups.has(key)) return false;
    this.groups.set(key, structuredClone(group));
    return true;
  }

  async replace(group: Group) {
    const key = `${group.tenant}/${group.name}`;
    const existing = this.groups.get(key);
    if (!existing) return false;
    this.groups.set(key, structuredClone({ ...group, createdAt: existing.createdAt }));
    return true;
  }

  async get(tenant: string, name: string) {
    const group = this.groups.get(`${tenant}/${name}`);
    return group && structuredClone(group);
  }

  async list(tenant: string, page: PageRequest) {
    return pageOf(
      ofTenant(this.groups, tenant, (group) => group.name),
      page,
    );
  }

  async delete(tenant: string, name: string) {
    return this.groups.delete(`${tenant}/${name}`);
  }
}
