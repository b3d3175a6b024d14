import type { OperationChange, OperationRecord, OperationState } from "./model.js";

/** Filters of a tenant-wide operation list. */
export interface OperationQuery {
  state?: OperationState;
  agentId?: string;
  limit: number;
  /** Operation id of the last item already returned; lists run newest first. */
  after?: string;
}

/** Operations, per agent, in the registry. Every state change is conditional on the state it leaves. */
export interface OperationStore {
  /** Writes new operations (queued); an id that exists already is an error. */
  create(operations: OperationRecord[]): Promise<void>;
  /** Read consistently: an acknowledgement or a console request sees every change made before it. */
  get(tenant: string, agentId: string, operationId: string): Promise<OperationRecord | undefined>;
  /** The agent's open operations (queued, delivered, awaiting their effect), read consistently in one request. */
  open(tenant: string, agentId: string): Promise<OperationRecord[]>;
  /** Applies the change only if the operation is still `from`; false otherwise (a duplicate, a race). */
  transition(operation: OperationRecord, from: OperationState, change: OperationChange): Promise<boolean>;
  list(tenant: string, query: OperationQuery): Promise<{ items: OperationRecord[]; last?: string }>;
  /**
   * Open operations of every tenant whose `dueAt` is at or before `time`, oldest first, read page by page
   * as the caller consumes them. They come from an index that may lag the operations: read one again
   * before acting on it.
   */
  due(time: number): AsyncIterable<OperationRecord>;
}
