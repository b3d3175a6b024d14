import type { ParameterRecord, StagedChange } from "../../core/parameters/model.js";
import type { ParameterScope, ParameterStore } from "../../core/parameters/ports.js";

const scopeKey = (tenant: string, scope: ParameterScope) =>
  scope.layer === "class" ? `${tenant}/class/${scope.className}` : `${tenant}/agent/${scope.agentId}`;

/** Parameter values by tenant and scope, each scope's by name, as the table's partitions keep them. */
export class MemoryParameterStore implements ParameterStore {
  readonly scopes = new Map<string, Map<string, ParameterRecord>>();
  /** Changes staged per class, by tenant/class and name. */
  readonly stagedChanges = new Map<string, Map<string, StagedChange>>();
  /** Values rollouts froze, by tenant/class/rollout. */
  readonly frozenValues = new Map<string, ParameterRecord[]>();

  private valuesOf(tenant: string, scope: ParameterScope): Map<string, ParameterRecord> {
    const key = scopeKey(tenant, scope);
    const values = this.scopes.get(key) ?? new Map<string, ParameterRecord>();
    this.scopes.set(key, values);
    return values;
  }

  async list(tenant: string, scope: ParameterScope) {
    return [...this.valuesOf(tenant, scope).values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((record) => structuredClone(record));
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
    const key = `${tenant}/${className}`;
    const changes = this.stagedChanges.get(key) ?? new Map<string, StagedChange>();
    this.stagedChanges.set(key, changes);
    return changes;
  }

  async staged(tenant: string, className: string) {
    return [...this.stagedOf(tenant, className).values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((change) => structuredClone(change));
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
