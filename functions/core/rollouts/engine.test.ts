import { beforeEach, describe, expect, it } from "vitest";
import { pumpsVersionRecord } from "../../../scripts/test-support/flow-fixtures.js";
import { valuesOverClassOfEachIn } from "../../../scripts/test-support/group-values.js";
import { MemoryClassCatalog } from "../../adapters/memory/class-catalog.js";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryEventSink } from "../../adapters/memory/event-sink.js";
import { MemoryFleetHotState } from "../../adapters/memory/fleet-hot-state.js";
import { MemoryFleetRegistry } from "../../adapters/memory/fleet-registry.js";
import { MemoryFlowCatalog } from "../../adapters/memory/flow-catalog.js";
import { MemoryGroupStore } from "../../adapters/memory/group-store.js";
import { SequentialIds } from "../../adapters/memory/id-generator.js";
import { MemoryManifestCatalog } from "../../adapters/memory/manifest-catalog.js";
import { MemoryOperationStore } from "../../adapters/memory/operation-store.js";
import { MemoryParameterStore } from "../../adapters/memory/parameter-store.js";
import { MemoryRolloutStore } from "../../adapters/memory/rollout-store.js";
import { MemoryTenantSettings } from "../../adapters/memory/tenant-settings.js";
import type { AgentClassRecord } from "../agents/ports.js";
import { supportedOperationsOf } from "../c2/manifest.js";
import type { AckState, Bulletin } from "../c2/model.js";
import type { RolloutEvent } from "../events/model.js";
import { makeAgentReader } from "../fleet/agents.js";
import { makeGroupsApi } from "../groups/console-groups.js";
import { makeOperationLifecycle } from "../operations/lifecycle.js";
import type { OperationRecord } from "../operations/model.js";
import { makeSweepTimeouts } from "../operations/timeouts.js";
import {
  makeFlowRenderings,
  ownValuesOf,
  renderedFlowIdOf,
  renderingClassFlows,
} from "../parameters/rendered-flow-ids.js";
import { type MaintenanceWindow, WEEKDAYS, windowState } from "../schedules/windows.js";
import { makeRolloutEngine } from "./engine.js";
import type { RolloutPlan, RolloutRecord } from "./model.js";
import { makeRolloutPreparation } from "./preparation.js";
import { makeRolloutTargets } from "./targets.js";
import { valueRenderings } from "./value-decisions.js";

const TENANT = "acme";
const CLASS = "edge";
const V1 = "a".repeat(64);
const V2 = "b".repeat(64);
const MANIFEST = "manifest-1";
const SECOND = 1_000;
/** The class's agents heartbeat every 10 s; the simulation steps in heartbeats. */
const HEARTBEAT_SECONDS = 10;
/** The agents' manifest, as each agent keeps it: the operations it lists, by the hash it reports. */
const MANIFEST_OF_AGENT = {
  hash: MANIFEST,
  manifestId: "c".repeat(64),
  supportedOperations: [
    { type: "UPDATE", properties: { CONFIGURATION: {} } },
    { type: "DESCRIBE", properties: { MANIFEST: {} } },
  ],
};
const SUPPORTED = supportedOperationsOf(MANIFEST_OF_AGENT.supportedOperations);

/** How a simulated agent takes an UPDATE CONFIGURATION to the new version. */
type Behaviour = "applies" | "refuses" | "errors after applying" | "goes silent";

interface SimulatedAgent {
  agentId: string;
  flowId: string;
  behaviour: Behaviour;
  online: boolean;
  bulletins: Bulletin[];
  /** Flow ids it was told to run, in order. */
  received: string[];
}

const agentIdOf = (index: number) => `agent-${String(index).padStart(4, "0")}`;

/**
 * A class of agents around the engine: each heartbeat step, every online agent reports its flow and
 * bulletins to the hot state, takes what is queued for it (as the agent API delivers it), applies or
 * refuses it as its behaviour says, and acknowledges; the next step it reports the flow it runs now.
 * Then the sweeper takes its look, on a simulated clock.
 */
function simulatedClass(size: number, behaviours: Record<string, Behaviour> = {}) {
  const clock = new ManualClock();
  const ids = new SequentialIds();
  const catalog = new MemoryClassCatalog();
  const registry = new MemoryFleetRegistry();
  const hotState = new MemoryFleetHotState();
  const operations = new MemoryOperationStore();
  const rollouts = new MemoryRolloutStore(catalog);
  const events = new MemoryEventSink();
  const lifecycle = makeOperationLifecycle({
    operations,
    clock,
    ids,
    settings: { ackTimeoutMs: 300 * SECOND },
  });
  const flows = new MemoryFlowCatalog();
  const parameters = new MemoryParameterStore();
  const tenantSettings = new MemoryTenantSettings();
  const groupStore = new MemoryGroupStore();
  const valuesOverClassOfEach = valuesOverClassOfEachIn({ parameters, registry, groups: groupStore, clock });
  const renderings = makeFlowRenderings({ flows, parameters, valuesOverClassOfEach });
  const reader = makeAgentReader({
    registry,
    groupFilters: (tenant, name) => groups.filtersOf(tenant, name),
    catalog,
    hotState,
    clock,
    registryLagMs: 0,
  });
  const groups = makeGroupsApi({
    groups: groupStore,
    manifests: new MemoryManifestCatalog(),
    registry,
    reader,
    clock,
  });
  const engine = makeRolloutEngine({
    targets: makeRolloutTargets({ groups: groupStore, members: groups }),
    rollouts,
    classes: catalog,
    tenantSettings,
    registry,
    hotState,
    operations,
    lifecycle,
    events,
    clock,
    ids,
    agentApiUrl: "https://agents.beacon.test",
    flows,
    renderings,
    parameters,
    valuesOverClassOfEach,
    classFlowCache: renderingClassFlows(hotState, renderings),
    preparation: makeRolloutPreparation({ flows, catalog, parameters }),
  });

  const sweepTimeouts = makeSweepTimeouts({
    operations,
    lifecycle,
    agents: registry,
    classes: catalog,
    hotState,
    events,
    clock,
    settings: { queuedTimeoutHeartbeats: 10, maxOperationsPerRun: 10_000 },
  });

  catalog.classes.set(`${TENANT}/${CLASS}`, {
    tenant: TENANT,
    name: CLASS,
    heartbeatIntervalSeconds: HEARTBEAT_SECONDS,
    flowPolicy: { target: V1, accepted: [V1] },
    createdAt: clock.now(),
    autoCreated: false,
  });
  const fleet = new Map<string, SimulatedAgent>();
  for (let index = 0; index < size; index++) {
    const agentId = agentIdOf(index);
    fleet.set(agentId, {
      agentId,
      flowId: V1,
      behaviour: behaviours[agentId] ?? "applies",
      online: true,
      bulletins: [],
      received: [],
    });
    registry.add({
      tenant: TENANT,
      agentId,
      agentClass: CLASS,
      manifestHash: MANIFEST,
      manifest: MANIFEST_OF_AGENT,
      flowId: V1,
      firstSeen: clock.now(),
      lastSeen: clock.now(),
    });
  }

  async function heartbeat(agent: SimulatedAgent) {
    const now = clock.now();
    hotState.agentStates.set(`${TENANT}/${agent.agentId}`, {
      agentClass: CLASS,
      manifestHash: MANIFEST,
      flowId: agent.flowId,
      bulletins: agent.bulletins,
      lastSeen: now,
    });
    const key = `${TENANT}/${agent.agentId}`;
    if (!hotState.pendingOperations.delete(key)) return;
    const delivery = await lifecycle.deliver(TENANT, agent.agentId, SUPPORTED, 5);
    for (const operation of delivery.operations) {
      const flowId = operation.args?.flowId as string;
      agent.received.push(flowId);
      const behaviour = flowId === V2 ? agent.behaviour : "applies";
      if (behaviour === "goes silent") {
        agent.online = false;
        continue;
      }
      let state: AckState = "FULLY_APPLIED";
      if (behaviour === "refuses") state = "NOT_APPLIED";
      else agent.flowId = flowId;
      if (behaviour === "errors after applying")
        agent.bulletins = [
          { level: "ERROR", sourceName: "PutS3Object", message: "Access denied", timestamp: now + 1 },
        ];
      const record = (await lifecycle.find(TENANT, operation.identifier)) as OperationRecord;
      await lifecycle.acknowledge(record, { operationId: operation.identifier, state, dialect: "java" });
    }
  }

  /** One heartbeat interval: every online agent heartbeats, then the sweeper runs as it does on AWS. */
  async function step() {
    clock.advance(HEARTBEAT_SECONDS * SECOND);
    for (const agent of fleet.values()) if (agent.online) await heartbeat(agent);
    await sweepTimeouts();
    return engine.advanceAll();
  }

  async function rollout(): Promise<RolloutRecord> {
    const [active] = (await rollouts.list(TENANT, { limit: 1 })).items;
    return active as RolloutRecord;
  }

  /** The rollout after each step runUntil took, as a person watching it would have seen it. */
  const watched: RolloutRecord[] = [];

  /** Steps until the rollout reaches one of `states`, at most `limit` steps; returns the steps taken. */
  async function runUntil(states: RolloutRecord["state"][], limit = 500) {
    for (let steps = 1; steps <= limit; steps++) {
      const outcome = await step();
      expect(outcome.errors).toEqual([]);
      const now = await rollout();
      watched.push(now);
      if (states.includes(now.state)) return steps;
    }
    throw new Error(`The rollout is still ${(await rollout()).state} after ${limit} steps`);
  }

  function agent(index: number): SimulatedAgent {
    const found = fleet.get(agentIdOf(index));
    if (!found) throw new Error(`No simulated agent ${index}`);
    return found;
  }

  /** Starts the rollout of V2 to the class, which runs V1. */
  const start = (rolloutPlan: RolloutPlan = plan()) =>
    engine.start({ tenant: TENANT, className: CLASS, toFlow: V2, plan: rolloutPlan, createdBy: "ops" });

  const rolloutEvents = () =>
    events.events.filter((event): event is RolloutEvent => event.type === "rollout");

  return {
    clock,
    catalog,
    registry,
    groupStore,
    tenantSettings,
    hotState,
    operations,
    flows,
    parameters,
    heartbeat,
    rollouts,
    events,
    engine,
    fleet,
    agent,
    start,
    step,
    rollout,
    runUntil,
    watched,
    rolloutEvents,
  };
}

const plan = (changes: Partial<RolloutPlan> = {}): RolloutPlan => ({
  canary: { count: 20 },
  batchSize: 100,
  batchIntervalSeconds: 30,
  soakSeconds: 20,
  failureThreshold: { count: 3 },
  onFailure: "rollback",
  ...changes,
});

describe("a rollout over a simulated class of 1,000 agents", () => {
  it("completes a healthy rollout batch by batch, each batch started only once the one before was healthy and the interval had passed", async () => {
    const sim = simulatedClass(1_000);
    const started = await sim.start();
    expect(started.rollout).toMatchObject({
      state: "canary",
      canarySize: 20,
      batches: 1,
      counts: { selected: 20, updating: 20 },
    });
    // While it runs, catch-up accepts both versions and still brings stragglers to the previous one.
    expect(sim.hotState.classFlows.get(`${TENANT}/${CLASS}`)).toEqual({
      target: V1,
      accepted: [V1, V2],
      renderings: [],
    });

    const batchStarts: { at: number; batch: number; healthyBefore: number; selectedBefore: number }[] = [];
    let last = started.rollout;
    for (let steps = 0; last.state !== "completed"; steps++) {
      expect(steps).toBeLessThan(200);
      await sim.step();
      const now = await sim.rollout();
      if (now.batches > last.batches)
        batchStarts.push({
          at: now.lastBatchAt as number,
          batch: now.batches - 1,
          healthyBefore: now.settled.healthy,
          selectedBefore: now.settled.selected,
        });
      last = now;
    }

    expect(last).toMatchObject({
      state: "completed",
      batches: 11,
      exhausted: true,
      counts: { selected: 1_000, healthy: 1_000, failed: 0, updating: 0, soaking: 0, skipped: 0 },
    });
    // Every update it sent names the class, in whose fleet history it counts.
    const sent = [...sim.operations.records.values()].filter((record) => record.rolloutId !== undefined);
    expect(sent).toHaveLength(1_000);
    expect(new Set(sent.map((record) => record.agentClass))).toEqual(new Set([CLASS]));
    // Batches of 100 after the canary of 20; each began with everything before it healthy, 30 s or more after the last.
    expect(batchStarts.map((start) => start.batch)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    let previousStart = started.rollout.lastBatchAt as number;
    for (const start of batchStarts) {
      expect(start.healthyBefore).toBe(start.selectedBefore);
      expect(start.at - previousStart).toBeGreaterThanOrEqual(30 * SECOND);
      previousStart = start.at;
    }
    expect([...sim.fleet.values()].every((agent) => agent.flowId === V2 && agent.received.length === 1)).toBe(
      true,
    );
    expect(await sim.catalog.get(TENANT, CLASS)).toMatchObject({
      flowPolicy: { target: V2, accepted: [V2] },
    });
    expect((await sim.catalog.get(TENANT, CLASS))?.activeRolloutId).toBeUndefined();
    expect(sim.hotState.classFlows.get(`${TENANT}/${CLASS}`)).toEqual({
      target: V2,
      accepted: [V2],
      renderings: [],
    });
    expect(sim.rolloutEvents().map((event) => `${event.from ?? "-"}→${event.state}`)).toEqual([
      "-→canary",
      "canary→rolling",
      "rolling→completed",
    ]);
  });

  it("halts at the canary when failures reach the threshold and returns the updated agents to the previous version", async () => {
    const sim = simulatedClass(1_000, {
      [agentIdOf(3)]: "refuses",
      [agentIdOf(7)]: "errors after applying",
      [agentIdOf(11)]: "refuses",
    });
    const started = await sim.start();
    await sim.runUntil(["rolling_back"]);
    const halted = await sim.rollout();
    expect(halted).toMatchObject({
      state: "rolling_back",
      batches: 1,
      reason: "3 of 20 updated agents failed",
      counts: { selected: 20, failed: 3 },
    });
    // No agent outside the canary was ever sent the new version.
    const outside = [...sim.fleet.values()].filter((agent) => Number(agent.agentId.slice(6)) >= 20);
    expect(outside.every((agent) => agent.received.length === 0)).toBe(true);
    expect(sim.hotState.classFlows.get(`${TENANT}/${CLASS}`)).toEqual({
      target: V1,
      accepted: [V1],
      renderings: [],
    });

    await sim.runUntil(["rolled_back"]);
    const ended = await sim.rollout();
    expect(ended.counts).toMatchObject({
      selected: 20,
      failed: 3,
      rolledBack: 20,
      rollingBack: 0,
      rollbackFailed: 0,
    });
    // A watcher sees the failures rise from none to the threshold and stay there through the whole rollback.
    const failedSeen = [started.rollout, ...sim.watched].map((look) => look.counts.failed);
    expect(failedSeen[0]).toBe(0);
    expect(failedSeen).toEqual([...failedSeen].sort((a, b) => a - b));
    const fromTheTrip = sim.watched.slice(sim.watched.findIndex((look) => look.state === "rolling_back"));
    expect(fromTheTrip.map((look) => [look.state, look.counts.failed, look.counts.rolledBack])).toEqual([
      ["rolling_back", 3, 0],
      ["rolled_back", 3, 20],
    ]);
    expect([...sim.fleet.values()].every((agent) => agent.flowId === V1)).toBe(true);
    const canary = [...sim.fleet.values()].filter((agent) => agent.received.length > 0);
    expect(canary).toHaveLength(20);
    expect(canary.every((agent) => agent.received.join(",") === `${V2},${V1}`)).toBe(true);
    const members = await sim.rollouts.members(TENANT, ended.rolloutId);
    expect(members.find((member) => member.agentId === agentIdOf(7))).toMatchObject({
      state: "rolled_back",
      failedAt: expect.any(Number),
      reason: "ERROR bulletin from PutS3Object: Access denied",
    });
    expect(await sim.catalog.get(TENANT, CLASS)).toMatchObject({
      flowPolicy: { target: V1, accepted: [V1] },
    });
    expect(sim.rolloutEvents().map((event) => event.state)).toEqual([
      "canary",
      "rolling_back",
      "rolled_back",
    ]);
  });

  describe("in a class with maintenance windows", () => {
    const DAY = 24 * 3_600 * SECOND;
    /** Every day from 02:00 to 02:02 in Berlin: from 01:00 to 01:02 UTC in November. */
    const windows: MaintenanceWindow[] = [{ days: [...WEEKDAYS], start: "02:00", durationMinutes: 2 }];
    const opening = Date.parse("2026-11-21T01:00:00Z");
    const isOpen = (at: number) => windowState(at, windows, "Europe/Berlin").open;

    async function windowedClass(size: number, behaviours: Record<string, Behaviour> = {}) {
      const sim = simulatedClass(size, behaviours);
      await sim.tenantSettings.put(TENANT, { timeZone: "Europe/Berlin" }, sim.clock.now());
      await sim.catalog.put(TENANT, CLASS, { maintenanceWindows: windows }, sim.clock.now());
      return sim;
    }

    it("starts batches only inside a window, keeps watching the batch under way after it closes, and resumes in the next", async () => {
      const sim = await windowedClass(300);
      const started = await sim.start();
      expect(started.rollout).toMatchObject({ state: "canary", batches: 0, waitingForWindow: opening });
      expect(sim.operations.records.size).toBe(0);

      sim.clock.time = opening - 30 * SECOND;
      await sim.step();
      await sim.step();
      expect(await sim.rollout()).toMatchObject({ batches: 0, waitingForWindow: opening });
      await sim.step();
      const canary = await sim.rollout();
      expect(canary).toMatchObject({ state: "canary", batches: 1, lastBatchAt: opening });
      expect(canary).not.toHaveProperty("waitingForWindow");

      let held = canary;
      for (let steps = 0; held.waitingForWindow === undefined; steps++) {
        expect(steps).toBeLessThan(100);
        await sim.step();
        held = await sim.rollout();
      }
      expect(held).toMatchObject({ state: "rolling", waitingForWindow: opening + DAY });
      expect(isOpen(held.lastBatchAt as number)).toBe(true);
      // The last batch begun inside the window was soaked and found healthy after it closed.
      const last = await sim.rollouts.members(TENANT, held.rolloutId, held.batches - 1);
      expect(last.every((member) => member.state === "healthy")).toBe(true);
      expect(Math.max(...last.map((member) => member.settledAt as number))).toBeGreaterThanOrEqual(
        opening + 2 * 60 * SECOND,
      );
      expect(held.counts.selected).toBeLessThan(300);

      sim.clock.time = opening + DAY - 20 * SECOND;
      await sim.runUntil(["completed"]);
      const done = await sim.rollout();
      expect(done.counts).toMatchObject({ selected: 300, healthy: 300 });
      const sent = [...sim.operations.records.values()];
      expect(sent).toHaveLength(300);
      expect(sent.every((record) => isOpen(record.createdAt))).toBe(true);
    });

    it("rolls back outside the window: a rollback is a safety action and never waits", async () => {
      const sim = await windowedClass(100, {
        [agentIdOf(1)]: "refuses",
        [agentIdOf(2)]: "refuses",
        [agentIdOf(3)]: "refuses",
      });
      // The agents heartbeat, then the canary starts 10 s before the window closes.
      sim.clock.time = opening + 100 * SECOND;
      await sim.step();
      expect((await sim.start()).rollout.counts.selected).toBe(20);
      await sim.runUntil(["rolled_back"]);
      const rollbacks = [...sim.operations.records.values()].filter((record) => record.args?.flowId === V1);
      expect(rollbacks.length).toBeGreaterThan(0);
      expect(rollbacks.every((record) => !isOpen(record.createdAt))).toBe(true);
    });
  });

  it("says why each agent failed: its acknowledgement, an ERROR bulletin during the soak, or silence", async () => {
    const sim = simulatedClass(50, {
      [agentIdOf(1)]: "refuses",
      [agentIdOf(2)]: "errors after applying",
      [agentIdOf(3)]: "goes silent",
    });
    await sim.start(plan({ canary: { count: 10 }, onFailure: "pause", failureThreshold: { count: 3 } }));
    await sim.runUntil(["paused"], 100);
    const reasons = Object.fromEntries(
      (await sim.rollouts.members(TENANT, (await sim.rollout()).rolloutId))
        .filter((member) => member.state === "failed")
        .map((member) => [member.agentId, member.reason]),
    );
    expect(reasons).toEqual({
      [agentIdOf(1)]: "Acknowledged NOT_APPLIED",
      [agentIdOf(2)]: "ERROR bulletin from PutS3Object: Access denied",
      [agentIdOf(3)]: expect.stringMatching(
        /^The operation timed out: Not acknowledged|^Stopped heartbeating/,
      ),
    });
  });
});

describe("a rollout's controls", () => {
  let sim: ReturnType<typeof simulatedClass>;
  beforeEach(() => {
    sim = simulatedClass(60);
  });

  const start = (changes: Partial<RolloutPlan> = {}) =>
    sim.start(plan({ canary: { percent: 10 }, batchSize: 20, ...changes }));

  it("completes at once in a class with no agent, and on a batch that finds the class index just ended", async () => {
    const empty = simulatedClass(0);
    await empty.start();
    await empty.runUntil(["completed"], 3);
    // 100 agents in batches of 100: the index's last page is full, so only the next read finds its end.
    const exact = simulatedClass(120);
    await exact.start();
    await exact.runUntil(["completed"], 50);
    expect((await exact.rollout()).counts).toMatchObject({ selected: 120, healthy: 120 });
  });

  it("leaves rollouts for the next run once the run's deadline has passed", async () => {
    await start();
    const late = await sim.engine.advanceAll(sim.clock.now());
    expect(late).toMatchObject({ looked: 0, deferred: 1 });
    expect(await sim.engine.advanceAll(sim.clock.now() + 1)).toMatchObject({ looked: 1, deferred: 0 });
  });

  it("sizes a percent canary from the class and refuses a second rollout while one runs", async () => {
    expect((await start()).rollout).toMatchObject({ classSize: 60, canarySize: 6 });
    await expect(start()).rejects.toMatchObject({ code: "rollout_in_progress" });
  });

  it("pauses on failures when told to, and a resume accepts them and carries on to the end", async () => {
    sim.agent(0).behaviour = "refuses";
    await start({ onFailure: "pause", failureThreshold: { count: 1 } });
    await sim.runUntil(["paused"]);
    const paused = await sim.rollout();
    expect(paused).toMatchObject({ resumeTo: "canary", reason: "1 of 6 updated agents failed" });
    // Paused: nothing moves on, however long it waits.
    for (let index = 0; index < 10; index++) await sim.step();
    expect((await sim.rollout()).batches).toBe(paused.batches);

    await sim.engine.resume(TENANT, paused.rolloutId);
    await sim.runUntil(["completed"]);
    expect((await sim.rollout()).counts).toMatchObject({ selected: 60, healthy: 59, failed: 1 });
  });

  it("keeps counting the failures that paused it once an abort has rolled them back", async () => {
    sim.agent(0).behaviour = "refuses";
    await start({ onFailure: "pause", failureThreshold: { count: 1 } });
    await sim.runUntil(["paused"]);
    await sim.engine.abort(TENANT, (await sim.rollout()).rolloutId, "alice");
    await sim.runUntil(["aborted"]);
    expect((await sim.rollout()).counts).toMatchObject({ selected: 6, failed: 1, rolledBack: 6 });
  });

  it("pauses by hand, refuses what the state does not allow, and an abort rolls back", async () => {
    const { rollout } = await start();
    await sim.step();
    await sim.engine.pause(TENANT, rollout.rolloutId, "alice");
    expect(await sim.rollout()).toMatchObject({ state: "paused", reason: "Paused by alice" });
    await expect(sim.engine.pause(TENANT, rollout.rolloutId, "alice")).rejects.toMatchObject({
      code: "rollout_state",
    });
    await sim.engine.abort(TENANT, rollout.rolloutId, "alice");
    await sim.runUntil(["aborted"]);
    expect(await sim.rollout()).toMatchObject({ state: "aborted", reason: "Aborted by alice" });
    expect([...sim.fleet.values()].every((agent) => agent.flowId === V1)).toBe(true);
    await expect(sim.engine.resume(TENANT, rollout.rolloutId)).rejects.toMatchObject({
      code: "rollout_state",
    });
  });

  it("reaches agents whose heartbeats read their queues between the markers and the write of their operations", async () => {
    const write = sim.operations.create.bind(sim.operations);
    // Every agent heartbeats while each batch's operations are being written: it finds its marker, reads an
    // empty queue, and clears the marker, as a heartbeat racing the sweeper on the agent API does.
    sim.operations.create = async (...args) => {
      for (const agent of sim.fleet.values()) await sim.heartbeat(agent);
      return write(...args);
    };
    await start();
    await sim.runUntil(["completed"], 100);
    expect((await sim.rollout()).counts).toMatchObject({ selected: 60, healthy: 60, failed: 0 });
  });

  it("pauses instead of rolling back when the class had no previous version", async () => {
    const record = await sim.catalog.get(TENANT, CLASS);
    sim.catalog.classes.set(`${TENANT}/${CLASS}`, { ...(record as AgentClassRecord), flowPolicy: undefined });
    sim.agent(0).behaviour = "refuses";
    await start({ failureThreshold: { count: 1 } });
    await sim.runUntil(["paused"]);
    expect((await sim.rollout()).reason).toBe(
      "1 of 6 updated agents failed; the class had no previous flow version to roll back to",
    );
  });

  it("holds while the cache is unreachable, and passes over agents that are offline", async () => {
    for (const index of [0, 1]) {
      sim.agent(index).online = false;
      sim.hotState.agentStates.set(`${TENANT}/${agentIdOf(index)}`, {
        flowId: V1,
        lastSeen: sim.clock.now() - 3_600 * SECOND,
      });
    }
    const { rollout } = await start();
    expect(rollout.counts).toMatchObject({ selected: 6, skipped: 2 });
    sim.hotState.down = true;
    const held = await sim.step();
    expect(held.heldBack).toBe(1);
    sim.hotState.down = false;
    await sim.runUntil(["completed"]);
    expect((await sim.rollout()).counts).toMatchObject({ selected: 58, healthy: 58, skipped: 2 });
  });
});

describe("a rollout that waits to start", () => {
  let sim: ReturnType<typeof simulatedClass>;
  beforeEach(async () => {
    sim = simulatedClass(40);
    await sim.flows.add(
      TENANT,
      { ...pumpsVersionRecord(V2, undefined), className: CLASS },
      new Uint8Array(2),
    );
  });
  const requireApproval = () => {
    const record = sim.catalog.classes.get(`${TENANT}/${CLASS}`) as AgentClassRecord;
    sim.catalog.classes.set(`${TENANT}/${CLASS}`, { ...record, requireApproval: true });
  };
  const create = (startAt?: number) =>
    sim.engine.start({
      tenant: TENANT,
      className: CLASS,
      toFlow: V2,
      plan: plan(),
      createdBy: "ops",
      startAt,
    });
  const untouched = async () => {
    expect(sim.catalog.classes.get(`${TENANT}/${CLASS}`)?.flowPolicy).toEqual({ target: V1, accepted: [V1] });
    expect(sim.hotState.classFlows.size).toBe(0);
    expect(sim.operations.records.size).toBe(0);
  };

  it("touches nothing until an operator other than its creator approves it, then starts", async () => {
    requireApproval();
    const { rollout } = await create();
    expect(rollout).toMatchObject({ state: "awaiting_approval", batches: 0 });
    for (let index = 0; index < 5; index++) await sim.step();
    expect(await sim.rollout()).toMatchObject({ state: "awaiting_approval", batches: 0 });
    await untouched();
    await expect(create()).rejects.toMatchObject({ code: "rollout_in_progress" });
    await expect(sim.engine.approve(TENANT, rollout.rolloutId, "ops")).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(sim.engine.pause(TENANT, rollout.rolloutId, "alice")).rejects.toMatchObject({
      code: "rollout_state",
    });
    await expect(sim.engine.abort(TENANT, rollout.rolloutId, "alice")).rejects.toMatchObject({
      code: "rollout_state",
    });

    sim.clock.advance(60 * SECOND);
    const approved = await sim.engine.approve(TENANT, rollout.rolloutId, "alice");
    expect(approved.rollout).toMatchObject({
      state: "canary",
      approvedBy: "alice",
      batches: 1,
      classSize: 40,
    });
    expect(approved.rollout.approvedAt).toBe(sim.clock.now());
    expect(sim.catalog.classes.get(`${TENANT}/${CLASS}`)?.flowPolicy?.accepted).toEqual([V1, V2]);
    expect(sim.rolloutEvents().map(({ from, state, by }) => ({ from, state, by }))).toEqual([
      { from: undefined, state: "awaiting_approval", by: undefined },
      { from: "awaiting_approval", state: "canary", by: "alice" },
    ]);
    await expect(sim.engine.approve(TENANT, rollout.rolloutId, "bob")).rejects.toMatchObject({
      code: "rollout_state",
    });
    await sim.runUntil(["completed"]);
  });

  it("ends refused, by another operator or its creator, and frees its class for the next", async () => {
    requireApproval();
    const { rollout } = await create();
    const refused = await sim.engine.refuse(TENANT, rollout.rolloutId, "ops", "Wrong version");
    expect(refused.rollout).toMatchObject({ state: "refused", refusedBy: "ops", reason: "Wrong version" });
    expect(refused.rollout.finishedAt).toBe(sim.clock.now());
    await untouched();
    expect(sim.catalog.classes.get(`${TENANT}/${CLASS}`)?.activeRolloutId).toBeUndefined();
    await expect(sim.engine.approve(TENANT, rollout.rolloutId, "alice")).rejects.toMatchObject({
      code: "rollout_state",
    });
    sim.clock.advance(1);
    const next = await create();
    await sim.engine.refuse(TENANT, next.rollout.rolloutId, "alice");
    expect((await sim.rollout()).reason).toBe("Refused by alice");
    expect(sim.rolloutEvents().at(-1)).toMatchObject({
      from: "awaiting_approval",
      state: "refused",
      by: "alice",
    });
  });

  it("waits scheduled for its start time, after its approval, and the sweeper starts it once due", async () => {
    requireApproval();
    const startAt = sim.clock.now() + 10 * 60 * SECOND;
    const { rollout } = await create(startAt);
    const approved = await sim.engine.approve(TENANT, rollout.rolloutId, "alice");
    expect(approved.rollout).toMatchObject({ state: "scheduled", approvedBy: "alice", batches: 0 });
    let run = await sim.step();
    while (sim.clock.now() < startAt) {
      expect(run).toMatchObject({ started: 0 });
      await untouched();
      run = await sim.step();
    }
    expect(run).toMatchObject({ started: 1, errors: [] });
    expect(await sim.rollout()).toMatchObject({ state: "canary", approvedBy: "alice", batches: 1 });
    expect(sim.rolloutEvents().at(-1)).toMatchObject({ from: "scheduled", state: "canary" });
    await sim.runUntil(["completed"]);
  });

  it("starts at once when its start time has passed, and ends refused by Beacon when it can no longer start", async () => {
    expect((await create(sim.clock.now() - 1)).rollout.state).toBe("canary");
    const other = simulatedClass(3);
    const { rollout } = await other.engine.start({
      tenant: TENANT,
      className: CLASS,
      toFlow: V2,
      plan: plan(),
      createdBy: "ops",
      startAt: other.clock.now() + 1,
    });
    expect(rollout.state).toBe("scheduled");
    // Its version is gone from the class by its start time.
    const run = await other.step();
    expect(run).toMatchObject({ started: 0, errors: [] });
    expect(await other.rollout()).toMatchObject({
      state: "refused",
      refusedBy: "beacon",
      reason: "Not started at its start time: The class has no such flow version",
    });
  });

  it("lets one of two approvals at once through; the other conflicts", async () => {
    requireApproval();
    const { rollout } = await create();
    const results = await Promise.allSettled([
      sim.engine.approve(TENANT, rollout.rolloutId, "alice"),
      sim.engine.approve(TENANT, rollout.rolloutId, "bob"),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    const [failed] = results.filter((result) => result.status === "rejected");
    expect((failed as PromiseRejectedResult).reason).toMatchObject({ code: "rollout_conflict" });
    expect((await sim.rollout()).state).toBe("canary");
  });
});

describe("a rollout of a class's staged values", () => {
  const BROKERS = "kafka.brokers";
  const value = (name: string, text: string) => ({
    name,
    value: { value: text },
    updatedAt: 0,
    updatedBy: "ops",
  });

  /** A class of 30 agents on V1, which declares the brokers; agent 2 holds a value of its own for them. */
  async function valuesClass() {
    const sim = simulatedClass(30);
    const declared = [
      { name: BROKERS, sensitive: false },
      { name: "site", sensitive: false, default: "plant" },
    ];
    await sim.flows.add(TENANT, { ...pumpsVersionRecord(V1, declared), className: CLASS }, new Uint8Array(2));
    await sim.parameters.put(TENANT, { layer: "class", className: CLASS }, value(BROKERS, "b1:9092"));
    await sim.parameters.put(TENANT, { layer: "agent", agentId: agentIdOf(2) }, value(BROKERS, "own:9092"));
    await sim.parameters.stage(TENANT, CLASS, { ...value(BROKERS, "b2:9092"), updatedAt: -1 });
    const inForce = [value(BROKERS, "b1:9092")];
    const brought = [value(BROKERS, "b2:9092")];
    const renderings = valueRenderings({ hash: V1, parameters: declared }, inForce, brought);
    if (!renderings) throw new Error("the staged brokers render V1 anew");
    for (const agent of sim.fleet.values()) {
      const own = await sim.parameters.list(TENANT, { layer: "agent", agentId: agent.agentId });
      agent.flowId = renderedFlowIdOf(renderings.from, ownValuesOf(own));
    }
    const start = (rolloutPlan: RolloutPlan) =>
      sim.engine.start({
        tenant: TENANT,
        className: CLASS,
        toFlow: V1,
        toFlowIds: [renderings.to.flowId],
        stagedValues: brought,
        plan: rolloutPlan,
        createdBy: "ops",
      });
    return { ...sim, renderings, start };
  }

  it("moves only the agents whose rendered flow changes, by the rollout's download, then puts the values in force", async () => {
    const sim = await valuesClass();
    const { renderings } = sim;
    const started = await sim.start(plan({ canary: { count: 1 }, batchSize: 10, batchIntervalSeconds: 0 }));
    expect(started.rollout).toMatchObject({
      stagedValues: true,
      fromFlow: V1,
      toFlow: V1,
      counts: { selected: 1 },
    });
    // While it runs, catch-up accepts both renderings, the one in force still its target.
    expect(sim.hotState.classFlows.get(`${TENANT}/${CLASS}`)).toMatchObject({
      target: V1,
      accepted: [renderings.from.flowId, renderings.to.flowId],
      renderings: [renderings.from, renderings.to],
    });
    await sim.runUntil(["completed"]);
    const rollout = await sim.rollout();
    expect(rollout.counts).toMatchObject({ selected: 29, healthy: 29, failed: 0, skipped: 1 });
    expect(sim.agent(2).received).toEqual([]);
    expect(sim.agent(0).received).toEqual([renderings.to.flowId]);
    const update = (await sim.operations.list(TENANT, { agentId: agentIdOf(0), limit: 1 })).items[0];
    expect(update?.args?.location).toContain(
      `/agents/${agentIdOf(0)}/rollouts/${rollout.rolloutId}/flows/${V1}/`,
    );
    // Completed: the values are the class's, nothing is staged, and catch-up holds agents to them.
    expect(await sim.parameters.list(TENANT, { layer: "class", className: CLASS })).toMatchObject([
      { name: BROKERS, value: { value: "b2:9092" } },
    ]);
    expect(await sim.parameters.staged(TENANT, CLASS)).toEqual([]);
    expect(sim.hotState.classFlows.get(`${TENANT}/${CLASS}`)).toMatchObject({
      target: V1,
      accepted: [renderings.to.flowId],
      renderings: [renderings.to],
    });
  });

  it("returns its members to the values in force when it rolls back, and leaves them in force", async () => {
    const sim = await valuesClass();
    const { renderings } = sim;
    const started = await sim.start(plan({ canary: { count: 5 } }));
    await sim.step();
    await sim.engine.abort(TENANT, started.rollout.rolloutId, "ops");
    await sim.runUntil(["aborted"]);
    for (const index of [0, 1, 3, 4, 5]) expect(sim.agent(index).flowId).toBe(renderings.from.flowId);
    expect(await sim.parameters.list(TENANT, { layer: "class", className: CLASS })).toMatchObject([
      { name: BROKERS, value: { value: "b1:9092" } },
    ]);
    expect(await sim.parameters.staged(TENANT, CLASS)).toHaveLength(1);
    expect(sim.hotState.classFlows.get(`${TENANT}/${CLASS}`)).toMatchObject({
      accepted: [renderings.from.flowId],
      renderings: [renderings.from],
    });
  });
});

/** The group "north": the agents labelled site=north, the first `count` of the class, labelled here. */
async function northGroup(sim: ReturnType<typeof simulatedClass>, count: number) {
  for (let index = 0; index < count; index++) await labelNorth(sim, index);
  await sim.groupStore.create({
    tenant: TENANT,
    name: "north",
    query: { labels: ["site=north"] },
    createdAt: sim.clock.now(),
    updatedAt: sim.clock.now(),
  });
}

async function labelNorth(sim: ReturnType<typeof simulatedClass>, index: number) {
  expect(await sim.registry.putLabels(TENANT, agentIdOf(index), { site: "north" })).toBe(true);
}

describe("a continuous rollout to a group", () => {
  it("updates the group's members of the class only, holds them by assignments over the class's target, follows agents that join, and ends when finished", async () => {
    const sim = simulatedClass(60);
    await northGroup(sim, 20);
    const started = await sim.engine.start({
      tenant: TENANT,
      className: CLASS,
      group: "north",
      continuous: true,
      toFlow: V2,
      plan: plan({ canary: { count: 5 }, batchSize: 10 }),
      createdBy: "ops",
    });
    expect(started.rollout).toMatchObject({ group: "north", continuous: true, classSize: 20, canarySize: 5 });
    await sim.runUntil(["following"]);
    const members = [...sim.fleet.values()]
      .filter((agent) => agent.flowId === V2)
      .map((agent) => agent.agentId);
    expect(members).toEqual(Array.from({ length: 20 }, (_, index) => agentIdOf(index)));
    // The class's target stays where it was: the members are held by their assignments over it.
    expect((await sim.catalog.get(TENANT, CLASS))?.flowPolicy?.target).toBe(V1);
    expect((await sim.registry.get(TENANT, agentIdOf(3)))?.assignment).toMatchObject({
      flow: V2,
      flowIds: [V2],
      over: V1,
    });
    expect(sim.hotState.assignments.get(`${TENANT}/${agentIdOf(3)}`)).toMatchObject({ flow: V2, over: V1 });
    expect((await sim.registry.get(TENANT, agentIdOf(30)))?.assignment).toBeUndefined();

    // An agent that joins the group later is reached, once; the others are not touched again.
    await labelNorth(sim, 42);
    for (let steps = 0; sim.agent(42).flowId !== V2; steps++) {
      expect(steps).toBeLessThan(50);
      await sim.step();
    }
    for (let steps = 0; steps < 10; steps++) await sim.step();
    expect((await sim.rollout()).state).toBe("following");
    expect((await sim.rollout()).counts).toMatchObject({ selected: 21, healthy: 21, failed: 0 });
    expect(sim.agent(3).received).toEqual([V2]);
    expect(sim.agent(30).received).toEqual([]);

    const finished = await sim.engine.finish(TENANT, (await sim.rollout()).rolloutId, "ops");
    expect(finished.rollout).toMatchObject({ state: "completed", reason: "Finished by ops" });
    expect(await sim.catalog.get(TENANT, CLASS)).toMatchObject({
      flowPolicy: { target: V1, accepted: [V1] },
    });
    expect((await sim.catalog.get(TENANT, CLASS))?.activeRolloutId).toBeUndefined();
    expect(sim.rolloutEvents().map((event) => `${event.from ?? "-"}→${event.state}`)).toEqual([
      "-→canary",
      "canary→rolling",
      "rolling→following",
      "following→completed",
    ]);
    expect(sim.rolloutEvents().every((event) => event.group === "north")).toBe(true);
  });

  it("returns a group's members to the previous version on a rollback and drops their assignments", async () => {
    const sim = simulatedClass(40, {
      "agent-0007": "errors after applying",
      "agent-0008": "errors after applying",
    });
    await northGroup(sim, 10);
    await sim.engine.start({
      tenant: TENANT,
      className: CLASS,
      group: "north",
      toFlow: V2,
      plan: plan({ canary: { count: 10 }, failureThreshold: { count: 2 } }),
      createdBy: "ops",
    });
    await sim.runUntil(["rolled_back"]);
    for (let index = 0; index < 10; index++) {
      expect(sim.agent(index).flowId).toBe(V1);
      expect((await sim.registry.get(TENANT, agentIdOf(index)))?.assignment).toBeUndefined();
    }
    expect(sim.agent(20).received).toEqual([]);
    expect((await sim.catalog.get(TENANT, CLASS))?.flowPolicy?.target).toBe(V1);
  });

  it("finishes only once it follows, paused while following included; its members keep their assignments", async () => {
    const sim = simulatedClass(20);
    await northGroup(sim, 4);
    const { rollout } = await sim.engine.start({
      tenant: TENANT,
      className: CLASS,
      group: "north",
      continuous: true,
      toFlow: V2,
      plan: plan({ canary: { count: 2 }, batchSize: 2 }),
      createdBy: "ops",
    });
    await expect(sim.engine.finish(TENANT, rollout.rolloutId, "ops")).rejects.toMatchObject({
      code: "rollout_state",
    });
    await sim.runUntil(["following"]);
    await sim.engine.pause(TENANT, rollout.rolloutId, "ops");
    const finished = await sim.engine.finish(TENANT, rollout.rolloutId, "ops");
    expect(finished.rollout.state).toBe("completed");
    expect(finished.rollout.resumeTo).toBeUndefined();
    expect((await sim.registry.get(TENANT, agentIdOf(1)))?.assignment).toMatchObject({ flow: V2, over: V1 });
    expect((await sim.catalog.get(TENANT, CLASS))?.flowPolicy?.target).toBe(V1);
  });

  it("refuses a group whose query names other classes, and a missing group", async () => {
    const sim = simulatedClass(2);
    await sim.groupStore.create({
      tenant: TENANT,
      name: "others",
      query: { classes: ["pumps"] },
      createdAt: sim.clock.now(),
      updatedAt: sim.clock.now(),
    });
    const start = (group: string) =>
      sim.engine.start({
        tenant: TENANT,
        className: CLASS,
        group,
        toFlow: V2,
        plan: plan(),
        createdBy: "ops",
      });
    await expect(start("others")).rejects.toMatchObject({ code: "invalid_request" });
    await expect(start("missing")).rejects.toMatchObject({ code: "not_found" });
  });
});
