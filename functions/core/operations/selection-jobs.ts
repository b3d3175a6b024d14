/**
 * A selection the request could not finish within its time budget, kept as a job the sweeper continues a
 * step at a time. Plain decisions here: console-operations.ts reads and queues each step, the store keeps
 * the job, and a step retried after a crash makes the same operation ids (selectionOperationId).
 */
import { dropUndefined } from "../json.js";
import { toIso } from "../paging.js";
import type { IdGenerator } from "../ports.js";
import type { OperationRequest } from "./drafts.js";
import { operationIdOf } from "./ids.js";
import type { SelectionProgress } from "./selection.js";
import { type SkippedAgent, skippedView, withSkipped } from "./skipped.js";

export type SelectionJobState = "running" | "done" | "failed";

/** The skipped agents a job keeps named; it counts the rest. */
const MAX_KEPT_SKIPPED = 100;

/** A selection under way: the request, where its agent list is read on from, and what it did so far. */
export interface SelectionJob {
  tenant: string;
  /** `sel-<creation time>-<random>`: sorts by creation time, and names the operations it creates. */
  selectionId: string;
  request: OperationRequest & { selector: NonNullable<OperationRequest["selector"]> };
  createdBy: string;
  createdAt: number;
  updatedAt: number;
  state: SelectionJobState;
  /** The agent id the next step reads on after; absent once done. */
  cursor?: string;
  created: number;
  skippedCount: number;
  /** The first agents skipped, each with why. */
  skipped: SkippedAgent[];
  /** Why the job stopped before its end, when it failed. */
  error?: string;
}

/** A selection begun now: its id, of its time. */
export function newSelection(now: number, ids: IdGenerator) {
  return { selectionId: `sel-${String(now).padStart(13, "0")}-${ids.newId()}`, createdAt: now };
}

/**
 * The id of the operation a selection makes for an agent (or of the SYNC RESOURCE that operation waits for,
 * `prerequisite`): the same however often a step is run again, so a step retried finds it made already.
 */
export function selectionOperationId(selectionId: string, agentId: string, prerequisite = false): string {
  const ownPart = `op-${selectionId.slice("sel-".length)}${prerequisite ? "-sync" : ""}`;
  return operationIdOf(ownPart, agentId);
}

/** Whether a request that began at `startedAt` has spent its budget and must leave the rest to a job. */
export const budgetSpent = (startedAt: number, now: number, budgetMs: number): boolean =>
  now - startedAt >= budgetMs;

/** The job that continues a selection after `cursor`, with what the request did so far. */
export function runningJob(
  selection: { selectionId: string; createdAt: number },
  tenant: string,
  request: SelectionJob["request"],
  createdBy: string,
  progress: SelectionProgress,
  cursor: string,
  now: number,
): SelectionJob {
  return {
    tenant,
    ...selection,
    request,
    createdBy,
    updatedAt: now,
    state: "running",
    cursor,
    created: progress.created,
    skippedCount: progress.skipped.count,
    skipped: progress.skipped.listed.slice(0, MAX_KEPT_SKIPPED),
  };
}

/** The job after a step that queued `created` operations and skipped `skipped`, read on after `next`. */
export function jobAfterStep(
  job: SelectionJob,
  step: { created: number; skipped: SkippedAgent[] },
  next: string | undefined,
  now: number,
): SelectionJob {
  const { cursor: _cursor, ...rest } = job;
  return {
    ...rest,
    updatedAt: now,
    ...(next === undefined ? { state: "done" as const } : { cursor: next }),
    created: job.created + step.created,
    ...skippedView(
      withSkipped({ count: job.skippedCount, listed: job.skipped }, step.skipped, MAX_KEPT_SKIPPED),
    ),
  };
}

/** The job stopped for good: a step it cannot take, whatever the retry (its flow version gone, say). */
export function failedJob(job: SelectionJob, error: string, now: number): SelectionJob {
  const { cursor: _cursor, ...rest } = job;
  return { ...rest, updatedAt: now, state: "failed", error };
}

/** The job as the console shows it: `created` and `skippedCount` count, as POST /operations' answer does. */
export function selectionJobView(job: SelectionJob) {
  return dropUndefined({
    selectionId: job.selectionId,
    state: job.state,
    className: job.request.selector.agentClass,
    operation: job.request.operation,
    operand: job.request.operand,
    createdBy: job.createdBy,
    createdAt: toIso(job.createdAt),
    updatedAt: toIso(job.updatedAt),
    created: job.created,
    skippedCount: job.skippedCount,
    skipped: job.skipped,
    error: job.error,
  });
}
