import type { ParameterRecord, StagedChange } from "../../core/parameters/model.js";
import type { ParameterScope, ParameterStore } from "../../core/parameters/ports.js";

function scopeKey(tenant: string, scope: ParameterScope): string {
  switch (scope.layer) {
    case "class":
      return `${tenant}/class/${scope.className}`;
    case "group":
      return `${tenant}/group/${scope.group}`;
    case "agent":
      return `${tenant}/agent/${scope.agentId}`;
  }
}

/** The partition of `key` in `partitions`, by name, made empty the first time it is asked for. */
function partitionOf<T>(partitions: Map<string, Map<string, T>>, key: string): Map<string, T> {
  const partition = partitions.get(key) ?? new Map<string, T>();
  partitions.set(key, partition);
  return partition;
}

/** A partition's items by name, each a copy. */
const byName = <T extends { name: string }>(partition: Map<string, T>): T[] =>
  [...partition.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map((item) => structuredClone(item));

/** Parameter values by tenant and scope, each scope's by name, as the table's partitions keep them. */
export class MemoryParameterStore implements ParameterStore {
  readonly scopes = new Map<string, Map<string, ParameterRecord>>();
  /** Changes staged per class, by tenant/class and name. */
  readonly stagedChanges = new Map<string, Map<string, StagedChange>>();
  /** Values rollouts froze, by tenant/class/rollout. */
  readonly frozenValues = new Map<string, ParameterRecord[]>();

  private valuesOf(tenant: string, scope: ParameterScope): Map<string, ParameterRecord> {
    return partitionOf(this.scopes, scopeKey(tenant, scope));
  }

  async list(tenant: string, scope: ParameterScope) {
    return byName(this.valuesOf(tenant, scope));
  }

  async get(tenant: string, scope: ParameterScope, name: string) {
    const record = this.valuesOf(tenant, scope).get(name);
    return record && structuredClone(record);
  }

  async put(tenant: string, scope: ParameterScope, record: ParameterRecord) {
    const values = this.valuesOf(tenant, scope);
    const outcome = values.has(record.name) ? ("replaced" as const) : ("created" as const);
    values.set(record.name, structuredClone(record));
    return outcome;
  }

  async remove(tenant: string, scope: ParameterScope, name: string) {
    const values = this.valuesOf(tenant, scope);
    const record = values.get(name);
    values.delete(name);
    return record;
  }

  async agentValuesOf(tenant: string, name: string) {
    const prefix = `${tenant}/agent/`;
    return [...this.scopes]
      .flatMap(([key, values]) => {
        const record = values.get(name);
        return key.startsWith(prefix) && record
          ? [{ agentId: key.slice(prefix.length), record: structuredClone(record) }]
          : [];
      })
      .sort((a, b) => (a.agentId < b.agentId ? -1 : 1));
  }

  private stagedOf(tenant: string, className: string): Map<string, StagedChange> {
    return partitionOf(this.stagedChanges, `${tenant}/${className}`);
  }

  async staged(tenant: string, className: string) {
    return byName(this.stagedOf(tenant, className));
  }

  async stage(tenant: string, className: string, change: StagedChange) {
    this.stagedOf(tenant, className).set(change.name, structuredClone(change));
  }

  async discardStaged(tenant: string, className: string) {
    const discarded = await this.staged(tenant, className);
    this.stagedChanges.delete(`${tenant}/${className}`);
    return discarded;
  }

  async unstage(tenant: string, className: string, changes: readonly StagedChange[]) {
    const staged = this.stagedOf(tenant, className);
    for (const change of changes)
      if (staged.get(change.name)?.updatedAt === change.updatedAt) staged.delete(change.name);
  }

  async freeze(tenant: string, className: string, rolloutId: string, values: readonly ParameterRecord[]) {
    this.frozenValues.set(`${tenant}/${className}/${rolloutId}`, structuredClone([...values]));
  }

  async frozen(tenant: string, className: string, rolloutId: string) {
    return structuredClone(this.frozenValues.get(`${tenant}/${className}/${rolloutId}`) ?? []).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    );
  }
}
