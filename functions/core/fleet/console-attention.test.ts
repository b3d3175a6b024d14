import { describe, expect, it } from "vitest";
import { MemoryClassCatalog } from "../../adapters/memory/class-catalog.js";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryFleetHotState } from "../../adapters/memory/fleet-hot-state.js";
import { MemoryFleetRegistry } from "../../adapters/memory/fleet-registry.js";
import type { Principal } from "../identity/principal.js";
import { makeFleetAttention } from "./console-attention.js";

const viewer: Principal = { tenant: "acme", role: "viewer", subject: "ann" };

describe("the fleet's attention counts", () => {
  it("count each class's agents per reason: offline from its class index, the others from the attention indexes", async () => {
    const catalog = new MemoryClassCatalog();
    const hotState = new MemoryFleetHotState();
    const clock = new ManualClock();
    await catalog.put("acme", "pumps", {}, clock.now());
    await catalog.put("acme", "valves", {}, clock.now());
    hotState.agentStates.set("acme/a-1", { agentClass: "pumps", lastSeen: clock.now() });
    hotState.agentStates.set("acme/a-2", { agentClass: "pumps", lastSeen: clock.now() - 3_600_000 });
    hotState.attentionIndex("acme", "pumps", "errorBulletins").set("a-1", clock.now() + 60_000);
    hotState.attentionIndex("acme", "pumps", "errorBulletins").set("a-2", clock.now());
    hotState.attentionIndex("acme", "valves", "offTarget").set("a-3", clock.now());
    const fleetAttention = makeFleetAttention({
      catalog,
      registry: new MemoryFleetRegistry(),
      hotState,
      classFlowCache: hotState,
      clock,
      registryLagMs: 0,
    });
    const none = { errorBulletins: 0, backPressure: 0, offTarget: 0, pinned: 0, operationFailed: 0 };
    expect((await fleetAttention(viewer)).body).toEqual({
      items: [
        { name: "pumps", reasons: { ...none, offline: 1, errorBulletins: 1 } },
        { name: "valves", reasons: { ...none, offline: 0, offTarget: 1 } },
      ],
      classesTruncated: false,
    });
    // Without the cache, only offline agents are counted, from the registry.
    hotState.down = true;
    const down = await fleetAttention(viewer);
    expect(down.body).toEqual({
      items: [
        { name: "pumps", reasons: { offline: 0 } },
        { name: "valves", reasons: { offline: 0 } },
      ],
      classesTruncated: false,
    });
    expect(down.cacheError).toBeDefined();
  });
});
