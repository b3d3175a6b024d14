import { describe, expect, it } from "vitest";
import { ACK_TIMEOUT_MS, coreHarness } from "../../../scripts/test-support/core-harness.js";
import { MemoryClassCatalog } from "../../adapters/memory/class-catalog.js";
import { MemoryFleetHotState } from "../../adapters/memory/fleet-hot-state.js";
import type { OperationEvent } from "../events/model.js";
import { newOperationId } from "./ids.js";
import { QUEUED_FIRST_LOOK_MS } from "./lifecycle.js";
import type { OperationRecord } from "./model.js";
import { makeSweepTimeouts } from "./timeouts.js";

const tenant = "acme";
const MINUTE = 60_000;
const supported = { RESTART: [], STOP: ["C2", "FLOW"], START: ["C2"] };

/** The sweeper over in-memory ports, with agents of a default class and of a slow one (10-minute heartbeats). */
function sweeperHarness(maxOperationsPerRun = 100) {
  const core = coreHarness();
  const classes = new MemoryClassCatalog();
  void classes.put(tenant, "slow", { heartbeatIntervalSeconds: 600 }, core.clock.now());
  for (const [agentId, agentClass] of [
    ["agent-1", "default"],
    ["agent-2", "default"],
    ["slow-1", "slow"],
  ] as const)
    void core.registry.register({
      tenant,
      agentId,
      agentClass,
      firstSeen: core.clock.now(),
      lastSeen: core.clock.now(),
    });
  const hotState = new MemoryFleetHotState();
  const sweep = makeSweepTimeouts({
    operations: core.operationStore,
    lifecycle: core.operations,
    agents: core.registry,
    classes,
    hotState,
    events: core.events,
    clock: core.clock,
    settings: { queuedTimeoutHeartbeats: 10, maxOperationsPerRun },
  });
  let created = 0;
  const queue = async (agentId: string, operation = "RESTART", more: Partial<OperationRecord> = {}) => {
    const now = core.clock.now();
    const operationId = newOperationId(now + created++, core.ids, agentId);
    await core.operations.create([
      {
        tenant,
        agentId,
        operationId,
        operation,
        state: "queued",
        createdAt: now,
        createdBy: "tester",
        ...more,
      },
    ]);
    return operationId;
  };
  const deliver = (agentId: string) => core.operations.deliver(tenant, agentId, supported, 10);
  const recordOf = (agentId: string, operationId: string) =>
    core.operationStore.records.get(`${tenant}/${agentId}/${operationId}`) as OperationRecord;
  const transitions = () =>
    core.events.events
      .filter((event): event is OperationEvent => event.type === "operation")
      .map((event) => `${event.operationId}:${event.from ?? "-"}→${event.state}`);
  /** What a sweeper read from the index a moment ago: a copy that may be stale by the time it acts. */
  const firstDue = async (): Promise<OperationRecord> => {
    for await (const record of core.operationStore.due(core.clock.now())) return record;
    throw new Error("nothing due");
  };
  return { core, hotState, sweep, queue, deliver, recordOf, transitions, firstDue };
}

describe("delivered operations", () => {
  it("time out at their timeoutAt, not before, with the reason, one event each", async () => {
    const { core, sweep, queue, deliver, recordOf, transitions } = sweeperHarness();
    const restart = await queue("agent-1");
    await deliver("agent-1");
    expect(recordOf("agent-1", restart).dueAt).toBe(core.clock.now() + ACK_TIMEOUT_MS);

    core.clock.advance(ACK_TIMEOUT_MS - 1);
    expect(await sweep()).toMatchObject({ timedOut: { queued: 0, delivered: 0 }, skipped: 0 });
    expect(recordOf("agent-1", restart).state).toBe("delivered");

    core.clock.advance(1);
    const before = transitions().length;
    expect(await sweep()).toMatchObject({ timedOut: { queued: 0, delivered: 1 }, more: false });
    expect(recordOf("agent-1", restart)).toMatchObject({
      state: "timed_out",
      finishedAt: core.clock.now(),
      reason: "Not acknowledged within 300 s of delivery",
    });
    expect(recordOf("agent-1", restart).dueAt).toBeUndefined();
    expect(transitions().slice(before)).toEqual([`${restart}:delivered→timed_out`]);

    // Closed, it is no longer due: a second run finds nothing.
    expect(await sweep()).toMatchObject({ timedOut: { queued: 0, delivered: 0 }, skipped: 0 });
  });

  it("put the agent in its class's index of failed operations, whether or not the cache answers", async () => {
    const { core, hotState, sweep, queue, deliver } = sweeperHarness();
    const failed = async () =>
      (
        await hotState.attentionPage(
          tenant,
          [{ name: "default", onlineSince: 0 }],
          "operationFailed",
          core.clock.now(),
          {
            limit: 10,
          },
        )
      ).map(({ agentId }) => agentId);
    await queue("agent-1", "RESTART", { agentClass: "default" });
    await deliver("agent-1");
    core.clock.advance(ACK_TIMEOUT_MS);
    const timedOutAt = core.clock.now();
    expect(await sweep()).toMatchObject({ timedOut: { delivered: 1 } });
    expect(hotState.attentionIndex(tenant, "default", "operationFailed")).toEqual(
      new Map([["agent-1", timedOutAt]]),
    );

    await queue("agent-2", "RESTART", { agentClass: "default" });
    await deliver("agent-2");
    core.clock.advance(ACK_TIMEOUT_MS);
    hotState.down = true;
    expect(await sweep()).toMatchObject({ timedOut: { delivered: 1 } });
    hotState.down = false;
    expect(await failed()).toEqual(["agent-1"]);
  });

  it("race a late acknowledgement: exactly one wins, and the loser changes nothing", async () => {
    const { core, sweep, queue, deliver, recordOf, transitions } = sweeperHarness();
    const acked = await queue("agent-1");
    const late = await queue("agent-2");
    await deliver("agent-1");
    await deliver("agent-2");
    core.clock.advance(ACK_TIMEOUT_MS);

    // The acknowledgement lands first: nothing is left for the sweeper to time out.
    const acknowledge = async (operationId: string) =>
      core.operations.acknowledge((await core.operations.find(tenant, operationId)) as OperationRecord, {
        operationId,
        state: "FULLY_APPLIED",
        dialect: "java",
      });
    await acknowledge(acked);
    expect(await sweep()).toMatchObject({ timedOut: { delivered: 1 }, skipped: 0 });
    expect(recordOf("agent-1", acked).state).toBe("done");

    // The sweeper lands first: the late acknowledgement changes nothing and puts nothing on the stream.
    const before = transitions().length;
    const ack = await acknowledge(late);
    expect(ack.events).toEqual([]);
    expect(recordOf("agent-2", late).state).toBe("timed_out");
    expect(transitions().length).toBe(before);
  });

  it("skip an operation closed between the index read and the timeout, as an overlapping run would find it", async () => {
    const { core, sweep, queue, deliver, recordOf, firstDue } = sweeperHarness();
    const restart = await queue("agent-1");
    await deliver("agent-1");
    core.clock.advance(ACK_TIMEOUT_MS);
    const stale = await firstDue();
    const closed = await core.operations.timeOut(stale, "another sweeper");
    expect(closed.timedOut).toBe(true);
    // The second sweeper's stale copy still says delivered: the conditional move refuses it.
    expect((await core.operations.timeOut(stale, "this sweeper")).timedOut).toBe(false);
    expect(recordOf("agent-1", restart).reason).toBe("another sweeper");
    expect(await sweep()).toMatchObject({ timedOut: { queued: 0, delivered: 0 } });
  });
});

describe("operations awaiting their effect", () => {
  it("time out once the acknowledgement's own time has passed with no heartbeat showing it", async () => {
    const { core, sweep, queue, deliver, recordOf, transitions } = sweeperHarness();
    const stop = await queue("agent-1", "STOP", { operand: "FLOW" });
    await deliver("agent-1");
    core.clock.advance(ACK_TIMEOUT_MS - 1);
    const record = recordOf("agent-1", stop);
    await core.operations.acknowledge(record, { operationId: stop, state: "FULLY_APPLIED", dialect: "cpp" });
    expect(recordOf("agent-1", stop)).toMatchObject({
      state: "awaiting_effect",
      dueAt: core.clock.now() + ACK_TIMEOUT_MS,
    });
    // The delivery's deadline has passed, but the effect has its own time from the acknowledgement.
    core.clock.advance(1);
    expect(await sweep()).toMatchObject({ timedOut: { delivered: 0, awaiting_effect: 0 } });

    core.clock.advance(ACK_TIMEOUT_MS);
    expect(await sweep()).toMatchObject({ timedOut: { awaiting_effect: 1 } });
    expect(recordOf("agent-1", stop)).toMatchObject({
      state: "timed_out",
      ackState: "FULLY_APPLIED",
      reason: "Acknowledged FULLY_APPLIED, but no heartbeat showed the effect in time",
    });
    expect(transitions().at(-1)).toBe(`${stop}:awaiting_effect→timed_out`);
  });
});

describe("queued operations", () => {
  it("time out after 10 heartbeat intervals of the default class, first looked at after one", async () => {
    const { core, sweep, queue, recordOf, transitions } = sweeperHarness();
    const restart = await queue("agent-1");
    const createdAt = core.clock.now();
    expect(recordOf("agent-1", restart).dueAt).toBe(createdAt + QUEUED_FIRST_LOOK_MS);

    core.clock.advance(QUEUED_FIRST_LOOK_MS);
    expect(await sweep()).toMatchObject({ postponed: 1, timedOut: { queued: 0 } });
    expect(recordOf("agent-1", restart)).toMatchObject({ state: "queued", dueAt: createdAt + 10 * MINUTE });
    expect(await sweep()).toMatchObject({ postponed: 0, skipped: 0 });

    core.clock.time = createdAt + 10 * MINUTE;
    expect(await sweep()).toMatchObject({ timedOut: { queued: 1, delivered: 0 } });
    expect(recordOf("agent-1", restart)).toMatchObject({
      state: "timed_out",
      reason: "Not delivered within 10 heartbeat intervals of its agent's class (60 s each)",
    });
    expect(transitions().at(-1)).toBe(`${restart}:queued→timed_out`);
  });

  it("wait 10 of their own class's intervals when it heartbeats more slowly", async () => {
    const { core, sweep, queue, recordOf } = sweeperHarness();
    const restart = await queue("slow-1");
    const createdAt = core.clock.now();
    core.clock.advance(10 * MINUTE);
    expect(await sweep()).toMatchObject({ postponed: 1 });
    expect(recordOf("slow-1", restart)).toMatchObject({ state: "queued", dueAt: createdAt + 100 * MINUTE });
    core.clock.time = createdAt + 100 * MINUTE;
    expect(await sweep()).toMatchObject({ timedOut: { queued: 1 } });
    expect(recordOf("slow-1", restart).reason).toMatch(/\(600 s each\)/);
  });

  it("race a heartbeat's delivery: once delivered, the ack timeout applies instead", async () => {
    const { core, sweep, queue, deliver, recordOf, firstDue } = sweeperHarness();
    const restart = await queue("agent-1");
    core.clock.advance(10 * MINUTE);
    const stale = await firstDue();
    await deliver("agent-1");
    expect((await core.operations.timeOut(stale, "queued too long")).timedOut).toBe(false);
    expect(await sweep()).toMatchObject({ timedOut: { queued: 0, delivered: 0 }, skipped: 0 });
    expect(recordOf("agent-1", restart)).toMatchObject({
      state: "delivered",
      dueAt: core.clock.now() + ACK_TIMEOUT_MS,
    });
  });
});

describe("operations held for their class's maintenance window", () => {
  it("are not delivered before it opens, are released to their agent by the sweeper then, and time out counting from then", async () => {
    const { core, hotState, sweep, queue, deliver, recordOf } = sweeperHarness();
    const createdAt = core.clock.now();
    const opening = createdAt + 3 * 60 * MINUTE;
    const restart = await queue("agent-1", "RESTART", { notBefore: opening });
    const after = await queue("agent-1", "STOP", {
      operand: "FLOW",
      dependsOn: [restart],
      notBefore: opening,
    });
    expect(recordOf("agent-1", restart).dueAt).toBe(opening);

    core.clock.advance(60 * MINUTE);
    expect(await deliver("agent-1")).toMatchObject({ operations: [], remaining: false });
    expect(await sweep()).toMatchObject({ released: 0, postponed: 0, timedOut: { queued: 0 } });

    core.clock.time = opening;
    hotState.down = true;
    expect(await sweep()).toMatchObject({ released: 0, skipped: 2 });
    expect(recordOf("agent-1", restart).dueAt).toBe(opening);
    hotState.down = false;
    expect(await sweep()).toMatchObject({ released: 2, timedOut: { queued: 0 } });
    expect(hotState.pendingOperations.get(`${tenant}/agent-1`)).toBeGreaterThan(0);
    expect(recordOf("agent-1", restart)).toMatchObject({ state: "queued", dueAt: opening + 10 * MINUTE });

    core.clock.time = opening + 10 * MINUTE - 1;
    expect(await sweep()).toMatchObject({ released: 0, timedOut: { queued: 0 } });
    const delivered = await deliver("agent-1");
    expect(delivered.operations.map((operation) => operation.identifier)).toEqual([restart]);
    expect(recordOf("agent-1", after).state).toBe("queued");
    core.clock.time = opening + 10 * MINUTE;
    expect(await sweep()).toMatchObject({ timedOut: { queued: 1 } });
    expect(recordOf("agent-1", after).state).toBe("timed_out");
  });
});

describe("dependents", () => {
  it("of a timed-out operation are cancelled with it, before it closes, each with an event", async () => {
    const { core, sweep, queue, deliver, recordOf, transitions } = sweeperHarness();
    const stop = await queue("agent-1", "STOP", { operand: "C2" });
    const start = await queue("agent-1", "START", { operand: "C2", dependsOn: [stop] });
    const restart = await queue("agent-1", "RESTART", { dependsOn: [start] });
    expect((await deliver("agent-1")).operations.map((operation) => operation.identifier)).toEqual([stop]);
    core.clock.advance(ACK_TIMEOUT_MS);
    const before = transitions().length;

    expect(await sweep()).toMatchObject({ timedOut: { delivered: 1 }, cancelled: 2 });
    expect([recordOf("agent-1", start).state, recordOf("agent-1", restart).state]).toEqual([
      "cancelled",
      "cancelled",
    ]);
    expect(recordOf("agent-1", start).reason).toBe(`It depends on ${stop}, which will not be done`);
    expect(transitions().slice(before)).toEqual([
      `${start}:queued→cancelled`,
      `${restart}:queued→cancelled`,
      `${stop}:delivered→timed_out`,
    ]);
  });
});

describe("a run", () => {
  it("handles at most its bound, oldest first, and leaves the rest for the next run", async () => {
    const { core, sweep, queue, deliver, recordOf } = sweeperHarness(2);
    const ids: string[] = [];
    for (const agentId of ["agent-1", "agent-2", "agent-1"]) {
      ids.push(await queue(agentId));
      await deliver(agentId);
      core.clock.advance(1_000);
    }
    core.clock.advance(ACK_TIMEOUT_MS);
    expect(await sweep()).toMatchObject({ timedOut: { delivered: 2 }, more: true });
    expect(ids.map((id, index) => recordOf(index === 1 ? "agent-2" : "agent-1", id).state)).toEqual([
      "timed_out",
      "timed_out",
      "delivered",
    ]);
    expect(await sweep()).toMatchObject({ timedOut: { delivered: 1 }, more: false });
  });

  it("keeps the transitions when the stream is down and reports it", async () => {
    const { core, sweep, queue, deliver, recordOf } = sweeperHarness();
    const restart = await queue("agent-1");
    await deliver("agent-1");
    core.clock.advance(ACK_TIMEOUT_MS);
    core.events.failing = true;
    const outcome = await sweep();
    expect(outcome.streamError).toBeInstanceOf(Error);
    expect(recordOf("agent-1", restart).state).toBe("timed_out");
  });
});
