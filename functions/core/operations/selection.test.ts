import { describe, expect, it } from "vitest";
import type { AgentRecord } from "../agents/ports.js";
import type { OperationRecord } from "./model.js";
import type { OperationDraft, Refusal } from "./queue.js";
import {
  createdOperationsBody,
  draftsTaken,
  MAX_LISTED,
  noSelection,
  pushedBody,
  type SelectionProgress,
  selectionAfter,
} from "./selection.js";

const agent = (agentId: string): AgentRecord => ({
  tenant: "acme",
  agentId,
  agentClass: "edge",
  firstSeen: 0,
  lastSeen: 0,
});

const record = (agentId: string): OperationRecord => ({
  tenant: "acme",
  agentId,
  operationId: `op-1~${agentId}`,
  operation: "DESCRIBE",
  operand: "MANIFEST",
  state: "queued",
  createdAt: 0,
  createdBy: "alice",
  agentClass: "edge",
});

const records = (count: number, from = 0) =>
  Array.from({ length: count }, (_, index) => record(`a-${from + index}`));

const refusal = (agentId: string, reason = "its manifest does not list it"): Refusal => ({
  draft: { agent: agent(agentId), operation: "DESCRIBE", operand: "MANIFEST" },
  reason,
});

describe("a selection's steps", () => {
  it("skips every draft of an agent refused one of them, so nothing waits for an operation never made", () => {
    const sync: OperationDraft = { agent: agent("a-1"), operation: "SYNC", operand: "RESOURCE" };
    const update: OperationDraft = { agent: agent("a-1"), operation: "UPDATE", operand: "CONFIGURATION" };
    const other: OperationDraft = { agent: agent("a-2"), operation: "UPDATE", operand: "CONFIGURATION" };
    expect(draftsTaken([sync, update, other], [{ draft: sync, reason: "no" }])).toEqual([other]);
  });

  it("counts every step's operations and skipped agents, listing only the first ones", () => {
    let progress: SelectionProgress = noSelection;
    for (let step = 0; step < 3; step++)
      progress = selectionAfter(progress, {
        records: records(MAX_LISTED - 1, step * MAX_LISTED),
        refused: [refusal(`b-${step}`), refusal(`b-${step}`, "a second draft of it")],
      });
    expect(progress.created).toBe(3 * (MAX_LISTED - 1));
    expect(progress.listed).toHaveLength(MAX_LISTED);
    expect(progress.listed.at(-1)?.agentId).toBe(`a-${MAX_LISTED}`);
    expect(progress.skipped.count).toBe(3);
    expect(progress.skipped.listed.map(({ agentId }) => agentId)).toEqual(["b-0", "b-1", "b-2"]);
  });

  it("keeps the first step's stream failure", () => {
    const first = new Error("first");
    const progress = [first, undefined, new Error("later")].reduce<SelectionProgress>(
      (sofar, streamError) => selectionAfter(sofar, { records: records(1), refused: [], streamError }),
      noSelection,
    );
    expect(progress.streamError).toBe(first);
  });
});

describe("a selection's answer", () => {
  it("is the operations alone while they all fit the list and no agent was skipped", () => {
    const body = createdOperationsBody(
      selectionAfter(noSelection, { records: records(MAX_LISTED), refused: [] }),
    );
    expect(Object.keys(body)).toEqual(["items"]);
    expect(body.items).toHaveLength(MAX_LISTED);
  });

  it("counts what the lists do not hold, and names the agents skipped", () => {
    const progress = [records(MAX_LISTED), records(5, MAX_LISTED)].reduce<SelectionProgress>(
      (sofar, step, at) =>
        selectionAfter(sofar, { records: step, refused: at === 1 ? [refusal("b-1")] : [] }),
      noSelection,
    );
    expect(createdOperationsBody(progress)).toMatchObject({
      created: MAX_LISTED + 5,
      skippedCount: 1,
      skipped: [{ agentId: "b-1", reason: "its manifest does not list it" }],
    });
    expect(createdOperationsBody(progress).items).toHaveLength(MAX_LISTED);
    expect(pushedBody(progress)).toMatchObject({ created: MAX_LISTED + 5, skippedCount: 1 });
  });

  it("names the skipped agents of a push without counts when the lists hold them all", () => {
    const progress = selectionAfter(noSelection, { records: records(2), refused: [refusal("b-1")] });
    expect(Object.keys(pushedBody(progress))).toEqual(["operations", "skipped"]);
    expect(createdOperationsBody(progress)).toMatchObject({ skipped: [{ agentId: "b-1" }] });
  });
});
