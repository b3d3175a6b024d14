import type { OperationEvent, OperationState } from "../events/model.js";
import type { Page, PageRequest } from "../paging.js";
import type { OperationChange, OperationRecord } from "./model.js";
import type { SelectionJob } from "./selection-jobs.js";

/** What creating an operation whose id exists does: fail (`refuse`), or keep the stored one as done (`keep`). */
export type ExistingOperations = "refuse" | "keep";

/** Filters of a tenant-wide operation list. */
export interface OperationQuery {
  state?: OperationState;
  agentId?: string;
  limit: number;
  /** Operation id of the last item already returned; lists run newest first. */
  after?: string;
}

/**
 * Operations, per agent, in the registry. Every state change is conditional on the state it leaves, and is
 * written together with the event that records it, staged in the event outbox (events/ports.ts).
 */
export interface OperationStore {
  /**
   * Writes new operations (queued), each with its event of `events` (by operation id), and returns the ids it
   * wrote. An id that exists already is an error, unless `existing` is `keep`: then the stored operation is
   * kept as it is, its event not staged again, as one a retried step made already.
   */
  create(
    operations: OperationRecord[],
    events?: OperationEvent[],
    options?: { existing?: ExistingOperations },
  ): Promise<string[]>;
  /** Read consistently: an acknowledgement or a console request sees every change made before it. */
  get(tenant: string, agentId: string, operationId: string): Promise<OperationRecord | undefined>;
  /** The agent's open operations (queued, delivered, awaiting their effect), read consistently in one request. */
  open(tenant: string, agentId: string): Promise<OperationRecord[]>;
  /**
   * Applies the change, with its event when it has one, only if the operation is still `from`; false
   * otherwise (a duplicate, a race), and then the event is not staged either.
   */
  transition(
    operation: OperationRecord,
    from: OperationState,
    change: OperationChange,
    event?: OperationEvent,
  ): Promise<boolean>;
  list(tenant: string, query: OperationQuery): Promise<{ items: OperationRecord[]; last?: string }>;
  /**
   * Open operations of every tenant whose `dueAt` is at or before `time`, oldest first, read page by page
   * as the caller consumes them. They come from an index that may lag the operations: read one again
   * before acting on it.
   */
  due(time: number): AsyncIterable<OperationRecord>;
  /**
   * One page of the queued operations of the class's agents that were held for maintenance windows (those
   * with a `notBefore`, released or not), by agent and id, from an index that may lag the operations: what a
   * change of windows makes follow it. An operation leaves it once it leaves queued.
   */
  held(tenant: string, agentClass: string, page: PageRequest): Promise<Page<OperationRecord>>;
}

/**
 * The answers DESCRIBE acknowledgements brought (results.ts), one per operation, under its tenant: the agent
 * API puts them, the console reads them. The store deletes them itself some days later (its lifecycle).
 */
export interface OperationResultStore {
  put(tenant: string, operationId: string, bytes: Uint8Array): Promise<void>;
  /** Undefined once it is gone (never kept, or deleted by the lifecycle). */
  read(tenant: string, operationId: string): Promise<Uint8Array | undefined>;
}

/** Where a selection job is kept: its tenant and id. */
export type SelectionJobKey = Pick<SelectionJob, "tenant" | "selectionId">;

/** Selection jobs by tenant and id; each step's write is conditional on the cursor the step read on after. */
export interface SelectionJobStore {
  create(job: SelectionJob): Promise<void>;
  get(tenant: string, selectionId: string): Promise<SelectionJob | undefined>;
  /** Writes the job as a step left it if the stored one is still running at `cursor`; false, writing nothing, otherwise. */
  advance(job: SelectionJob, cursor: string): Promise<boolean>;
  /** Every tenant's running jobs, oldest first: what the sweeper continues. */
  running(): AsyncIterable<SelectionJobKey>;
}
