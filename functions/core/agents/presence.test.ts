import { describe, expect, it } from "vitest";
import { example } from "../../../scripts/c2-examples.js";
import { coreHarness } from "../../../scripts/test-support/core-harness.js";
import { MemoryClassCatalog } from "../../adapters/memory/console.js";
import { ManualClock, MemoryEventSink, MemoryHotState, SequentialIds } from "../../adapters/memory/index.js";
import type { AgentCredential } from "../identity/credentials.js";
import { heartbeatPeriodMsOf, makeOfflineSweep, offlineCutoff } from "./presence.js";

const MINUTE = 60_000;

function harness(settings = { maxPerClassPerLook: 100, maxPerRun: 1_000 }) {
  const presence = new MemoryHotState();
  const classes = new MemoryClassCatalog();
  const events = new MemoryEventSink();
  const clock = new ManualClock();
  const sweeper = makeOfflineSweep({ presence, classes, events, clock, ids: new SequentialIds(), settings });
  /** A heartbeat as the cache records it: the class is one the console lists. */
  async function beat(tenant: string, agentId: string, agentClass = "pumps") {
    if (!(await classes.get(tenant, agentClass))) await classes.put(tenant, agentClass, {}, clock.now());
    await presence.rememberClass(tenant, agentClass);
    await presence.rememberRevocations(tenant, []);
    return presence.recordSighting({
      tenant,
      agentId,
      agentClass,
      serialNumber: "01",
      now: clock.now(),
      checkpointIntervalMs: 10 * MINUTE,
      catchUpRetryMs: 30 * MINUTE,
    });
  }
  return { presence, classes, events, clock, sweeper, beat };
}

describe("who is overdue", () => {
  it("is an agent last seen before three of its class's heartbeat periods, one minute when none is set", () => {
    expect(heartbeatPeriodMsOf(undefined)).toBe(MINUTE);
    const record = { tenant: "acme", name: "pumps", createdAt: 0, autoCreated: false };
    expect(heartbeatPeriodMsOf({ ...record, heartbeatIntervalSeconds: 5 })).toBe(5_000);
    expect(offlineCutoff(10 * MINUTE, MINUTE)).toBe(7 * MINUTE);
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

  it("holds each class to its own interval", async () => {
    const { classes, events, clock, sweeper, beat } = harness();
    await classes.put("acme", "sensors", { heartbeatIntervalSeconds: 5 }, clock.now());
    await beat("acme", "sensor-1", "sensors");
    await beat("acme", "pump-1");
    clock.advance(16_000);
    await sweeper.sweep(Number.POSITIVE_INFINITY);
    expect(events.events).toEqual([
      expect.objectContaining({ agentId: "sensor-1", heartbeatPeriodMs: 5_000, agentClass: "sensors" }),
    ]);
  });

  it("announces at most its bound a run, the oldest silence first, and the rest in the next runs", async () => {
    const { events, clock, sweeper, beat } = harness({ maxPerClassPerLook: 2, maxPerRun: 3 });
    for (const agentId of ["pump-1", "pump-2", "pump-3", "pump-4", "pump-5"]) {
      await beat("acme", agentId);
      clock.advance(1_000);
    }
    clock.advance(3 * MINUTE);
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toMatchObject({ announced: 2, more: true });
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toMatchObject({ announced: 2, more: true });
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toMatchObject({ announced: 1, more: false });
    expect(events.events.map((event) => event.type === "agent.offline" && event.agentId)).toEqual([
      "pump-1",
      "pump-2",
      "pump-3",
      "pump-4",
      "pump-5",
    ]);
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
    clock.advance(2 * MINUTE + 1);
    expect(await sweeper.sweep(Number.POSITIVE_INFINITY)).toEqual({ announced: 1, more: false });
    expect(events.events).toEqual([
      expect.objectContaining({ type: "agent.offline", agentId: "pump-1", lastSeen: deliveredAt }),
    ]);
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
    const marked = await core.hotState.markOverdue("acme", "probe-class", core.clock.now() + 1, 10);
    expect(marked.marked).toEqual([{ agentId: "probe-agent-1", lastSeen: core.clock.now() }]);
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
