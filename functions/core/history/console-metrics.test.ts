import { describe, expect, it } from "vitest";
import { MemoryClassCatalog } from "../../adapters/memory/class-catalog.js";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryFleetHotState } from "../../adapters/memory/fleet-hot-state.js";
import { MemoryFleetRegistry } from "../../adapters/memory/fleet-registry.js";
import { MemoryFleetHistory } from "../../adapters/memory/history.js";
import type { Principal } from "../identity/principal.js";
import { makeFleetMetrics } from "./console-metrics.js";
import { zeroCounts } from "./model.js";
import { emptySketch } from "./sketch.js";

const viewer: Principal = { tenant: "acme", role: "viewer", subject: "ann" };

async function fleet() {
  const catalog = new MemoryClassCatalog();
  const hotState = new MemoryFleetHotState();
  const clock = new ManualClock();
  await catalog.put("acme", "pumps", {}, clock.now());
  await catalog.put("acme", "valves", {}, clock.now());
  await catalog.put("other", "pumps", {}, clock.now());
  const valves = catalog.classes.get("acme/valves");
  if (valves) valves.activeRolloutId = "r-1";
  hotState.agentStates.set("acme/a-1", { agentClass: "pumps", lastSeen: clock.now() });
  hotState.agentStates.set("acme/a-2", { agentClass: "pumps", lastSeen: clock.now() - 3_600_000 });
  hotState.agentStates.set("acme/a-3", { agentClass: "valves", lastSeen: clock.now() });
  hotState.agentStates.set("other/b-1", { agentClass: "pumps", lastSeen: clock.now() });
  hotState.attentionIndex("acme", "pumps", "errorBulletins").set("a-1", clock.now() + 60_000);
  hotState.attentionIndex("acme", "valves", "backPressure").set("a-3", clock.now());
  hotState.attentionIndex("other", "pumps", "backPressure").set("b-1", clock.now());
  const lastMinute = Math.floor(clock.now() / 60_000) - 1;
  hotState.heartbeats.set(`acme/${lastMinute}`, 42);
  hotState.heartbeats.set(`acme/${lastMinute + 1}`, 7);
  hotState.heartbeatTotalsByClass.set("acme/pumps", 1_200);
  hotState.heartbeatTotalsByClass.set("acme/valves", 600);
  hotState.heartbeatTotalsByClass.set("other/pumps", 5);
  const history = new MemoryFleetHistory();
  const bucket = (tenant: string, agentClass: string, minute: number, counts: Record<string, number>) =>
    history.update({ tenant, agentClass, minute }, () => ({
      tenant,
      agentClass,
      minute,
      counts: { ...zeroCounts(), ...counts },
      agentsSeen: emptySketch(),
      positions: {},
    }));
  await bucket("acme", "pumps", lastMinute, { operationsQueued: 4, operationsFailed: 1, errorBulletins: 2 });
  await bucket("acme", "pumps", lastMinute + 1, { operationsQueued: 9 });
  await bucket("other", "pumps", lastMinute, { operationsDone: 3 });
  const fleetMetrics = makeFleetMetrics({
    history,
    catalog,
    registry: new MemoryFleetRegistry(),
    hotState,
    classFlowCache: hotState,
    clock,
    registryLagMs: 0,
  });
  return { fleetMetrics, hotState };
}

const samplesOf = (text: string) => text.split("\n").filter((line) => line !== "" && !line.startsWith("#"));

describe("the fleet's metrics", () => {
  it("expose the tenant's agents by class and status, attention by reason, rollouts and heartbeats, as OpenMetrics", async () => {
    const { fleetMetrics } = await fleet();
    const result = await fleetMetrics(viewer);
    expect(result.contentType).toBe("application/openmetrics-text; version=1.0.0; charset=utf-8");
    const text = result.body as string;
    expect(text.endsWith("# EOF\n")).toBe(true);
    expect(text).toContain("# TYPE beacon_agents gauge\n");
    expect(samplesOf(text)).toEqual([
      'beacon_agents{class="pumps",status="online"} 1',
      'beacon_agents{class="valves",status="online"} 1',
      'beacon_agents{class="pumps",status="offline"} 1',
      'beacon_agents{class="valves",status="offline"} 0',
      'beacon_agents_attention{class="pumps",reason="offline"} 1',
      'beacon_agents_attention{class="valves",reason="offline"} 0',
      'beacon_agents_attention{class="pumps",reason="errorBulletins"} 1',
      'beacon_agents_attention{class="valves",reason="errorBulletins"} 0',
      'beacon_agents_attention{class="pumps",reason="backPressure"} 0',
      'beacon_agents_attention{class="valves",reason="backPressure"} 1',
      'beacon_agents_attention{class="pumps",reason="offTarget"} 0',
      'beacon_agents_attention{class="valves",reason="offTarget"} 0',
      'beacon_agents_attention{class="pumps",reason="pinned"} 0',
      'beacon_agents_attention{class="valves",reason="pinned"} 0',
      'beacon_agents_attention{class="pumps",reason="operationFailed"} 0',
      'beacon_agents_attention{class="valves",reason="operationFailed"} 0',
      'beacon_rollouts_in_progress{class="pumps"} 0',
      'beacon_rollouts_in_progress{class="valves"} 1',
      'beacon_heartbeats_total{class="pumps"} 1200',
      'beacon_heartbeats_total{class="valves"} 600',
      // The last whole minute's, not the current one's.
      "beacon_heartbeats_last_minute 42",
      // Fleet history's last whole minute, per class and state.
      'beacon_operations_last_minute{class="pumps",state="queued"} 4',
      'beacon_operations_last_minute{class="valves",state="queued"} 0',
      'beacon_operations_last_minute{class="pumps",state="delivered"} 0',
      'beacon_operations_last_minute{class="valves",state="delivered"} 0',
      'beacon_operations_last_minute{class="pumps",state="done"} 0',
      'beacon_operations_last_minute{class="valves",state="done"} 0',
      'beacon_operations_last_minute{class="pumps",state="failed"} 1',
      'beacon_operations_last_minute{class="valves",state="failed"} 0',
      'beacon_operations_last_minute{class="pumps",state="timed_out"} 0',
      'beacon_operations_last_minute{class="valves",state="timed_out"} 0',
      'beacon_operations_last_minute{class="pumps",state="cancelled"} 0',
      'beacon_operations_last_minute{class="valves",state="cancelled"} 0',
      'beacon_bulletins_last_minute{class="pumps",level="ERROR"} 2',
      'beacon_bulletins_last_minute{class="valves",level="ERROR"} 0',
      "beacon_counts_from_cache 1",
      "beacon_classes_truncated 0",
    ]);
  });

  it("keep to a class-limited token's classes, without the tenant-wide heartbeat count", async () => {
    const { fleetMetrics } = await fleet();
    const text = (await fleetMetrics({ ...viewer, classes: ["valves"] })).body as string;
    const samples = samplesOf(text);
    expect(samples.filter((line) => line.includes('class="pumps"'))).toEqual([]);
    expect(samples).toContain('beacon_agents{class="valves",status="online"} 1');
    expect(samples.some((line) => line.startsWith("beacon_heartbeats_last_minute"))).toBe(false);
    // Still described, so a dashboard's query finds the family.
    expect(text).toContain("# TYPE beacon_heartbeats_last_minute gauge\n");
    // A class's own heartbeat counter is its own to see.
    expect(samples).toContain('beacon_heartbeats_total{class="valves"} 600');
    expect(text).toContain("# TYPE beacon_heartbeats counter\n");
  });

  it("count only offline agents, from the registry, while the cache is down, and say so", async () => {
    const { fleetMetrics, hotState } = await fleet();
    hotState.down = true;
    const result = await fleetMetrics(viewer);
    expect(result.cacheError).toBeDefined();
    const samples = samplesOf(result.body as string);
    expect(samples.filter((line) => line.startsWith("beacon_agents_attention"))).toEqual([
      'beacon_agents_attention{class="pumps",reason="offline"} 0',
      'beacon_agents_attention{class="valves",reason="offline"} 0',
    ]);
    expect(samples).toContain("beacon_counts_from_cache 0");
    // A counter it cannot read is left out rather than reset to 0, which a rate() would read as a restart.
    expect(samples.some((line) => line.startsWith("beacon_heartbeats_total"))).toBe(false);
  });
});
