import { describe, expect, it } from "vitest";
import { cppAgentOf, example, javaAgentOf } from "../../../scripts/common/c2-examples.js";
import { coreHarness } from "../../../scripts/test-support/core-harness.js";
import { MemoryClassCatalog } from "../../adapters/memory/class-catalog.js";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryEventSink } from "../../adapters/memory/event-sink.js";
import { MemoryFleetRegistry } from "../../adapters/memory/fleet-registry.js";
import { MemoryHotState } from "../../adapters/memory/hot-state.js";
import { SequentialIds } from "../../adapters/memory/id-generator.js";
import type { AgentCredential } from "../identity/credentials.js";
import { heartbeatPeriodMsOf, makeOfflineSweep } from "./presence.js";

const MINUTE = 60_000;

function harness(settings = { maxPerLook: 100, maxPerRun: 1_000 }) {
  const presence = new MemoryHotState();
  const events = new MemoryEventSink();
  const clock = new ManualClock();
  const classes = new MemoryClassCatalog();
  const silentAgents = new MemoryFleetRegistry();
  const sweeper = makeOfflineSweep({
    presence,
    classes,
    silentAgents,
    events,
    clock,
    ids: new SequentialIds(),
    settings,
  });
  /** A heartbeat as the cache records it. */
  async function beat(tenant: string, agentId: string, agentClass = "pumps", manifestHash?: string) {
    await presence.rememberClass(tenant, agentClass);
    await presence.rememberRevocations(tenant, []);
    return presence.recordSighting({
      tenant,
      agentId,
      agentClass,
      manifestHash,
      serialNumber: "01",
      now: clock.now(),
      checkpointIntervalMs: 10 * MINUTE,
      catchUpRetryMs: 30 * MINUTE,
    });
  }
  /** The agent's manifest, learned after its heartbeat, states its heartbeat period. */
  async function statePeriod(
    tenant: string,
    agentId: string,
    manifestHash: string,
    heartbeatPeriodMs: number,
  ) {
    const known = { hash: manifestHash, manifestId: "binary-1", supportedOperations: {}, heartbeatPeriodMs };
    await presence.rememberAgentManifest(tenant, agentId, known);
  }
  const announced = () => events.events.map((event) => event.type === "agent.offline" && event.agentId);
  return { presence, classes, silentAgents, events, clock, sweeper, beat, statePeriod, announced };
}

describe("the period a class holds its agents to", () => {
  it("is its heartbeat interval, one minute when none is set", () => {
    expect(heartbeatPeriodMsOf(undefined)).toBe(MINUTE);
    expect(heartbeatPeriodMsOf({})).toBe(MINUTE);
    expect(heartbeatPeriodMsOf({ heartbeatIntervalSeconds: 5 })).toBe(5_000);
  });
});

describe("the offline sweep", () => {
  it("announces an agent silent for three periods once, in every tenant, and again only after it came back", async () => {
    const { events, clock, sweeper, beat } = harness();
    const start = clock.now();
    await beat("acme", "pump-1");
    await beat("other", "valve-1", "valves");
    clock.advance(2 * MINUTE);
    await beat("acme", "pump-2");
    clock.advance(MINUTE + 1);

    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toEqual({ announced: 2, more: false });
    expect(events.events).toEqual([
      expect.objectContaining({ type: "agent.offline", tenant: "acme", agentId: "pump-1", lastSeen: start }),
      expect.objectContaining({
        type: "agent.offline",
        tenant: "other",
        agentId: "valve-1",
        agentClass: "valves",
      }),
    ]);
    expect(events.events[0]).toMatchObject({ heartbeatPeriodMs: MINUTE, at: clock.now() });
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toEqual({ announced: 0, more: false });

    const back = await beat("acme", "pump-1");
    expect(back.recorded && back.sighting.offlineLastSeen).toBe(start);
    const steady = await beat("acme", "pump-1");
    expect(steady.recorded && steady.sighting.offlineLastSeen).toBeUndefined();
    clock.advance(3 * MINUTE + 1);
    await sweeper.sweepTenant("acme");
    expect(events.events.slice(2).map((event) => event.type === "agent.offline" && event.agentId)).toEqual([
      "pump-2",
      "pump-1",
    ]);
  });

  it("files each agent it announces in the registry's silent index, by its last heartbeat", async () => {
    const { silentAgents, clock, sweeper, beat } = harness();
    const start = clock.now();
    silentAgents.add({
      tenant: "acme",
      agentId: "pump-1",
      agentClass: "pumps",
      firstSeen: start,
      lastSeen: start,
    });
    await beat("acme", "pump-1");
    clock.advance(3 * MINUTE + 1);
    await sweeper.sweep(Number.POSITIVE_INFINITY);
    expect(await silentAgents.silentBefore("acme", "pumps", clock.now(), 10)).toEqual([
      { agentId: "pump-1", agentClass: "pumps", lastSeen: start },
    ]);
  });

  it("holds each class to its own interval", async () => {
    const { presence, events, clock, sweeper, beat } = harness();
    await presence.rememberClassFlow("acme", "sensors", undefined, 5_000);
    await beat("acme", "sensor-1", "sensors");
    await beat("acme", "pump-1");
    clock.advance(16_000);
    await sweeper.sweep(Number.POSITIVE_INFINITY);
    expect(events.events).toEqual([
      expect.objectContaining({ agentId: "sensor-1", heartbeatPeriodMs: 5_000, agentClass: "sensors" }),
    ]);
  });

  it("holds an agent whose manifest states its heartbeat period to that, shorter or longer than its class's", async () => {
    const { presence, events, clock, sweeper, beat, statePeriod, announced } = harness();
    await presence.rememberClassFlow("acme", "sensors", undefined, 5_000);
    for (const agentId of ["quick", "slow", "plain"]) await beat("acme", agentId, "sensors", `m-${agentId}`);
    // Learned after the heartbeat that scheduled the agents with their class's period: they are scheduled anew.
    await statePeriod("acme", "quick", "m-quick", 2_000);
    await statePeriod("acme", "slow", "m-slow", 20_000);
    clock.advance(6_001);
    await sweeper.sweep(Number.POSITIVE_INFINITY);
    expect(events.events).toEqual([
      expect.objectContaining({ agentId: "quick", heartbeatPeriodMs: 2_000, agentClass: "sensors" }),
    ]);
    clock.advance(9_000);
    await sweeper.sweep(Number.POSITIVE_INFINITY);
    expect(announced()).toEqual(["quick", "plain"]);

    // The slow agent heartbeats every 20 s: it is never announced between its heartbeats.
    for (let beats = 0; beats < 3; beats++) {
      await beat("acme", "slow", "sensors");
      clock.advance(20_000);
      await sweeper.sweep(Number.POSITIVE_INFINITY);
    }
    expect(announced()).toEqual(["quick", "plain"]);
    clock.advance(40_001);
    await sweeper.sweep(Number.POSITIVE_INFINITY);
    expect(events.events[2]).toMatchObject({
      agentId: "slow",
      heartbeatPeriodMs: 20_000,
      lastSeen: clock.now() - 60_001,
    });
  });

  it("holds an agent to its class's period only while the manifest stating its own is the one it reports", async () => {
    const { presence, events, clock, sweeper, beat, statePeriod } = harness();
    await presence.rememberClassFlow("acme", "sensors", undefined, 5_000);
    await beat("acme", "sensor-1", "sensors", "m-1");
    await statePeriod("acme", "sensor-1", "m-1", 20_000);
    await beat("acme", "sensor-1", "sensors", "m-2");
    clock.advance(15_001);
    await sweeper.sweep(Number.POSITIVE_INFINITY);
    expect(events.events).toEqual([
      expect.objectContaining({ agentId: "sensor-1", heartbeatPeriodMs: 5_000 }),
    ]);
  });

  it("keeps the period an agent was held to when the cache lost its class's: a lost policy never shortens it", async () => {
    const { presence, events, clock, sweeper, beat } = harness();
    await presence.rememberClassFlow("acme", "sensors", undefined, 5 * MINUTE);
    await beat("acme", "sensor-1", "sensors");
    presence.classFlows.clear();
    presence.classPeriods.clear();
    await beat("acme", "sensor-1", "sensors");
    clock.advance(14 * MINUTE);
    await sweeper.sweep(Number.POSITIVE_INFINITY);
    expect(events.events).toEqual([]);
    clock.advance(MINUTE + 1);
    await sweeper.sweep(Number.POSITIVE_INFINITY);
    expect(events.events).toEqual([
      expect.objectContaining({ agentId: "sensor-1", heartbeatPeriodMs: 5 * MINUTE }),
    ]);
  });

  it("announces at most its bound a run, the oldest silence first, and the rest in the next runs", async () => {
    const { clock, sweeper, beat, announced } = harness({ maxPerLook: 2, maxPerRun: 3 });
    for (const agentId of ["pump-1", "pump-2", "pump-3", "pump-4", "pump-5"]) {
      await beat("acme", agentId);
      clock.advance(1_000);
    }
    clock.advance(3 * MINUTE);
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toMatchObject({ announced: 3, more: true });
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toMatchObject({ announced: 2, more: false });
    expect(announced()).toEqual(["pump-1", "pump-2", "pump-3", "pump-4", "pump-5"]);
  });

  it("stops at the run's deadline and leaves the rest for the next run", async () => {
    const { clock, sweeper, beat } = harness({ maxPerLook: 1, maxPerRun: 100 });
    for (const agentId of ["pump-1", "pump-2"]) await beat("acme", agentId);
    clock.advance(3 * MINUTE + 1);
    expect(await sweeper.sweep(clock.now())).toMatchObject({ announced: 0, more: true });
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toMatchObject({ announced: 2, more: false });
  });

  it("announces an agent restarting for an operation only once its restart's deadline is three periods past", async () => {
    const { presence, events, clock, sweeper, beat } = harness();
    await beat("acme", "pump-1");
    const deliveredAt = clock.now();
    await presence.rememberRestart("acme", "pump-1", deliveredAt + 5 * MINUTE);
    await beat("acme", "pump-2");
    await presence.rememberRestart("acme", "pump-2", deliveredAt + 5 * MINUTE);
    clock.advance(4 * MINUTE);
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toEqual({ announced: 0, more: false });

    // Back from its restart, and steady.
    await beat("acme", "pump-2");
    clock.advance(2 * MINUTE);
    await beat("acme", "pump-2");
    clock.advance(2 * MINUTE);
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toEqual({ announced: 0, more: false });
    clock.advance(1);
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toEqual({ announced: 1, more: false });
    expect(events.events).toEqual([
      expect.objectContaining({ type: "agent.offline", agentId: "pump-1", lastSeen: deliveredAt }),
    ]);
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toEqual({ announced: 0, more: false });
  });

  it("schedules, once per tenant and bounded by its run, the agents silent since before Beacon scheduled agents", async () => {
    const { presence, classes, events, clock, sweeper, beat, announced } = harness({
      maxPerLook: 1,
      maxPerRun: 2,
    });
    await classes.put("acme", "sensors", { heartbeatIntervalSeconds: 5 }, clock.now());
    const lastSeen = clock.now();
    // As a Beacon that did not schedule agents left them: in their class's index, not scheduled.
    for (const agentId of ["old-1", "old-2", "old-3", "announced"]) {
      await beat("acme", agentId, "sensors");
      presence.offlineDue.delete(`acme/${agentId}`);
    }
    presence.offlineMarks.set("acme/announced", lastSeen);
    clock.advance(15_001);
    // Two agents read a run: the one announced before is read, and left alone.
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toMatchObject({ announced: 1, more: true });
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toMatchObject({ announced: 2, more: true });
    expect(presence.tenantsScheduled).toEqual(new Set());
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toMatchObject({ announced: 0, more: false });
    expect(announced()).toEqual(["old-1", "old-2", "old-3"]);
    expect(events.events[0]).toMatchObject({ agentClass: "sensors", lastSeen, heartbeatPeriodMs: 5_000 });
    expect(presence.tenantsScheduled).toEqual(new Set(["acme"]));
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toEqual({ announced: 0, more: false });
  });

  it("keeps its marks when the stream fails: the outage is not announced twice", async () => {
    const { events, clock, sweeper, beat } = harness();
    await beat("acme", "pump-1");
    clock.advance(4 * MINUTE);
    events.failing = true;
    const failed = await sweeper.sweep(Number.POSITIVE_INFINITY);
    expect(failed).toMatchObject({ announced: 1, streamError: expect.any(Error) });
    events.failing = false;
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toEqual({ announced: 0, more: false });
  });
});

describe("the heartbeat of an agent announced offline", () => {
  const agent: AgentCredential = {
    kind: "agent",
    tenant: "acme",
    agentId: "probe-agent-1",
    serialNumber: "02",
  };

  it("puts agent.online beside its heartbeat event, once", async () => {
    const core = coreHarness();
    await core.recordHeartbeat(agent, example("java-2.3.0/heartbeat-light.json"));
    const marked = await core.hotState.markOverdue("acme", core.clock.now() + 3 * MINUTE + 1, 10);
    expect(marked.marked).toEqual([
      {
        agentId: "probe-agent-1",
        agentClass: "probe-class",
        lastSeen: core.clock.now(),
        heartbeatPeriodMs: MINUTE,
      },
    ]);
    const lastSeen = core.clock.now();
    core.clock.advance(5 * MINUTE);
    const before = core.events.events.length;
    await core.recordHeartbeat(agent, example("java-2.3.0/heartbeat-light.json"));
    expect(core.events.events.slice(before).map((event) => event.type)).toEqual([
      "heartbeat",
      "agent.online",
    ]);
    expect(core.events.events[before + 1]).toMatchObject({
      agentId: "probe-agent-1",
      agentClass: "probe-class",
      at: core.clock.now(),
      lastSeen,
    });
    const after = core.events.events.length;
    await core.recordHeartbeat(agent, example("java-2.3.0/heartbeat-light.json"));
    expect(core.events.events.slice(after).map((event) => event.type)).toEqual(["heartbeat"]);
  });
});

describe("the period a heartbeat holds its agent to", () => {
  const credential = (agentId: string): AgentCredential => ({
    kind: "agent",
    tenant: "acme",
    agentId,
    serialNumber: `serial-${agentId}`,
  });

  it("is the one its manifest states once Beacon learns it, else its class's interval as the registry holds it", async () => {
    const core = coreHarness();
    core.classFlows.heartbeatIntervals.set("acme/pumps", 20);
    const java = javaAgentOf("java-1", "pumps");
    const cpp = cppAgentOf("cpp-1", "pumps");
    await core.recordHeartbeat(credential("java-1"), java.full());
    await core.recordHeartbeat(credential("cpp-1"), cpp.light());
    expect(core.hotState.classPeriods.get("acme/pumps")).toBe(20_000);
    const periodOf = (agentId: string) => core.hotState.offlineDue.get(`acme/${agentId}`)?.heartbeatPeriodMs;
    expect(periodOf("java-1")).toBe(5_000);
    expect(periodOf("cpp-1")).toBe(20_000);

    await core.recordHeartbeat(credential("cpp-1"), cpp.full());
    expect(periodOf("cpp-1")).toBe(30_000);
    core.clock.advance(MINUTE);
    await core.recordHeartbeat(credential("cpp-1"), cpp.light());
    expect(core.hotState.offlineDue.get("acme/cpp-1")).toMatchObject({
      heartbeatPeriodMs: 30_000,
      at: core.clock.now() + 90_000,
    });
  });
});
