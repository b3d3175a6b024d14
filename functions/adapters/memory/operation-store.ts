import type { OperationEvent, OperationState } from "../../core/events/model.js";
import { isFinal, type OperationChange, type OperationRecord } from "../../core/operations/model.js";
import type { ExistingOperations, OperationQuery, OperationStore } from "../../core/operations/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { MemoryEventOutbox } from "./event-outbox.js";
import { pageOf } from "./paging.js";

export class MemoryOperationStore implements OperationStore {
  readonly records = new Map<string, OperationRecord>();
  calls = 0;

  constructor(private readonly outbox = new MemoryEventOutbox()) {}

  private key(tenant: string, agentId: string, operationId: string) {
    return `${tenant}/${agentId}/${operationId}`;
  }

  async create(
    operations: OperationRecord[],
    events: OperationEvent[] = [],
    { existing = "refuse" }: { existing?: ExistingOperations } = {},
  ) {
    this.calls++;
    const written: string[] = [];
    for (const record of operations) {
      const key = this.key(record.tenant, record.agentId, record.operationId);
      if (this.records.has(key)) {
        if (existing === "keep") continue;
        throw new Error(`operation ${key} exists`);
      }
      this.records.set(key, structuredClone(record));
      const event = events.find((candidate) => candidate.operationId === record.operationId);
      if (event) this.outbox.stage(event);
      written.push(record.operationId);
    }
    return written;
  }

  async get(tenant: string, agentId: string, operationId: string) {
    this.calls++;
    const record = this.records.get(this.key(tenant, agentId, operationId));
    return record && structuredClone(record);
  }

  async open(tenant: string, agentId: string) {
    this.calls++;
    return [...this.records.values()]
      .filter((record) => record.tenant === tenant && record.agentId === agentId && !isFinal(record.state))
      .sort((a, b) => (a.operationId < b.operationId ? -1 : 1))
      .map((record) => structuredClone(record));
  }

  async transition(
    operation: OperationRecord,
    from: OperationState,
    change: OperationChange,
    event?: OperationEvent,
  ) {
    this.calls++;
    const record = this.records.get(this.key(operation.tenant, operation.agentId, operation.operationId));
    if (!record || record.state !== from) return false;
    Object.assign(record, change);
    if (event) this.outbox.stage(event);
    // As in the table: a closed operation leaves the due index.
    if (isFinal(change.state)) delete record.dueAt;
    return true;
  }

  async *due(time: number) {
    this.calls++;
    const due = [...this.records.values()]
      .filter((record) => !isFinal(record.state) && record.dueAt !== undefined && record.dueAt <= time)
      .sort((a, b) => (a.dueAt as number) - (b.dueAt as number));
    for (const record of due) yield structuredClone(record);
  }

  async held(tenant: string, agentClass: string, page: PageRequest) {
    this.calls++;
    const entries = [...this.records.values()]
      .filter(
        (record) =>
          record.tenant === tenant &&
          record.agentClass === agentClass &&
          record.state === "queued" &&
          record.notBefore !== undefined,
      )
      .map((record) => [`${record.agentId}#${record.operationId}`, record] as [string, OperationRecord]);
    return pageOf(entries, page);
  }

  async list(tenant: string, query: OperationQuery) {
    this.calls++;
    // One agent's operations are a partition of their own; a state narrows the page once read.
    const entries = [...this.records.values()]
      .filter(
        (record) =>
          record.tenant === tenant && (query.agentId === undefined || record.agentId === query.agentId),
      )
      .map((record) => [record.operationId, record] as [string, OperationRecord]);
    return pageOf(
      entries,
      { limit: query.limit, after: query.after, descending: true },
      (record) => query.state === undefined || record.state === query.state,
    );
  }
}
