import { describe, expect, it } from "vitest";
import { emptyCounts } from "../../functions/core/rollouts/model.js";
import type { components } from "../src/api/schema.js";
import { batchSeconds, describeBatch, rolloutProgress } from "../src/rollout-progress.js";

type Schemas = components["schemas"];

const START = Date.parse("2026-11-30T10:00:00Z");
const counts = (changes: Partial<Schemas["RolloutCounts"]> = {}): Schemas["RolloutCounts"] => ({
  ...emptyCounts(),
  ...changes,
});
const plan: Schemas["RolloutPlan"] = {
  canary: { count: 1 },
  batchSize: 4,
  batchIntervalSeconds: 10,
  soakSeconds: 30,
  failureThreshold: { count: 1 },
  onFailure: "pause",
};

describe("a batch's expected time", () => {
  it("is the sweeper's pace, not the plan's interval, when the sweeper runs less often than batches are planned", () => {
    // The rollout: "batches of 4 every 10 s" took about 2 minutes a batch on a 60 s sweeper.
    expect(batchSeconds(plan, 60, 10)).toBe(120);
    // A 2 s sweeper: two heartbeats of 2 s (the update, then the new flow reported), then a 30 s soak.
    expect(batchSeconds(plan, 2, 2)).toBe(4 + 30);
    // A plan whose interval is longer than the health wait keeps its interval, rounded up to a run.
    expect(batchSeconds({ batchIntervalSeconds: 300, soakSeconds: 0 }, 60, 10)).toBe(300);
    expect(batchSeconds({ batchIntervalSeconds: 0, soakSeconds: 0 }, 60, 90)).toBe(180 + 60);
  });
});

describe("a rollout's progress per batch", () => {
  it("counts each started batch's agents by where they stand, an updating one on the new version as applied", () => {
    const rollout = {
      state: "rolling" as const,
      plan,
      classSize: 11,
      canarySize: 1,
      batches: 2,
      lastBatchAt: new Date(START).toISOString(),
      exhausted: false,
      counts: counts({ selected: 5, skipped: 1 }),
      sweeperIntervalSeconds: 60,
    };
    const progress = rolloutProgress(
      rollout,
      [
        { batch: 0, state: "healthy" },
        { batch: 1, state: "healthy" },
        { batch: 1, state: "soaking" },
        { batch: 1, state: "updating", runsNewVersion: true },
        { batch: 1, state: "updating", runsNewVersion: false },
      ],
      10,
      START + 30_000,
    );
    expect(progress.batchSeconds).toBe(120);
    expect(progress.skipped).toBe(1);
    expect(progress.batches.map((batch) => [batch.batch, batch.size, batch.counts])).toEqual([
      [0, 1, { done: 1, applied: 0, updating: 0, failed: 0, rolledBack: 0, toCome: 0 }],
      [1, 4, { done: 1, applied: 2, updating: 1, failed: 0, rolledBack: 0, toCome: 0 }],
      // 11 agents, 5 selected, 1 passed over: 5 to come, in a batch of 4 and one of 1.
      [2, 4, { done: 0, applied: 0, updating: 0, failed: 0, rolledBack: 0, toCome: 4 }],
      [3, 1, { done: 0, applied: 0, updating: 0, failed: 0, rolledBack: 0, toCome: 1 }],
    ]);
    // The next batch starts a batch's time after the last one did, the one after a batch's time later.
    expect(progress.batches[2]?.expectedStart).toBe(START + 120_000);
    expect(progress.batches[3]?.expectedStart).toBe(START + 240_000);
    expect(progress.expectedEnd).toBe(START + 360_000);
    expect(describeBatch(progress.batches[1] as never)).toBe(
      "batch 1: 1 done, 2 on the new version, soaking, 1 updating",
    );
    expect(describeBatch(progress.batches[2] as never)).toBe("batch 2: 4 to come");
  });

  it("expects an overdue batch at the sweeper's next run, and none while the rollout is paused or over", () => {
    const rollout = {
      state: "canary" as const,
      plan,
      classSize: 3,
      canarySize: 1,
      batches: 1,
      lastBatchAt: new Date(START).toISOString(),
      exhausted: false,
      counts: counts({ selected: 1 }),
      sweeperIntervalSeconds: 60,
    };
    const members = [{ batch: 0, state: "failed" as const }];
    const late = rolloutProgress(rollout, members, 10, START + 600_000);
    expect(late.batches[1]).toMatchObject({ batch: 1, size: 2, expectedStart: START + 660_000 });
    expect(late.batches[0]?.counts.failed).toBe(1);
    const paused = rolloutProgress({ ...rollout, state: "paused" }, members, 10, START);
    expect(paused.batches[1]?.expectedStart).toBeUndefined();
    expect(paused.expectedEnd).toBeUndefined();
  });

  it("plans the canary and the batches of a rollout that has not started one yet", () => {
    const waiting = {
      state: "scheduled" as const,
      plan,
      classSize: 6,
      canarySize: 2,
      batches: 0,
      exhausted: false,
      counts: counts(),
      sweeperIntervalSeconds: 60,
    };
    const progress = rolloutProgress(waiting, [], 10, START);
    expect(progress.batches.map((batch) => [batch.batch, batch.size, batch.expectedStart])).toEqual([
      [0, 2, undefined],
      [1, 4, undefined],
    ]);
    expect(describeBatch(progress.batches[0] as never)).toBe("canary: 2 to come");
  });
});
