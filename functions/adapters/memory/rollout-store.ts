import type { AgentClassRecord } from "../../core/agents/ports.js";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import {
  isRolloutFinal,
  type MemberState,
  type RolloutMember,
  type RolloutRecord,
} from "../../core/rollouts/model.js";
import type { RolloutQuery, RolloutStore } from "../../core/rollouts/ports.js";
import type { MemoryClassCatalog } from "./class-catalog.js";
import { pageOf } from "./paging.js";

/** The table's member sort key without its prefix: batch zero-padded, then agent id; also the page cursor. */
const memberKey = (batch: number, agentId: string) => `${String(batch).padStart(6, "0")}#${agentId}`;

/**
 * In-process stand-in for the rollout store, for core unit tests only; counts its calls. The class's
 * active rollout and flow policy live in the class catalog's records, as the table keeps them on the
 * class item. Members are kept per rollout and batch, so no call reads more than one rollout's members.
 */
export class MemoryRolloutStore implements RolloutStore {
  readonly rollouts = new Map<string, RolloutRecord>();
  /** Per tenant/rollout, per batch, by agent id. */
  readonly batches = new Map<string, Map<number, Map<string, RolloutMember>>>();
  calls = 0;

  constructor(private readonly catalog: MemoryClassCatalog) {}

  start(record: RolloutRecord, policy: ClassFlowPolicy | undefined) {
    return this.claim(record, { policy });
  }

  hold(record: RolloutRecord) {
    const policy = this.catalog.classes.get(`${record.tenant}/${record.className}`)?.flowPolicy;
    return this.claim(record, { policy });
  }

  private async claim(record: RolloutRecord, { policy }: { policy: ClassFlowPolicy | undefined }) {
    this.calls++;
    const key = `${record.tenant}/${record.rolloutId}`;
    const existing = this.catalog.classes.get(`${record.tenant}/${record.className}`);
    if (this.rollouts.has(key) || existing?.activeRolloutId !== undefined) return false;
    this.rollouts.set(key, structuredClone(record));
    const { flowPolicy: _replaced, ...rest }: AgentClassRecord = existing ?? {
      tenant: record.tenant,
      name: record.className,
      createdAt: record.createdAt,
      autoCreated: false,
    };
    this.setClass({
      ...rest,
      activeRolloutId: record.rolloutId,
      ...(policy ? { flowPolicy: structuredClone(policy) } : {}),
    });
    return true;
  }

  async get(tenant: string, rolloutId: string) {
    this.calls++;
    const record = this.rollouts.get(`${tenant}/${rolloutId}`);
    return record && structuredClone(record);
  }

  async list(tenant: string, query: RolloutQuery) {
    this.calls++;
    const entries = [...this.rollouts.values()]
      .filter((record) => record.tenant === tenant)
      .map((record) => [record.rolloutId, record] as [string, RolloutRecord]);
    return pageOf(
      entries,
      { limit: query.limit, after: query.after, descending: true },
      (record) =>
        (query.className === undefined || record.className === query.className) &&
        (query.state === undefined || record.state === query.state),
    );
  }

  async save(record: RolloutRecord, readVersion: number, policy?: ClassFlowPolicy) {
    this.calls++;
    const key = `${record.tenant}/${record.rolloutId}`;
    if (this.rollouts.get(key)?.version !== readVersion) return false;
    this.rollouts.set(key, structuredClone(record));
    const existing = this.catalog.classes.get(`${record.tenant}/${record.className}`);
    // As in the table, only the class's active rollout changes it.
    if (!existing || existing.activeRolloutId !== record.rolloutId) return true;
    const { activeRolloutId, ...rest } = existing;
    this.setClass({
      ...rest,
      ...(isRolloutFinal(record.state) ? {} : { activeRolloutId }),
      ...(policy ? { flowPolicy: structuredClone(policy) } : {}),
    });
    return true;
  }

  async *active() {
    this.calls++;
    const active = [...this.rollouts.values()]
      .filter((record) => !isRolloutFinal(record.state))
      .sort((a, b) => a.createdAt - b.createdAt);
    for (const { tenant, rolloutId } of active) yield { tenant, rolloutId };
  }

  async addMembers(members: RolloutMember[]) {
    this.calls++;
    const written: RolloutMember[] = [];
    for (const member of members) {
      const key = `${member.tenant}/${member.rolloutId}`;
      const batches = this.batches.get(key) ?? new Map<number, Map<string, RolloutMember>>();
      this.batches.set(key, batches);
      const batch = batches.get(member.batch) ?? new Map<string, RolloutMember>();
      batches.set(member.batch, batch);
      if (batch.has(member.agentId)) continue;
      batch.set(member.agentId, structuredClone(member));
      written.push(member);
    }
    return written;
  }

  async members(tenant: string, rolloutId: string, batch?: number) {
    this.calls++;
    return this.ordered(tenant, rolloutId, batch).map(([, member]) => structuredClone(member));
  }

  async memberPage(tenant: string, rolloutId: string, request: { limit: number; after?: string }) {
    this.calls++;
    return pageOf(this.ordered(tenant, rolloutId), request);
  }

  async updateMember(member: RolloutMember, from: MemberState) {
    this.calls++;
    const batch = this.batches.get(`${member.tenant}/${member.rolloutId}`)?.get(member.batch);
    if (batch?.get(member.agentId)?.state !== from) return false;
    batch.set(member.agentId, structuredClone(member));
    return true;
  }

  private setClass(record: AgentClassRecord) {
    this.catalog.classes.set(`${record.tenant}/${record.name}`, record);
  }

  /** One batch's members, or every batch's, in the table's order, each with its sort key. */
  private ordered(tenant: string, rolloutId: string, batch?: number): [string, RolloutMember][] {
    const batches = this.batches.get(`${tenant}/${rolloutId}`);
    if (!batches) return [];
    const numbers = batch === undefined ? [...batches.keys()].sort((a, b) => a - b) : [batch];
    return numbers.flatMap((number) =>
      [...(batches.get(number)?.values() ?? [])]
        .map((member) => [memberKey(number, member.agentId), member] as [string, RolloutMember])
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  }
}
