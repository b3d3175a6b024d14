/**
 * Operations for every agent a selector picks, with no cap: the selection is read, drafted and queued a step
 * of agents at a time, each step's writes, events and pending markers together. Plain decisions here:
 * console-operations.ts and console-resource-sets.ts read each step and queue what these keep.
 */
import { operationView } from "./drafts.js";
import type { OperationRecord } from "./model.js";
import type { OperationDraft, Refusal } from "./queue.js";
import { allListed, noneSkipped, type SkippedAgent, type SkippedAgents, withSkipped } from "./skipped.js";

/** Agents one step of a selection reads, drafts and queues at once; their events are published together. */
export const AGENTS_PER_SELECTION_STEP = 1_000;

/** Operations (and agents skipped) an answer lists; it counts the rest. */
export const MAX_LISTED = AGENTS_PER_SELECTION_STEP;

/** A step of a selection: its agents, and the agent id to read on after, absent at the end. */
export interface SelectedAgents {
  items: { agentId: string }[];
  next?: string;
}

/** What a selection created and skipped so far; only the first MAX_LISTED of each are kept. */
export interface SelectionProgress {
  created: number;
  listed: OperationRecord[];
  skipped: SkippedAgents;
  /** The first failure to put a step's events on the stream. */
  streamError?: unknown;
}

export const noSelection: SelectionProgress = { created: 0, listed: [], skipped: noneSkipped };

/**
 * The drafts of the agents that can take all of theirs: an agent refused one (its SYNC RESOURCE, say) is
 * skipped whole, so that no operation of it waits for one never created.
 */
export function draftsTaken(drafts: OperationDraft[], refused: Refusal[]): OperationDraft[] {
  const skipped = new Set(refused.map(({ draft }) => draft.agent.agentId));
  return drafts.filter((draft) => !skipped.has(draft.agent.agentId));
}

/** The agents the refusals name, each once, with why. */
export const skippedOf = (refused: Refusal[]): SkippedAgent[] =>
  [...new Map(refused.map(({ draft, reason }) => [draft.agent.agentId, reason])).entries()].map(
    ([agentId, reason]) => ({ agentId, reason }),
  );

/** The progress after a step that queued `records` and skipped the agents `refused` names. */
export function selectionAfter(
  progress: SelectionProgress,
  step: { records: OperationRecord[]; refused: Refusal[]; streamError?: unknown },
): SelectionProgress {
  return {
    created: progress.created + step.records.length,
    listed: [...progress.listed, ...step.records.slice(0, MAX_LISTED - progress.listed.length)],
    skipped: withSkipped(progress.skipped, skippedOf(step.refused), MAX_LISTED),
    streamError: progress.streamError ?? step.streamError,
  };
}

/** Whether the answer's lists hold every operation created and every agent skipped. */
const listsAll = (progress: SelectionProgress) =>
  progress.created === progress.listed.length && allListed(progress.skipped);

/** How many operations were created and agents skipped, where the lists do not hold them all. */
const countsBeyondLists = (progress: SelectionProgress) =>
  listsAll(progress) ? {} : { created: progress.created, skippedCount: progress.skipped.count };

/**
 * POST /operations' answer for a selection: its operations as ever when no agent was skipped and all fit the
 * list; otherwise the first ones listed, the agents later steps skipped, and how many there were of each.
 */
export function createdOperationsBody(progress: SelectionProgress) {
  const items = progress.listed.map(operationView);
  return progress.skipped.count === 0 && listsAll(progress)
    ? { items }
    : { items, skipped: progress.skipped.listed, ...countsBeyondLists(progress) };
}

/** A resource set's push: the SYNC RESOURCE queued and the agents skipped, counted beyond the lists. */
export const pushedBody = (progress: SelectionProgress) => ({
  operations: progress.listed.map(operationView),
  skipped: progress.skipped.listed,
  ...countsBeyondLists(progress),
});
