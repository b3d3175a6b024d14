import type { Labels } from "../../core/agents/labels.js";
import type { AgentCheckpoint, AgentRecord, AgentRegistry } from "../../core/agents/ports.js";
import { dropUndefined } from "../../core/json.js";
import type { AgentManifest } from "../../core/manifests/agent-manifest.js";

export class MemoryAgentRegistry implements AgentRegistry {
  readonly records = new Map<string, AgentRecord>();
  calls = 0;

  async get(tenant: string, agentId: string) {
    this.calls++;
    const record = this.records.get(`${tenant}/${agentId}`);
    return record && structuredClone(record);
  }

  /** Holds no decommissioned entries (MemoryFleetRegistry does): an agent is created or exists. */
  async register(record: AgentRecord): ReturnType<AgentRegistry["register"]> {
    this.calls++;
    const key = `${record.tenant}/${record.agentId}`;
    if (this.records.has(key)) return "exists" as const;
    this.records.set(key, structuredClone(record));
    return "created" as const;
  }

  /** As the table's upsert: an agent the registry lost is written back, first seen at this checkpoint. */
  async checkpoint(tenant: string, agentId: string, checkpoint: AgentCheckpoint) {
    this.calls++;
    const key = `${tenant}/${agentId}`;
    const record =
      this.records.get(key) ?? ({ tenant, agentId, firstSeen: checkpoint.lastSeen } as AgentRecord);
    this.records.set(key, { ...record, ...structuredClone(dropUndefined(checkpoint)) });
  }

  /** Kept in the record: reads give the later time, as the table's separate item does. */
  async recordSeen(tenant: string, agentId: string, lastSeen: number) {
    this.calls++;
    const record = this.records.get(`${tenant}/${agentId}`);
    if (record) record.lastSeen = Math.max(record.lastSeen, lastSeen);
  }

  async beginDescribe(tenant: string, agentId: string, operationId: string, now: number, expiresAt: number) {
    this.calls++;
    const record = this.records.get(`${tenant}/${agentId}`);
    if (!record || (record.pendingDescribe && record.pendingDescribe.expiresAt > now)) return false;
    record.pendingDescribe = { operationId, expiresAt };
    return true;
  }

  async completeDescribe(
    tenant: string,
    agentId: string,
    operationId: string,
    manifest: AgentManifest | undefined,
    reportedLabels?: Labels,
  ) {
    this.calls++;
    const record = this.records.get(`${tenant}/${agentId}`);
    if (!record || record.pendingDescribe?.operationId !== operationId) return false;
    record.pendingDescribe = undefined;
    if (manifest) record.manifest = structuredClone(manifest);
    if (reportedLabels) record.reportedLabels = { ...reportedLabels };
    return true;
  }

  async recordManifest(tenant: string, agentId: string, manifest: AgentManifest, reportedLabels?: Labels) {
    this.calls++;
    const record = this.records.get(`${tenant}/${agentId}`);
    if (record) record.manifest = structuredClone(manifest);
    if (record && reportedLabels) record.reportedLabels = { ...reportedLabels };
    return record !== undefined;
  }
}
