import { describe, expect, it } from "vitest";
import { MemoryClassCatalog } from "../../adapters/memory/class-catalog.js";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryFleetHotState } from "../../adapters/memory/fleet-hot-state.js";
import { MemoryFleetRegistry } from "../../adapters/memory/fleet-registry.js";
import { MAX_PAGE_SIZE } from "../paging.js";
import { makeAgentReader } from "./agents.js";

function readerOver(agents: { agentId: string; agentClass: string; lastSeenAgo: number }[]) {
  const registry = new MemoryFleetRegistry();
  const clock = new ManualClock();
  for (const { agentId, agentClass, lastSeenAgo } of agents)
    registry.add({
      tenant: "acme",
      agentId,
      agentClass,
      firstSeen: clock.now() - lastSeenAgo,
      lastSeen: clock.now() - lastSeenAgo,
    });
  return makeAgentReader({
    registry,
    catalog: new MemoryClassCatalog(),
    hotState: new MemoryFleetHotState(),
    clock,
    registryLagMs: 0,
    groupFilters: async () => undefined,
  });
}

const ids = (count: number, prefix = "a-") =>
  Array.from({ length: count }, (_, index) => `${prefix}${String(index).padStart(4, "0")}`);

describe("the agent reader's selection", () => {
  it("reads on past one list page until it has the agents asked for, in agent id order", async () => {
    const reader = readerOver(
      ids(MAX_PAGE_SIZE + 50).map((agentId) => ({ agentId, agentClass: "pumps", lastSeenAgo: 0 })),
    );
    const selected = await reader.select("acme", { agentClass: "pumps" }, MAX_PAGE_SIZE + 20);
    expect(selected.map((agent) => agent.agentId)).toEqual(ids(MAX_PAGE_SIZE + 20));
    expect(await reader.select("acme", { agentClass: "pumps" }, 10_000)).toHaveLength(MAX_PAGE_SIZE + 50);
  });

  it("reads a selection on from where a step stopped, to its end, each agent once", async () => {
    const reader = readerOver(
      ids(2 * MAX_PAGE_SIZE + 30).map((agentId) => ({ agentId, agentClass: "pumps", lastSeenAgo: 0 })),
    );
    const steps: string[][] = [];
    let after: string | undefined;
    do {
      const step = await reader.selectAfter("acme", { agentClass: "pumps" }, MAX_PAGE_SIZE + 10, after);
      steps.push(step.items.map((agent) => agent.agentId));
      after = step.next;
    } while (after !== undefined);
    expect(steps.map((step) => step.length)).toEqual([MAX_PAGE_SIZE + 10, MAX_PAGE_SIZE + 10, 10]);
    expect(steps.flat()).toEqual(ids(2 * MAX_PAGE_SIZE + 30));
  });

  it("pages through the list to its end, a page's most at a time, from after the agent id given", async () => {
    const reader = readerOver(
      ids(2 * MAX_PAGE_SIZE + 50).map((agentId) => ({ agentId, agentClass: "pumps", lastSeenAgo: 0 })),
    );
    const pages: string[][] = [];
    for await (const page of reader.pages("acme", { agentClass: "pumps" }, { after: ids(30).at(-1) }))
      pages.push(page.items.map((agent) => agent.agentId));
    expect(pages.map((page) => page.length)).toEqual([MAX_PAGE_SIZE, MAX_PAGE_SIZE, 20]);
    expect(pages.flat()).toEqual(ids(2 * MAX_PAGE_SIZE + 50).slice(30));
  });

  it("selects what the list shows for the filters: the class's online agents", async () => {
    const reader = readerOver([
      { agentId: "a-1", agentClass: "pumps", lastSeenAgo: 0 },
      { agentId: "a-2", agentClass: "pumps", lastSeenAgo: 3_600_000 },
      { agentId: "a-3", agentClass: "valves", lastSeenAgo: 0 },
      { agentId: "a-4", agentClass: "pumps", lastSeenAgo: 0 },
    ]);
    const selected = await reader.select("acme", { agentClass: "pumps", status: "online" }, 10);
    expect(selected.map((agent) => agent.agentId)).toEqual(["a-1", "a-4"]);
  });
});
