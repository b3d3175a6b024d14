import { describe, expect, it } from "vitest";
import type { AgentRecord } from "../agents/ports.js";
import type { HotAgentState } from "../fleet/ports.js";
import type { OperationRecord } from "../operations/model.js";
import {
  aborted,
  afterBatch,
  afterRollbackLook,
  approval,
  batchMembers,
  type ClassTiming,
  candidateOf,
  finishLook,
  gateOf,
  isDue,
  lookStep,
  memberChange,
  newRollout,
  paused,
  refusal,
  resumed,
  rollbackTargets,
  rolloutEvent,
  startedRollout,
  startPolicy,
  tally,
  updateRecords,
  watchedOperationId,
} from "./decisions.js";
import { DEFAULT_ROLLOUT_PLAN, emptyCounts, type RolloutMember, type RolloutRecord } from "./model.js";

const NOW = 1_700_000_000_000;
const SECOND = 1_000;
const HOUR = 3_600 * SECOND;
/** Online while seen within three 10 s heartbeats. */
const timing: ClassTiming = {
  status: { heartbeatIntervalSeconds: 10, registryLagMs: 0 },
  ackTimeoutMs: 60_000,
};

const rollout: RolloutRecord = newRollout(
  { tenant: "acme", className: "pumps", toFlow: "new", plan: DEFAULT_ROLLOUT_PLAN, createdBy: "ops" },
  { fromFlow: "old", classSize: 40 },
  "ro-1",
  NOW - 600 * SECOND,
);

const member = (state: RolloutMember["state"], more: Partial<RolloutMember> = {}): RolloutMember => ({
  tenant: "acme",
  rolloutId: "ro-1",
  agentId: `a-${state}`,
  batch: 0,
  state,
  operationId: "op-update",
  selectedAt: NOW - 300 * SECOND,
  ...more,
});

const update = (more: Partial<OperationRecord>): OperationRecord => ({
  tenant: "acme",
  agentId: "a-1",
  operationId: "op-update",
  operation: "UPDATE",
  operand: "CONFIGURATION",
  state: "done",
  createdAt: NOW - 300 * SECOND,
  createdBy: "beacon:rollout:ro-1",
  ...more,
});

const onNew: HotAgentState = { flowId: "new", lastSeen: NOW };

describe("a new rollout", () => {
  it("starts in its canary, sized from the class, with both versions accepted and the previous one the target", () => {
    expect(rollout).toMatchObject({ state: "canary", canarySize: 2, classSize: 40, batches: 0, version: 1 });
    expect(startPolicy("old", "new", timing)).toEqual({
      target: "old",
      accepted: ["old", "new"],
      ackTimeoutMs: 60_000,
    });
    expect(startPolicy(undefined, "new", timing)).toBeUndefined();
  });
});

describe("a member's health", () => {
  it("waits on its update, and fails when the update is gone, failed or not fully applied", () => {
    const updating = member("updating");
    expect(watchedOperationId(updating)).toBe("op-update");
    expect(
      memberChange(rollout, updating, update({ state: "delivered" }), onNew, timing, NOW),
    ).toBeUndefined();
    expect(memberChange(rollout, updating, undefined, onNew, timing, NOW)).toMatchObject({
      state: "failed",
      reason: "Its update operation is gone",
    });
    expect(
      memberChange(
        rollout,
        updating,
        update({ state: "failed", ackState: "NOT_APPLIED", failureCause: "no processor" }),
        onNew,
        timing,
        NOW,
      ),
    ).toEqual({
      state: "failed",
      settledAt: NOW,
      failedAt: NOW,
      reason: "Acknowledged NOT_APPLIED: no processor",
    });
    expect(
      memberChange(rollout, updating, update({ state: "timed_out", reason: "late" }), onNew, timing, NOW)
        ?.reason,
    ).toBe("The operation timed out: late");
  });

  it("soaks once the agent reports the new flow, and fails when it still reports another one too long after", () => {
    const applied = update({ ackState: "FULLY_APPLIED", finishedAt: NOW - 5 * SECOND });
    expect(memberChange(rollout, member("updating"), applied, onNew, timing, NOW)).toEqual({
      state: "soaking",
      soakingSince: NOW,
    });
    const stillOld = { flowId: "old", lastSeen: NOW };
    expect(memberChange(rollout, member("updating"), applied, stillOld, timing, NOW)).toBeUndefined();
    const longAgo = update({ ackState: "FULLY_APPLIED", finishedAt: NOW - 31 * SECOND });
    expect(memberChange(rollout, member("updating"), longAgo, stillOld, timing, NOW)?.reason).toBe(
      "Acknowledged FULLY_APPLIED but reports flow old",
    );
  });

  it("is healthy after soaking on the new flow, and fails on another flow, a new ERROR bulletin or silence", () => {
    const soaking = member("soaking", { soakingSince: NOW - 120 * SECOND });
    expect(watchedOperationId(soaking)).toBeUndefined();
    expect(memberChange(rollout, soaking, undefined, onNew, timing, NOW)).toEqual({
      state: "healthy",
      settledAt: NOW,
    });
    expect(
      memberChange(rollout, { ...soaking, soakingSince: NOW - 60 * SECOND }, undefined, onNew, timing, NOW),
    ).toBeUndefined();
    expect(
      memberChange(rollout, soaking, undefined, { flowId: "old", lastSeen: NOW }, timing, NOW)?.reason,
    ).toBe("Reports flow old after the update");
    const bulletins = [
      { level: "ERROR", timestamp: NOW - 400 * SECOND, message: "before the update" },
      { level: "WARN", timestamp: NOW - 10 * SECOND, message: "only a warning" },
      { level: "error", timestamp: NOW - 20 * SECOND, sourceName: "PutFile", message: "disk full" },
    ];
    expect(memberChange(rollout, soaking, undefined, { ...onNew, bulletins }, timing, NOW)?.reason).toBe(
      "ERROR bulletin from PutFile: disk full",
    );
    expect(
      memberChange(rollout, soaking, undefined, { flowId: "new", lastSeen: NOW - 31 * SECOND }, timing, NOW),
    ).toMatchObject({ state: "failed", reason: "Stopped heartbeating (silent 31 s)" });
  });

  it("is back once its rollback is done, and failed to be when the rollback failed", () => {
    const rollingBack = member("rolling_back", { rollbackOperationId: "op-back" });
    expect(watchedOperationId(rollingBack)).toBe("op-back");
    expect(
      memberChange(rollout, rollingBack, update({ state: "queued" }), undefined, timing, NOW),
    ).toBeUndefined();
    expect(memberChange(rollout, rollingBack, update({ state: "done" }), undefined, timing, NOW)).toEqual({
      state: "rolled_back",
      settledAt: NOW,
    });
    expect(
      memberChange(
        rollout,
        rollingBack,
        update({ state: "failed", ackState: "NOT_APPLIED" }),
        undefined,
        timing,
        NOW,
      ),
    ).toEqual({ state: "rollback_failed", settledAt: NOW, reason: "The rollback: Acknowledged NOT_APPLIED" });
  });
});

describe("a member of a rollout of a version that declares parameters", () => {
  it("is sent its own rendering's flow id, and counts as updated once it reports that id", () => {
    const updates = updateRecords(
      rollout,
      "new",
      new Map([
        ["a-7", "r-7"],
        ["a-8", "new"],
      ]),
      {
        timing,
        now: NOW,
        ids: { newId: () => "id" },
        agentApiUrl: "https://agents.test",
      },
    );
    expect(updates.map((record) => record.args)).toEqual([
      { location: "https://agents.test/c2/api/agents/a-7/flows/new/content", flowId: "r-7", persist: "true" },
      { location: "https://agents.test/c2/api/flows/new/content", flowId: "new", persist: "true" },
    ]);
    const [rendered, plain] = batchMembers(
      rollout,
      [{ agentId: "a-7", flowId: "old" }, { agentId: "a-8" }],
      updates,
      NOW,
    );
    expect(rendered).toMatchObject({ previousFlowId: "old", newFlowId: "r-7" });
    expect(plain?.newFlowId).toBeUndefined();
    const applied = update({ ackState: "FULLY_APPLIED", finishedAt: NOW });
    const updating = rendered as RolloutMember;
    expect(memberChange(rollout, updating, applied, { flowId: "r-7", lastSeen: NOW }, timing, NOW)).toEqual({
      state: "soaking",
      soakingSince: NOW,
    });
    expect(memberChange(rollout, updating, applied, onNew, timing, NOW)).toBeUndefined();
    const soaking = { ...updating, state: "soaking" as const, soakingSince: NOW };
    expect(memberChange(rollout, soaking, undefined, onNew, timing, NOW)?.reason).toBe(
      "Reports flow new after the update",
    );
  });
});

describe("the agents a batch may take", () => {
  const takesUpdates = {
    hash: "m-hot",
    manifestId: "b".repeat(64),
    supportedOperations: [{ type: "update", properties: { configuration: {} } }] as unknown[],
  };
  const agent: AgentRecord = {
    tenant: "acme",
    agentId: "a-1",
    agentClass: "pumps",
    manifestHash: "m-registry",
    manifest: takesUpdates,
    flowId: "old",
    firstSeen: NOW - 86_400_000,
    lastSeen: NOW - 3_600_000,
  };

  it("are online, not on the new version, and take UPDATE CONFIGURATION, as the cache knows them over the registry", () => {
    const hot = { lastSeen: NOW, manifestHash: "m-hot" };
    expect(candidateOf(rollout, agent, hot, timing, NOW)).toEqual({ agentId: "a-1", flowId: "old" });
    expect(candidateOf(rollout, agent, undefined, timing, NOW)).toBeUndefined();
    expect(candidateOf(rollout, agent, { ...hot, flowId: "new" }, timing, NOW)).toBeUndefined();
  });

  it("are passed over while pinned to a flow version, whichever it is", () => {
    const hot = { lastSeen: NOW, manifestHash: "m-hot" };
    const pin = { flowHash: "old", flowIds: ["old"], pinnedAt: NOW - 1, pinnedBy: "ops" };
    expect(candidateOf(rollout, { ...agent, pin }, hot, timing, NOW)).toBeUndefined();
    const toTheNew = { ...pin, flowHash: "other", flowIds: ["other"] };
    expect(candidateOf(rollout, { ...agent, pin: toTheNew }, hot, timing, NOW)).toBeUndefined();
  });

  it("are passed over while their manifest is unknown or does not list UPDATE CONFIGURATION", () => {
    const hot = { lastSeen: NOW, manifestHash: "m-unknown" };
    expect(candidateOf(rollout, agent, hot, timing, NOW)).toBeUndefined();
    const describesOnly = { ...takesUpdates, supportedOperations: [{ type: "describe", properties: {} }] };
    expect(
      candidateOf(
        rollout,
        { ...agent, manifest: describesOnly },
        { ...hot, manifestHash: "m-hot" },
        timing,
        NOW,
      ),
    ).toBeUndefined();
  });
});

describe("a look's next step", () => {
  const canary = { ...rollout, batches: 1, lastBatchAt: NOW - 60 * SECOND };
  const healthy = [member("healthy"), member("healthy", { agentId: "a-2" })];

  it("starts the canary at once, and the next batch once the canary is healthy and the pace allows", () => {
    expect(lookStep(rollout, [], timing, NOW)).toMatchObject({ next: "batch", size: 2 });
    const step = lookStep(canary, healthy, timing, NOW);
    expect(step).toMatchObject({ next: "batch", size: 100, rollout: { state: "rolling" } });
    expect(step.rollout.settled).toEqual({ ...emptyCounts(), selected: 2, healthy: 2 });
    expect(lookStep({ ...canary, lastBatchAt: NOW - 5 * SECOND }, healthy, timing, NOW)).toMatchObject({
      next: "wait",
      rollout: { state: "rolling" },
    });
    expect(lookStep(canary, [...healthy, member("soaking")], timing, NOW).next).toBe("wait");
  });

  it("completes once the class index is read to its end, bringing the class to the new version", () => {
    const step = lookStep({ ...canary, state: "rolling", exhausted: true }, healthy, timing, NOW);
    expect(step).toEqual({
      next: "complete",
      rollout: expect.objectContaining({ state: "completed", finishedAt: NOW }),
      policy: { target: "new", accepted: ["new"], ackTimeoutMs: 60_000 },
    });
  });

  it("rolls back at the failure threshold, or pauses when the plan says so or there is nothing to return to", () => {
    const failing = [member("healthy"), member("failed", { agentId: "a-2", failedAt: NOW })];
    expect(lookStep(canary, failing, timing, NOW)).toEqual({
      next: "roll back",
      rollout: expect.objectContaining({ state: "rolling_back", reason: "1 of 2 updated agents failed" }),
      policy: { target: "old", accepted: ["old"], ackTimeoutMs: 60_000 },
    });
    const pausing = { ...canary, plan: { ...canary.plan, onFailure: "pause" as const } };
    expect(lookStep(pausing, failing, timing, NOW)).toMatchObject({
      next: "wait",
      rollout: { state: "paused", resumeTo: "canary", reason: "1 of 2 updated agents failed" },
    });
    const { fromFlow: _none, ...first } = canary;
    expect(lookStep(first, failing, timing, NOW).rollout.reason).toBe(
      "1 of 2 updated agents failed; the class had no previous flow version to roll back to",
    );
  });

  it("starts no batch and does not complete while the class's window is closed, and waits for its opening", () => {
    const closed = { open: false, nextOpening: NOW + HOUR };
    expect(lookStep(rollout, [], timing, NOW, closed)).toEqual({
      next: "wait",
      rollout: expect.objectContaining({ state: "canary", batches: 0, waitingForWindow: NOW + HOUR }),
    });
    const done = { ...canary, state: "rolling" as const, exhausted: true };
    expect(lookStep(done, healthy, timing, NOW, closed)).toMatchObject({
      next: "wait",
      rollout: { state: "rolling", waitingForWindow: NOW + HOUR },
    });
    const waited = lookStep({ ...canary, waitingForWindow: NOW }, healthy, timing, NOW, { open: true });
    expect(waited.next).toBe("batch");
    expect(waited.rollout).not.toHaveProperty("waitingForWindow");
  });

  it("keeps the health gate and rolls back while the class's window is closed: a rollback is a safety action", () => {
    const closed = { open: false, nextOpening: NOW + HOUR };
    const failing = [member("healthy"), member("failed", { agentId: "a-2", failedAt: NOW })];
    expect(lookStep(canary, failing, timing, NOW, closed)).toMatchObject({
      next: "roll back",
      rollout: { state: "rolling_back" },
    });
    expect(lookStep(canary, [...healthy, member("soaking")], timing, NOW, closed).rollout).not.toHaveProperty(
      "waitingForWindow",
    );
  });

  it("counts failures a person accepted by resuming no more, and takes no step while paused", () => {
    const failing = [member("failed", { failedAt: NOW })];
    expect(lookStep({ ...canary, acceptedFailures: 1 }, failing, timing, NOW).next).toBe("batch");
    expect(lookStep({ ...canary, state: "paused" }, healthy, timing, NOW)).toMatchObject({
      next: "wait",
      rollout: { state: "paused" },
    });
  });
});

describe("a batch", () => {
  it("counts its members as updating over the batches before it, and moves the cursor on", () => {
    const settled = { ...emptyCounts(), selected: 2, healthy: 2, skipped: 1 };
    const started = afterBatch(
      { ...rollout, batches: 1, settled },
      { skipped: 3, cursor: "a-9", exhausted: true, memberCount: 5 },
      NOW,
    );
    expect(started).toMatchObject({ batches: 2, lastBatchAt: NOW, cursor: "a-9", exhausted: true });
    expect(started.settled).toEqual({ ...settled, skipped: 4 });
    expect(started.counts).toEqual({ ...settled, skipped: 4, selected: 7, updating: 5 });
  });
});

describe("a rollback", () => {
  it("returns at most a bound of members per look, none twice", () => {
    const members = [
      member("healthy"),
      member("rolling_back"),
      member("rolled_back"),
      member("rollback_failed"),
      member("failed"),
    ];
    expect(rollbackTargets(members).map((target) => target.state)).toEqual(["healthy", "failed"]);
    expect(rollbackTargets(Array.from({ length: 1_500 }, () => member("healthy")))).toHaveLength(1_000);
  });

  it("ends once every member is back or failed to be, aborted when a person aborted it", () => {
    const back = { ...rollout, state: "rolling_back" as const, settled: { ...emptyCounts(), skipped: 2 } };
    const returned = [member("rolled_back", { failedAt: NOW }), member("rollback_failed")];
    expect(afterRollbackLook(back, returned)).toMatchObject({
      state: "rolled_back",
      counts: { selected: 2, rolledBack: 1, rollbackFailed: 1, failed: 1, skipped: 2 },
    });
    expect(afterRollbackLook({ ...back, abortedBy: "ops" }, returned).state).toBe("aborted");
    expect(afterRollbackLook(back, [...returned, member("rolling_back")]).state).toBe("rolling_back");
  });

  it("keeps counting a member that failed among the failed once it is rolled back", () => {
    expect(tally([member("rolled_back", { failedAt: NOW }), member("rolled_back")])).toMatchObject({
      selected: 2,
      rolledBack: 2,
      failed: 1,
    });
  });
});

describe("what a look writes", () => {
  it("is nothing when only the time changed, and a new version otherwise, with the end of a final one", () => {
    expect(finishLook(rollout, { ...rollout }, NOW).unchanged).toBe(true);
    const counted = finishLook(rollout, { ...rollout, counts: { ...emptyCounts(), selected: 1 } }, NOW);
    expect(counted).toMatchObject({ unchanged: false, rollout: { version: 2, updatedAt: NOW } });
    expect(finishLook(rollout, { ...rollout, state: "completed" }, NOW).rollout.finishedAt).toBe(NOW);
    expect(() => finishLook(rollout, { ...rollout, state: "rolled_back" }, NOW)).toThrow(
      /No rollout transition/,
    );
  });
});

describe("a rollout that waits", () => {
  const HOUR = 3_600 * SECOND;
  const request = {
    tenant: "acme",
    className: "pumps",
    toFlow: "new",
    plan: DEFAULT_ROLLOUT_PLAN,
    createdBy: "ops",
    startAt: NOW + HOUR,
  };
  const awaiting = newRollout(request, { fromFlow: "old", classSize: 40 }, "ro-3", NOW, "awaiting_approval");
  const scheduled: RolloutRecord = { ...awaiting, state: "scheduled" };

  it("waits for a second operator before its start time, then for its start time, or starts", () => {
    expect(gateOf({ approvalRequired: true }, NOW)).toBe("awaiting_approval");
    expect(gateOf({ approvalRequired: true, startAt: NOW - HOUR }, NOW)).toBe("awaiting_approval");
    expect(gateOf({ approvalRequired: false, startAt: NOW + HOUR }, NOW)).toBe("scheduled");
    expect(gateOf({ approvalRequired: false, startAt: NOW }, NOW)).toBe("start");
    expect(gateOf({ approvalRequired: false, startAt: NOW - HOUR }, NOW)).toBe("start");
    expect(gateOf({ approvalRequired: false }, NOW)).toBe("start");
  });

  it("is created waiting, with no batch, keeping its start time", () => {
    expect(awaiting).toMatchObject({
      state: "awaiting_approval",
      batches: 0,
      startAt: NOW + HOUR,
      version: 1,
    });
  });

  it("is due once scheduled and its start time has come, never while awaiting approval", () => {
    expect(isDue(scheduled, NOW + HOUR - 1)).toBe(false);
    expect(isDue(scheduled, NOW + HOUR)).toBe(true);
    expect(isDue(awaiting, NOW + 2 * HOUR)).toBe(false);
    expect(isDue({ ...rollout, startAt: NOW - HOUR }, NOW)).toBe(false);
  });

  it("is approved by another operator than its creator, only while it awaits approval", () => {
    expect(approval(awaiting, "second", NOW + 60 * SECOND)).toEqual({
      ...awaiting,
      approvedBy: "second",
      approvedAt: NOW + 60 * SECOND,
    });
    expect(() => approval(awaiting, "ops", NOW)).toThrow(expect.objectContaining({ code: "forbidden" }));
    for (const state of ["scheduled", "canary", "refused"] as const)
      expect(() => approval({ ...awaiting, state }, "second", NOW)).toThrow(
        expect.objectContaining({ code: "rollout_state" }),
      );
  });

  it("is refused, or withdrawn by its creator, only before it starts, with a reason", () => {
    expect(refusal(awaiting, "second", "Not during the audit")).toEqual({
      ...awaiting,
      state: "refused",
      refusedBy: "second",
      reason: "Not during the audit",
    });
    expect(refusal(scheduled, "ops")).toMatchObject({
      state: "refused",
      refusedBy: "ops",
      reason: "Refused by ops",
    });
    for (const state of ["canary", "paused", "completed", "refused"] as const)
      expect(() => refusal({ ...awaiting, state }, "second")).toThrow(
        expect.objectContaining({ code: "rollout_state" }),
      );
  });

  it("starts in its canary, from the class as it is then, keeping its id, creation and approval", () => {
    const approved = { ...approval(awaiting, "second", NOW + HOUR), state: "scheduled" as const, version: 2 };
    const started = startedRollout(
      approved,
      { ...request, toFlowIds: ["new", "new-rendered"] },
      { fromFlow: "newer-old", classSize: 100 },
      NOW + 2 * HOUR,
    );
    expect(started).toMatchObject({
      rolloutId: "ro-3",
      state: "canary",
      fromFlow: "newer-old",
      toFlowIds: ["new", "new-rendered"],
      classSize: 100,
      canarySize: 5,
      createdAt: NOW,
      createdBy: "ops",
      approvedBy: "second",
      approvedAt: NOW + HOUR,
      updatedAt: NOW + 2 * HOUR,
      version: 3,
    });
    expect(finishLook(approved, { ...started, version: approved.version }, NOW).rollout.state).toBe("canary");
  });

  it("moves only forward: to its start or refused, never back to waiting", () => {
    expect(finishLook(awaiting, scheduled, NOW).rollout.state).toBe("scheduled");
    expect(() => finishLook(scheduled, awaiting, NOW)).toThrow(/No rollout transition/);
    expect(() => finishLook(rollout, scheduled, NOW)).toThrow(/No rollout transition/);
    expect(finishLook(scheduled, refusal(scheduled, "ops"), NOW).rollout.finishedAt).toBe(NOW);
  });

  it("names who approved or refused it in its events", () => {
    const approved = approval(awaiting, "second", NOW);
    expect(rolloutEvent({ ...approved, state: "canary" }, "awaiting_approval", NOW, "e-1")).toMatchObject({
      from: "awaiting_approval",
      state: "canary",
      by: "second",
    });
    expect(rolloutEvent(refusal(awaiting, "third"), "awaiting_approval", NOW, "e-2")).toMatchObject({
      state: "refused",
      by: "third",
    });
    expect(rolloutEvent({ ...approved, state: "rolling" }, "canary", NOW, "e-3")).not.toHaveProperty("by");
    expect(rolloutEvent(awaiting, undefined, NOW, "e-4")).not.toHaveProperty("by");
  });

  it("cannot be paused or aborted before it starts", () => {
    for (const waiting of [awaiting, scheduled]) {
      expect(() => paused(waiting, "ops")).toThrow(expect.objectContaining({ code: "rollout_state" }));
      expect(() => aborted(waiting, "ops", timing)).toThrow(
        expect.objectContaining({ code: "rollout_state" }),
      );
    }
  });
});

describe("a person's actions", () => {
  it("pause an updating rollout to resume where it was, accepting the failures so far", () => {
    const held = paused({ ...rollout, state: "rolling" }, "ops").record;
    expect(held).toMatchObject({ state: "paused", resumeTo: "rolling", reason: "Paused by ops" });
    const again = resumed({ ...held, counts: { ...held.counts, failed: 3 } }).record;
    expect(again).toMatchObject({ state: "rolling", acceptedFailures: 3 });
    expect(again).not.toHaveProperty("reason");
    expect(() => paused(held, "ops")).toThrow(expect.objectContaining({ code: "rollout_state" }));
    expect(() => resumed(rollout)).toThrow(expect.objectContaining({ code: "rollout_state" }));
  });

  it("abort into the rollback under the previous version's policy, or where it stands without one", () => {
    expect(aborted(rollout, "ops", timing)).toEqual({
      record: { ...rollout, state: "rolling_back", abortedBy: "ops", reason: "Aborted by ops" },
      policy: { target: "old", accepted: ["old"], ackTimeoutMs: 60_000 },
    });
    const { fromFlow: _none, ...first } = rollout;
    expect(aborted(first, "ops", timing).record).toMatchObject({ state: "aborted", abortedBy: "ops" });
    expect(() => aborted({ ...rollout, state: "rolling_back" }, "ops", timing)).toThrow(
      expect.objectContaining({ code: "rollout_state" }),
    );
  });
});

describe("a rollout from or to an adopted version", () => {
  // Agents running the adopted version before Beacon report the incumbent's flow id for it.
  const adopted = newRollout(
    {
      tenant: "acme",
      className: "pumps",
      toFlow: "new",
      toFlowIds: ["new"],
      plan: DEFAULT_ROLLOUT_PLAN,
      createdBy: "ops",
    },
    { fromFlow: "old", fromFlowIds: ["old", "incumbent-7"], classSize: 40 },
    "ro-2",
    NOW - 600 * SECOND,
  );
  const agent: AgentRecord = {
    tenant: "acme",
    agentId: "a-1",
    agentClass: "pumps",
    manifestHash: "m",
    manifest: {
      hash: "m",
      manifestId: "b".repeat(64),
      supportedOperations: [{ type: "update", properties: { configuration: {} } }],
    },
    firstSeen: NOW - 86_400_000,
    lastSeen: NOW,
  };

  it("accepts the adopted id beside both versions while it runs, and as the previous version when it returns", () => {
    expect(startPolicy("old", "new", timing, { from: ["old", "incumbent-7"], to: ["new"] })).toEqual({
      target: "old",
      accepted: ["old", "incumbent-7", "new"],
      ackTimeoutMs: 60_000,
    });
    const failing = [member("failed", { failedAt: NOW })];
    expect(lookStep({ ...adopted, batches: 1 }, failing, timing, NOW)).toMatchObject({
      next: "roll back",
      policy: { target: "old", accepted: ["old", "incumbent-7"] },
    });
    expect(aborted(adopted, "ops", timing).policy).toEqual({
      target: "old",
      accepted: ["old", "incumbent-7"],
      ackTimeoutMs: 60_000,
    });
  });

  it("moves agents reporting the adopted id, and passes over those reporting an id of the new version", () => {
    expect(candidateOf(adopted, { ...agent, flowId: "incumbent-7" }, undefined, timing, NOW)).toEqual({
      agentId: "a-1",
      flowId: "incumbent-7",
    });
    const toAdopted = { ...adopted, toFlow: "old", toFlowIds: ["old", "incumbent-7"] };
    expect(
      candidateOf(toAdopted, { ...agent, flowId: "incumbent-7" }, undefined, timing, NOW),
    ).toBeUndefined();
    const done = { ...toAdopted, batches: 1, exhausted: true };
    expect(lookStep(done, [member("healthy")], timing, NOW)).toMatchObject({
      next: "complete",
      policy: { target: "old", accepted: ["old", "incumbent-7"] },
    });
  });
});
