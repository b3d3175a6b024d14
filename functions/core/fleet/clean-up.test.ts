import { describe, expect, it } from "vitest";
import { MemoryClassCatalog } from "../../adapters/memory/class-catalog.js";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryEventOutbox } from "../../adapters/memory/event-outbox.js";
import { MemoryEventSink } from "../../adapters/memory/event-sink.js";
import { MemoryFleetHotState } from "../../adapters/memory/fleet-hot-state.js";
import { MemoryFleetRegistry } from "../../adapters/memory/fleet-registry.js";
import { SequentialIds } from "../../adapters/memory/id-generator.js";
import { MemoryTenantSettings } from "../../adapters/memory/tenant-settings.js";
import { cleanUpAgeOf, cleanUpBefore, cleanUpVerdict, makeFleetCleanUp } from "./clean-up.js";

const DAY = 24 * 60 * 60 * 1000;

describe("the clean-up's decisions", () => {
  it("hold a class to its own age over the tenant's default, to the default without one, never without either", () => {
    expect(cleanUpAgeOf({ cleanUpAfterDays: 7 }, { cleanUpAfterDays: 30 })).toBe(7);
    expect(cleanUpAgeOf({ cleanUpAfterDays: 7 }, {})).toBe(7);
    expect(cleanUpAgeOf({}, { cleanUpAfterDays: 30 })).toBe(30);
    expect(cleanUpAgeOf({}, {})).toBeUndefined();
  });

  it("are due once silent longer than the class's age", () => {
    expect(cleanUpBefore(30, 100 * DAY)).toBe(70 * DAY);
  });

  it("take an agent the cache saw since it went silent as back, one it did not (or lost) as due", () => {
    const silent = { agentId: "a-1", agentClass: "pumps", lastSeen: 5 * DAY };
    expect(cleanUpVerdict(silent, { lastSeen: 5 * DAY + 1 })).toBe("back");
    expect(cleanUpVerdict(silent, { lastSeen: 5 * DAY })).toBe("decommission");
    expect(cleanUpVerdict(silent, {})).toBe("decommission");
    expect(cleanUpVerdict(silent, undefined)).toBe("decommission");
  });
});

describe("the clean-up", () => {
  function harness(maxPerRun = 100) {
    const outbox = new MemoryEventOutbox();
    const registry = new MemoryFleetRegistry(outbox);
    const hotState = new MemoryFleetHotState();
    const classes = new MemoryClassCatalog();
    const tenantSettings = new MemoryTenantSettings();
    const events = new MemoryEventSink();
    const clock = new ManualClock();
    const cleanUp = makeFleetCleanUp({
      presence: { tenants: async () => ["acme"] },
      classes,
      tenantSettings,
      registry,
      hotState,
      events,
      clock,
      ids: new SequentialIds(),
      settings: { maxPerRun },
    });
    /** An agent last seen at `lastSeen` and announced offline since. */
    async function silentAgent(agentId: string, agentClass: string, lastSeen: number) {
      registry.add({ tenant: "acme", agentId, agentClass, firstSeen: 0, lastSeen });
      hotState.agentStates.set(`acme/${agentId}`, { agentClass, lastSeen });
      await registry.markSilent("acme", { agentId, agentClass, lastSeen });
    }
    const sweep = () => cleanUp.sweep(Number.POSITIVE_INFINITY);
    return { registry, outbox, hotState, classes, tenantSettings, events, clock, silentAgent, sweep };
  }

  it("decommissions an agent silent past its class's age once, keeping its entry, and announces it", async () => {
    const { registry, outbox, hotState, classes, events, clock, silentAgent, sweep } = harness();
    const start = clock.now();
    await classes.put("acme", "pumps", { cleanUpAfterDays: 7 }, start);
    await silentAgent("a-1", "pumps", start);
    clock.advance(7 * DAY);
    expect(await sweep()).toEqual({ decommissioned: 0, cameBack: 0, more: false });
    clock.advance(1);
    expect(await sweep()).toEqual({ decommissioned: 1, cameBack: 0, more: false });
    expect(events.events).toEqual([
      {
        type: "agent.decommissioned",
        version: 1,
        eventId: expect.any(String),
        tenant: "acme",
        agentId: "a-1",
        at: clock.now(),
        agentClass: "pumps",
        lastSeen: start,
        cleanUpAfterDays: 7,
      },
    ]);
    expect(await registry.get("acme", "a-1")).toBeUndefined();
    expect(registry.decommissioned.get("acme/a-1")?.decommissioning).toEqual({
      at: clock.now(),
      reason: "silent",
      lastSeen: start,
      event: events.events[0],
    });
    // Staged with the decommissioning: the outbox's relay announces it should the sweeper die before it does.
    expect([...outbox.staged.values()]).toEqual(events.events);
    expect(hotState.agentStates.has("acme/a-1")).toBe(false);
    clock.advance(DAY);
    expect(await sweep()).toEqual({ decommissioned: 0, cameBack: 0, more: false });
    expect(events.events).toHaveLength(1);
  });

  it("keeps the agents of a class without the setting, and those that came back", async () => {
    const { registry, hotState, classes, events, clock, silentAgent, sweep } = harness();
    const start = clock.now();
    await classes.put("acme", "pumps", { cleanUpAfterDays: 1 }, start);
    await classes.put("acme", "valves", { description: "kept" }, start);
    await silentAgent("a-1", "pumps", start);
    await silentAgent("a-2", "valves", start);
    clock.advance(DAY / 2);
    hotState.agentStates.set("acme/a-1", { agentClass: "pumps", lastSeen: clock.now() });
    clock.advance(100 * DAY);
    expect(await sweep()).toEqual({ decommissioned: 0, cameBack: 1, more: false });
    expect(events.events).toEqual([]);
    expect(await registry.get("acme", "a-1")).toBeDefined();
    expect(await registry.get("acme", "a-2")).toBeDefined();
    expect(registry.silent.has("acme/a-1")).toBe(false);
  });

  it("holds classes without their own age to the tenant's default, and those with one to theirs", async () => {
    const { registry, classes, tenantSettings, events, clock, silentAgent, sweep } = harness();
    const start = clock.now();
    await tenantSettings.put("acme", { cleanUpAfterDays: 2 }, start);
    await classes.put("acme", "pumps", { description: "follows the tenant" }, start);
    await classes.put("acme", "valves", { cleanUpAfterDays: 5 }, start);
    await silentAgent("a-1", "pumps", start);
    await silentAgent("a-2", "valves", start);
    clock.advance(2 * DAY + 1);
    expect(await sweep()).toEqual({ decommissioned: 1, cameBack: 0, more: false });
    expect(events.events).toEqual([
      expect.objectContaining({ agentId: "a-1", agentClass: "pumps", cleanUpAfterDays: 2 }),
    ]);
    expect(await registry.get("acme", "a-2")).toBeDefined();
    clock.advance(3 * DAY);
    expect(await sweep()).toEqual({ decommissioned: 1, cameBack: 0, more: false });
    expect(events.events[1]).toMatchObject({ agentId: "a-2", cleanUpAfterDays: 5 });
  });

  it("keeps the agents of a class whose own age was unset while the tenant has none", async () => {
    const { registry, classes, tenantSettings, clock, silentAgent, sweep } = harness();
    const start = clock.now();
    await tenantSettings.put("acme", { cleanUpAfterDays: 1 }, start);
    await classes.put("acme", "pumps", { cleanUpAfterDays: 1 }, start);
    await classes.put("acme", "pumps", { cleanUpAfterDays: null }, start);
    await tenantSettings.put("acme", { cleanUpAfterDays: null }, start);
    await silentAgent("a-1", "pumps", start);
    clock.advance(100 * DAY);
    expect(await sweep()).toEqual({ decommissioned: 0, cameBack: 0, more: false });
    expect(await registry.get("acme", "a-1")).toBeDefined();
  });

  it("decides nothing while the cache is down", async () => {
    const { registry, hotState, classes, clock, silentAgent, sweep } = harness();
    await classes.put("acme", "pumps", { cleanUpAfterDays: 1 }, clock.now());
    await silentAgent("a-1", "pumps", clock.now());
    clock.advance(2 * DAY);
    hotState.down = true;
    await expect(sweep()).rejects.toThrow();
    expect(await registry.get("acme", "a-1")).toBeDefined();
  });

  it("looks at most at its bound of agents a run, earliest silent first; the next run goes on", async () => {
    const { registry, classes, clock, silentAgent, sweep } = harness(2);
    const start = clock.now();
    await classes.put("acme", "pumps", { cleanUpAfterDays: 1 }, start);
    for (const index of [3, 1, 2]) await silentAgent(`a-${index}`, "pumps", start + index);
    clock.advance(2 * DAY);
    expect(await sweep()).toEqual({ decommissioned: 2, cameBack: 0, more: true });
    expect(await registry.get("acme", "a-3")).toBeDefined();
    expect(await sweep()).toEqual({ decommissioned: 1, cameBack: 0, more: false });
    expect(await registry.get("acme", "a-3")).toBeUndefined();
  });
});
