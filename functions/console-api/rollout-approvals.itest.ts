/**
 * Rollouts that wait, end to end on the local stack: a class that requires approval holds a rollout until an
 * operator other than its creator approves it, touching neither the class nor its agents meanwhile; a refusal
 * ends it; a rollout with a start time is started by the sweeper's own engine once the time has come.
 */
import { describe, expect, it } from "vitest";
import { cppHeartbeatOf } from "../../scripts/common/c2-examples.js";
import { onRolloutStack, publishFlow, type RolloutStack } from "../../scripts/test-support/rollout-stack.js";
import { untilTrue } from "../../scripts/test-support/until.js";
import type { RolloutState } from "../core/events/model.js";

const HEARTBEAT = "/c2/api/heartbeat";
const PLAN = { canary: { count: 1 }, batchSize: 2, batchIntervalSeconds: 0, soakSeconds: 0 };

let stack: RolloutStack;
/** Another operator of the tenant: the second pair of eyes. */
let approver: string;

type Rollout = { rolloutId: string; state: RolloutState; [field: string]: unknown };

onRolloutStack("approvals", (started) => {
  stack = started;
});

const call = (method: string, path: string, token: string, body?: unknown) =>
  stack.consoleApi.request(method, path, { token, ...(body === undefined ? {} : { body }) });

/** Requested operations of an agent's heartbeat: what Beacon has for it now. */
async function operationsFor(agentId: string, className: string): Promise<unknown[]> {
  const response = await stack.agentApi.post(HEARTBEAT, cppHeartbeatOf(agentId, className, true), {
    certificate: stack.fleet,
  });
  expect(response.status).toBe(200);
  return response.json().requestedOperations as unknown[];
}

/** A class of two agents that requires approval (or not), with a version published to it; its hash. */
async function classWithVersion(className: string, requireApproval: boolean): Promise<string> {
  approver ??= await stack.consoleApi.token({
    tenant: stack.tenant,
    role: "operator",
    subject: `${stack.tenant}-approver`,
  });
  const put = await call("PUT", `/api/v1/classes/${className}`, stack.operator, { requireApproval });
  expect(put.json()).toMatchObject({ name: className, requireApproval });
  for (const index of [1, 2]) await operationsFor(`${className}-${index}`, className);
  return publishFlow(stack.consoleApi, stack.operator, className, `${className}-v1`);
}

async function create(className: string, flowHash: string, startAt?: string): Promise<Rollout> {
  const response = await call("POST", "/api/v1/rollouts", stack.operator, {
    className,
    flowHash,
    plan: PLAN,
    startAt,
  });
  expect(response.status, response.body).toBe(201);
  return response.json() as Rollout;
}

const classOf = async (className: string) =>
  (await call("GET", `/api/v1/classes/${className}`, stack.operator)).json();
const rolloutOf = async (rolloutId: string) =>
  (await call("GET", `/api/v1/rollouts/${rolloutId}`, stack.operator)).json() as Rollout;

describe("a rollout that waits to start", () => {
  it("does not start until a second operator approves it; the creator cannot approve it", async () => {
    const hash = await classWithVersion("approved", true);
    const waiting = await create("approved", hash);
    expect(waiting).toMatchObject({
      state: "awaiting_approval",
      batches: 0,
      createdBy: `${stack.tenant}-operator`,
    });

    // Waiting, it touches nothing: the class has no flow, the agents get nothing, the sweeper leaves it.
    await stack.sweeper.rollouts.advance(stack.tenant, waiting.rolloutId);
    expect(await classOf("approved")).toMatchObject({ activeRolloutId: waiting.rolloutId });
    expect(await classOf("approved")).not.toHaveProperty("flow");
    expect(await operationsFor("approved-1", "approved")).toEqual([]);
    expect(await rolloutOf(waiting.rolloutId)).toMatchObject({ state: "awaiting_approval", batches: 0 });
    // One rollout per class, waiting ones included.
    const second = await call("POST", "/api/v1/rollouts", stack.operator, {
      className: "approved",
      flowHash: hash,
    });
    expect(second.status).toBe(409);
    expect(second.json()).toMatchObject({ error: { code: "rollout_in_progress" } });

    // The approvals queue: the rollouts awaiting approval, here of this class.
    const queue = `/api/v1/rollouts?state=awaiting_approval&className=approved&limit=100`;
    const waitingIds = async () =>
      ((await call("GET", queue, approver)).json().items as Rollout[]).map((rollout) => rollout.rolloutId);
    expect(await waitingIds()).toEqual([waiting.rolloutId]);

    const byCreator = await call("POST", `/api/v1/rollouts/${waiting.rolloutId}/approve`, stack.operator);
    expect(byCreator.status, byCreator.body).toBe(403);
    expect((await call("POST", `/api/v1/rollouts/${waiting.rolloutId}/pause`, stack.operator)).status).toBe(
      409,
    );

    const approved = await call("POST", `/api/v1/rollouts/${waiting.rolloutId}/approve`, approver);
    expect(approved.status, approved.body).toBe(200);
    expect(approved.json()).toMatchObject({
      state: "canary",
      approvedBy: `${stack.tenant}-approver`,
      batches: 1,
      counts: { selected: 1 },
    });
    expect(await operationsFor("approved-1", "approved")).toHaveLength(1);
    expect(await waitingIds()).toEqual([]);
    const again = await call("POST", `/api/v1/rollouts/${waiting.rolloutId}/approve`, approver);
    expect(again.status).toBe(409);
  });

  it("ends refused, withdrawn by its creator, and frees the class for the next", async () => {
    const hash = await classWithVersion("refused", true);
    const waiting = await create("refused", hash);
    const refused = await call("POST", `/api/v1/rollouts/${waiting.rolloutId}/refuse`, stack.operator, {
      reason: "Wrong week",
    });
    expect(refused.status, refused.body).toBe(200);
    expect(refused.json()).toMatchObject({
      state: "refused",
      refusedBy: `${stack.tenant}-operator`,
      reason: "Wrong week",
    });
    expect(await classOf("refused")).not.toHaveProperty("activeRolloutId");
    expect(await operationsFor("refused-1", "refused")).toEqual([]);
    const approve = await call("POST", `/api/v1/rollouts/${waiting.rolloutId}/approve`, approver);
    expect(approve.status).toBe(409);
    expect((await create("refused", hash)).state).toBe("awaiting_approval");
  });

  it("is started by the sweeper once its start time has come, and refuses a start time too far ahead", async () => {
    const hash = await classWithVersion("scheduled", false);
    const tooFar = new Date(Date.now() + 91 * 86_400_000).toISOString();
    const refused = await call("POST", "/api/v1/rollouts", stack.operator, {
      className: "scheduled",
      flowHash: hash,
      startAt: tooFar,
    });
    expect(refused.status).toBe(400);

    const startAt = new Date(Date.now() + 3_000).toISOString();
    const scheduled = await create("scheduled", hash, startAt);
    expect(scheduled).toMatchObject({ state: "scheduled", startAt, batches: 0 });
    expect(await operationsFor("scheduled-1", "scheduled")).toEqual([]);
    // The sweeper's look at this rollout alone (other files' rollouts share the table), until it starts it.
    await untilTrue("the sweeper starts the scheduled rollout", async () => {
      const { rollout } = await stack.sweeper.rollouts.advance(stack.tenant, scheduled.rolloutId);
      return rollout.state === "canary";
    });
    // It could not have started before its time.
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(startAt));
    expect(await operationsFor("scheduled-1", "scheduled")).toHaveLength(1);
  });

  it("can be refused while scheduled, before it starts", async () => {
    const hash = await classWithVersion("cancelled", false);
    const scheduled = await create("cancelled", hash, new Date(Date.now() + 86_400_000).toISOString());
    const refused = await call("POST", `/api/v1/rollouts/${scheduled.rolloutId}/refuse`, approver, {});
    expect(refused.json()).toMatchObject({ state: "refused", refusedBy: `${stack.tenant}-approver` });
    await stack.sweeper.rollouts.advance(stack.tenant, scheduled.rolloutId);
    expect(await rolloutOf(scheduled.rolloutId)).toMatchObject({ state: "refused", batches: 0 });
  });
});
