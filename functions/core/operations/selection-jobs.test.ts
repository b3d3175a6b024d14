import { describe, expect, it } from "vitest";
import {
  consoleHarness as harness,
  SELECTION_BUDGET_MS,
} from "../../../scripts/test-support/console-harness.js";
import type { Principal } from "../identity/principal.js";
import { agentOfOperation, isValidOperationId } from "./ids.js";
import {
  budgetSpent,
  failedJob,
  jobAfterStep,
  newSelection,
  type SelectionJob,
  selectionOperationId,
} from "./selection-jobs.js";

const START = Date.UTC(2026, 10, 29);
const job: SelectionJob = {
  tenant: "acme",
  selectionId: `sel-${START}-abc`,
  request: { operation: "DESCRIBE", operand: "MANIFEST", selector: { agentClass: "pumps" } },
  createdBy: "alice",
  createdAt: START,
  updatedAt: START,
  state: "running",
  cursor: "a-999",
  created: 990,
  skippedCount: 10,
  skipped: Array.from({ length: 10 }, (_, index) => ({ agentId: `a-${index}`, reason: "no" })),
};

describe("selection jobs' decisions", () => {
  it("name a selection by its time, and each of its operations by the selection and the agent", () => {
    const { selectionId } = newSelection(START, { newId: () => "abc" });
    expect(selectionId).toBe(`sel-${START}-abc`);
    const id = selectionOperationId(selectionId, "pump-7");
    expect(id).toBe(`op-${START}-abc~pump-7`);
    expect(selectionOperationId(selectionId, "pump-7")).toBe(id);
    const prerequisite = selectionOperationId(selectionId, "pump-7", true);
    expect(prerequisite).not.toBe(id);
    for (const made of [id, prerequisite]) {
      expect(isValidOperationId(made)).toBe(true);
      expect(agentOfOperation(made)).toBe("pump-7");
    }
  });

  it("spend the budget once its time has passed since the request began", () => {
    expect(budgetSpent(START, START + 14_999, 15_000)).toBe(false);
    expect(budgetSpent(START, START + 15_000, 15_000)).toBe(true);
  });

  it("count each step, keep the first 100 skipped, and end the job with the selection", () => {
    const skipped = Array.from({ length: 95 }, (_, index) => ({ agentId: `b-${index}`, reason: "no" }));
    const stepped = jobAfterStep(job, { created: 905, skipped }, "a-1999", START + 1);
    expect(stepped).toMatchObject({ state: "running", cursor: "a-1999", created: 1895, skippedCount: 105 });
    expect(stepped.skipped).toHaveLength(100);
    const done = jobAfterStep(stepped, { created: 1, skipped: [] }, undefined, START + 2);
    expect(done).toMatchObject({ state: "done", created: 1896, updatedAt: START + 2 });
    expect(done.cursor).toBeUndefined();
    const failed = failedJob(stepped, "No such flow version", START + 3);
    expect(failed).toMatchObject({ state: "failed", error: "No such flow version", created: 1895 });
    expect(failed.cursor).toBeUndefined();
  });
});

describe("a selection past its budget", () => {
  const operator: Principal = { tenant: "acme", role: "operator", subject: "alice" };
  const AGENTS = 2_500;

  /** A fleet of pumps whose registry reads take the budget whole: the request queues one step, then stops. */
  function slowFleet() {
    const fixture = harness();
    for (let index = 0; index < AGENTS; index++)
      fixture.agent("acme", `a-${String(index).padStart(4, "0")}`, "pumps", 0);
    const getMany = fixture.registry.getMany.bind(fixture.registry);
    fixture.registry.getMany = async (tenant, agentIds) => {
      fixture.clock.advance(SELECTION_BUDGET_MS);
      return getMany(tenant, agentIds);
    };
    return fixture;
  }
  const describeAll = { operation: "DESCRIBE", operand: "MANIFEST", selector: { agentClass: "pumps" } };
  const agentsWithOperations = (fixture: ReturnType<typeof harness>) =>
    [...fixture.operations.records.values()].map((record) => record.agentId);

  it("answers 202 with a job the sweeper continues a bounded number of steps a run, to one operation per agent", async () => {
    const fixture = slowFleet();
    const { api, selectionJobs } = fixture;
    const answer = await api.operations.create(operator, describeAll);
    expect(answer.status).toBe(202);
    const { selectionId } = answer.body as { selectionId: string };
    expect(answer.body).toMatchObject({
      state: "running",
      created: 1_000,
      skippedCount: 0,
      className: "pumps",
    });
    expect(agentsWithOperations(fixture)).toHaveLength(1_000);

    const bounded = await api.operations.continueSelections(Number.POSITIVE_INFINITY, 1);
    expect(bounded).toMatchObject({ steps: 1, done: 0, deferred: 1, errors: [] });
    expect((await selectionJobs.get("acme", selectionId))?.created).toBe(2_000);
    const rest = await api.operations.continueSelections(Number.POSITIVE_INFINITY, 10);
    expect(rest).toMatchObject({ steps: 1, done: 1, deferred: 0, errors: [] });

    const agents = agentsWithOperations(fixture);
    expect(agents).toHaveLength(AGENTS);
    expect(new Set(agents).size).toBe(AGENTS);
    expect((await api.operations.selection(operator, selectionId)).body).toMatchObject({
      state: "done",
      created: AGENTS,
      skippedCount: 0,
    });
    await expect(
      api.operations.selection({ ...operator, tenant: "other" }, selectionId),
    ).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("makes no second operation for a step run again, as after a crash before the step was written", async () => {
    const fixture = slowFleet();
    const { api, selectionJobs } = fixture;
    const { selectionId } = (await api.operations.create(operator, describeAll)).body as {
      selectionId: string;
    };
    const leftToTheJob = (await selectionJobs.get("acme", selectionId)) as SelectionJob;
    await api.operations.continueSelections(Number.POSITIVE_INFINITY, 10);
    const events = fixture.events.events.length;

    selectionJobs.jobs.set(`acme/${selectionId}`, leftToTheJob);
    expect(await api.operations.continueSelections(Number.POSITIVE_INFINITY, 10)).toMatchObject({ done: 1 });
    expect(agentsWithOperations(fixture)).toHaveLength(AGENTS);
    // The operations a former run made are kept as they were, their events not published again.
    expect(fixture.events.events).toHaveLength(events);
    expect((await selectionJobs.get("acme", selectionId))?.created).toBe(AGENTS);
  });
});
