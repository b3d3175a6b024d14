import { type Labels, matchesLabels } from "../../core/agents/labels.js";
import type { AgentRecord } from "../../core/agents/ports.js";
import type { AgentQuery, FleetRegistry } from "../../core/fleet/ports.js";
import { manifestIdOf } from "../../core/manifests/agent-manifest.js";
import { ofTenant, pageOf } from "./paging.js";

export class MemoryFleetRegistry implements FleetRegistry {
  readonly agents = new Map<string, AgentRecord>();

  add(record: AgentRecord) {
    this.agents.set(`${record.tenant}/${record.agentId}`, structuredClone(record));
  }

  /** An agent's periodic checkpoint, which the agent API writes (AgentRegistry.recordSeen). */
  recordSeen(tenant: string, agentId: string, lastSeen: number) {
    const record = this.agents.get(`${tenant}/${agentId}`);
    if (record) record.lastSeen = Math.max(record.lastSeen, lastSeen);
  }

  async query(tenant: string, query: AgentQuery) {
    const text = query.text;
    return pageOf(
      ofTenant(this.agents, tenant, (record) => record.agentId).filter(
        ([, record]) => query.agentClass === undefined || record.agentClass === query.agentClass,
      ),
      query,
      (record) =>
        (query.manifestHash === undefined || record.manifestHash === query.manifestHash) &&
        (query.manifestId === undefined || manifestIdOf(record) === query.manifestId) &&
        (query.flowId === undefined || record.flowId === query.flowId) &&
        (text === undefined ||
          record.agentId.includes(text) ||
          (record.device?.hostname ?? "").includes(text)) &&
        matchesLabels(record.labels, query.labels ?? []),
    );
  }

  async get(tenant: string, agentId: string) {
    const record = this.agents.get(`${tenant}/${agentId}`);
    return record && structuredClone(record);
  }

  async remove(tenant: string, agentId: string) {
    return this.agents.delete(`${tenant}/${agentId}`);
  }

  async putLabels(tenant: string, agentId: string, labels: Labels) {
    const record = this.agents.get(`${tenant}/${agentId}`);
    if (record && Object.keys(labels).length === 0) delete record.labels;
    else if (record) record.labels = { ...labels };
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
