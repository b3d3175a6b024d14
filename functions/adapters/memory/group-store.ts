import type { CountingState, Group, GroupStore } from "../../core/groups/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { ofTenant, pageOf } from "./paging.js";

export class MemoryGroupStore implements GroupStore {
  readonly groups = new Map<string, Group>();
  readonly counting = new Map<string, CountingState>();

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
    const { memberCount: _count, countedAt: _at, parameterNames: _names, ...changed } = group;
    const { parameterNames } = existing;
    this.groups.set(
      key,
      structuredClone({
        ...changed,
        createdAt: existing.createdAt,
        ...(parameterNames ? { parameterNames } : {}),
      }),
    );
    return true;
  }

  async markParameter(tenant: string, name: string, parameter: string, holds: boolean) {
    const group = this.groups.get(`${tenant}/${name}`);
    if (!group) return false;
    const names = new Set(group.parameterNames);
    if (holds) names.add(parameter);
    else names.delete(parameter);
    group.parameterNames = [...names].sort();
    if (names.size === 0) delete group.parameterNames;
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

  async putCount(
    tenant: string,
    name: string,
    count: { updatedAt: number; memberCount: number; countedAt: number },
  ) {
    const group = this.groups.get(`${tenant}/${name}`);
    if (group?.updatedAt !== count.updatedAt) return false;
    group.memberCount = count.memberCount;
    group.countedAt = count.countedAt;
    return true;
  }

  async countingState(tenant: string) {
    return structuredClone(this.counting.get(tenant) ?? {});
  }

  async putCountingState(tenant: string, state: CountingState) {
    this.counting.set(tenant, structuredClone(state));
  }
}
