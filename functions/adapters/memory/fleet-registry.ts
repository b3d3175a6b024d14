import type { Labels } from "../../core/agents/labels.js";
import type { AgentAssignment, AgentPin, AgentRecord, SilentAgent } from "../../core/agents/ports.js";
import { meetsRegistryFilters } from "../../core/fleet/agents.js";
import type { AgentQuery, Decommissioning, FleetRegistry, RegistryFilters } from "../../core/fleet/ports.js";
import { MemoryEventOutbox } from "./event-outbox.js";
import { ofTenant, pageOf } from "./paging.js";

export class MemoryFleetRegistry implements FleetRegistry {
  constructor(private readonly outbox = new MemoryEventOutbox()) {}

  readonly agents = new Map<string, AgentRecord>();
  /** The silent index's entries, by tenant/agent id. */
  readonly silent = new Map<string, SilentAgent>();
  /** Decommissioned agents' kept entries, by tenant/agent id, until they register again. */
  readonly decommissioned = new Map<string, AgentRecord & { decommissioning: Decommissioning }>();

  /** A registration: a decommissioned agent's kept entry is replaced (`returned`). */
  add(record: AgentRecord): "created" | "returned" {
    const key = `${record.tenant}/${record.agentId}`;
    const returned = this.decommissioned.delete(key);
    this.agents.set(key, structuredClone(record));
    return returned ? "returned" : "created";
  }

  /** An agent's periodic checkpoint, which the agent API writes (AgentRegistry.recordSeen). */
  recordSeen(tenant: string, agentId: string, lastSeen: number) {
    const record = this.agents.get(`${tenant}/${agentId}`);
    if (record) record.lastSeen = Math.max(record.lastSeen, lastSeen);
  }

  async query(tenant: string, query: AgentQuery) {
    return pageOf(
      // The class is the index partition read, before the page's window; the other filters narrow the window.
      ofTenant(this.agents, tenant, (record) => record.agentId).filter(
        ([, record]) => query.agentClass === undefined || record.agentClass === query.agentClass,
      ),
      query,
      (record) => meetsRegistryFilters(record, query),
    );
  }

  async countMatching(tenant: string, filters: RegistryFilters) {
    return [...this.agents.values()].filter(
      (record) => record.tenant === tenant && meetsRegistryFilters(record, filters),
    ).length;
  }

  async get(tenant: string, agentId: string) {
    const record = this.agents.get(`${tenant}/${agentId}`);
    return record && structuredClone(record);
  }

  async getMany(tenant: string, agentIds: string[]) {
    return agentIds.flatMap((agentId) => {
      const record = this.agents.get(`${tenant}/${agentId}`);
      return record ? [structuredClone(record)] : [];
    });
  }

  /** As the table: the entry leaves every read and index, kept with its decommissioning until registered again. */
  async decommission(tenant: string, agentId: string, decommissioning: Decommissioning) {
    const key = `${tenant}/${agentId}`;
    const record = this.agents.get(key);
    if (!record) return false;
    if (decommissioning.reason === "silent" && this.silent.get(key)?.lastSeen !== decommissioning.lastSeen)
      return false;
    this.agents.delete(key);
    this.silent.delete(key);
    this.decommissioned.set(key, { ...record, lastSeen: decommissioning.lastSeen, decommissioning });
    if (decommissioning.reason === "silent") this.outbox.stage(decommissioning.event);
    return true;
  }

  async markSilent(tenant: string, agent: SilentAgent) {
    const key = `${tenant}/${agent.agentId}`;
    if (this.agents.has(key)) this.silent.set(key, structuredClone(agent));
  }

  async clearSilent(tenant: string, agentId: string, lastSeen: number) {
    const key = `${tenant}/${agentId}`;
    if (this.silent.get(key)?.lastSeen === lastSeen) this.silent.delete(key);
  }

  async silentBefore(tenant: string, agentClass: string, before: number, limit: number) {
    return [...this.silent]
      .filter(([key, agent]) => key === `${tenant}/${agent.agentId}`)
      .map(([, agent]) => agent)
      .filter((agent) => agent.agentClass === agentClass && agent.lastSeen < before)
      .sort((a, b) => a.lastSeen - b.lastSeen)
      .slice(0, limit)
      .map((agent) => structuredClone(agent));
  }

  async putLabels(tenant: string, agentId: string, labels: Labels) {
    const record = this.agents.get(`${tenant}/${agentId}`);
    if (record && Object.keys(labels).length === 0) delete record.labels;
    else if (record) record.labels = { ...labels };
    return record !== undefined;
  }

  async putPin(tenant: string, agentId: string, pin: AgentPin | undefined) {
    return this.putHold(tenant, agentId, "pin", pin);
  }

  async putAssignment(tenant: string, agentId: string, assignment: AgentAssignment | undefined) {
    return this.putHold(tenant, agentId, "assignment", assignment);
  }

  private putHold<Field extends "pin" | "assignment">(
    tenant: string,
    agentId: string,
    field: Field,
    hold: AgentRecord[Field],
  ) {
    const record = this.agents.get(`${tenant}/${agentId}`);
    if (record && hold === undefined) delete record[field];
    else if (record) record[field] = structuredClone(hold);
    return record !== undefined;
  }

  async reportedFlows(tenant: string, agentClass: string) {
    return ofTenant(this.agents, tenant, (record) => record.agentId)
      .filter(([, record]) => record.agentClass === agentClass)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, record]) =>
        record.flowId === undefined
          ? { agentId: record.agentId }
          : { agentId: record.agentId, flowId: record.flowId },
      );
  }

  async count(tenant: string, agentClass: string, seenSince?: number) {
    return [...this.agents.values()].filter(
      (record) =>
        record.tenant === tenant &&
        record.agentClass === agentClass &&
        (seenSince === undefined || record.lastSeen >= seenSince),
    ).length;
  }
}
