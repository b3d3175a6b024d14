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

describe("the agents that need attention", () => {
  async function fleetOf(agents: { agentId: string; agentClass: string; lastSeenAgo: number }[]) {
    const registry = new MemoryFleetRegistry();
    const catalog = new MemoryClassCatalog();
    const hotState = new MemoryFleetHotState();
    const clock = new ManualClock();
    for (const { agentId, agentClass, lastSeenAgo } of agents) {
      const lastSeen = clock.now() - lastSeenAgo;
      registry.add({ tenant: "acme", agentId, agentClass, firstSeen: lastSeen, lastSeen });
      hotState.agentStates.set(`acme/${agentId}`, { agentClass, lastSeen });
      await catalog.put("acme", agentClass, {}, clock.now());
    }
    const reader = makeAgentReader({
      registry,
      catalog,
      hotState,
      clock,
      registryLagMs: 0,
      groupFilters: async () => undefined,
    });
    return { reader, hotState, clock };
  }

  it("lists only the agents a reason holds, each with its reasons, and any reason's reason after reason", async () => {
    const { reader, hotState, clock } = await fleetOf([
      { agentId: "a-1", agentClass: "pumps", lastSeenAgo: 0 },
      { agentId: "a-2", agentClass: "pumps", lastSeenAgo: 0 },
      { agentId: "a-3", agentClass: "valves", lastSeenAgo: 3_600_000 },
      { agentId: "a-4", agentClass: "valves", lastSeenAgo: 0 },
    ]);
    hotState.attentionIndex("acme", "pumps", "errorBulletins").set("a-2", clock.now() + 60_000);
    hotState.attentionIndex("acme", "valves", "backPressure").set("a-4", clock.now());
    hotState.attentionIndex("acme", "valves", "pinned").set("a-4", clock.now());
    const listed = async (attention: "any" | "errorBulletins" | "offline", agentClass?: string) =>
      (await reader.page("acme", { attention, agentClass }, 50)).items.map(({ agentId, attention }) => ({
        agentId,
        attention,
      }));
    expect(await listed("errorBulletins")).toEqual([{ agentId: "a-2", attention: ["errorBulletins"] }]);
    expect(await listed("offline")).toEqual([{ agentId: "a-3", attention: ["offline"] }]);
    expect(await listed("any")).toEqual([
      { agentId: "a-3", attention: ["offline"] },
      { agentId: "a-2", attention: ["errorBulletins"] },
      { agentId: "a-4", attention: ["backPressure", "pinned"] },
    ]);
    expect(await listed("any", "pumps")).toEqual([{ agentId: "a-2", attention: ["errorBulletins"] }]);
    // Every list tells each agent's reasons, none for an agent that needs no attention.
    const all = await reader.page("acme", {}, 50);
    expect(all.items.find((agent) => agent.agentId === "a-1")?.attention).toEqual([]);
    // ERROR bulletins past their time hold no more.
    clock.advance(60_000);
    expect(await listed("errorBulletins")).toEqual([]);
  });

  it("pages through them by agent id, and lists none while the cache is down", async () => {
    const { reader, hotState, clock } = await fleetOf(
      ids(5).map((agentId) => ({ agentId, agentClass: "pumps", lastSeenAgo: 0 })),
    );
    for (const agentId of ids(5))
      hotState.attentionIndex("acme", "pumps", "offTarget").set(agentId, clock.now());
    const first = await reader.page("acme", { attention: "offTarget" }, 3);
    expect(first.items.map(({ agentId }) => agentId)).toEqual(ids(3));
    const second = await reader.page("acme", { attention: "offTarget", after: first.next }, 3);
    expect(second.items.map(({ agentId }) => agentId)).toEqual(ids(5).slice(3));
    expect(second.next).toBeUndefined();
    await expect(reader.page("acme", { attention: "offTarget", after: "a-3" }, 3)).rejects.toThrow(
      /cursor is not one this list returned/,
    );
    hotState.down = true;
    const down = await reader.page("acme", { attention: "offTarget" }, 3);
    expect(down.items).toEqual([]);
    expect(down.cacheError).toBeDefined();
  });

  it("pages through any reason's agents each once, by since when, either way, reading a page's worth each time", async () => {
    const { reader, hotState, clock } = await fleetOf(
      ids(6).map((agentId) => ({ agentId, agentClass: "pumps", lastSeenAgo: 0 })),
    );
    const since = (minutesAgo: number) => clock.now() - minutesAgo * 60_000;
    // a-0..a-3 off target since 4, 3, 2 and 1 minutes; a-1 and a-5 back-pressured, a-1 since before it.
    for (const [index, agentId] of ids(4).entries())
      hotState.attentionIndex("acme", "pumps", "offTarget").set(agentId, since(4 - index));
    const [a0, a1, a2, a3, , a5] = ids(6);
    hotState.attentionIndex("acme", "pumps", "backPressure").set(a1 as string, since(9));
    hotState.attentionIndex("acme", "pumps", "backPressure").set(a5 as string, since(8));
    const read = hotState.attentionPage.bind(hotState);
    const asked: number[] = [];
    hotState.attentionPage = async (...args) => {
      asked.push(args[4].limit);
      return read(...args);
    };
    const all = async (descending: boolean) => {
      const listed: string[] = [];
      let after: string | undefined;
      do {
        const page = await reader.page("acme", { attention: "any", after, descending }, 2);
        listed.push(...page.items.map(({ agentId }) => agentId));
        after = page.next;
      } while (after !== undefined);
      return listed;
    };
    // Back pressure comes before off target; a-1 is listed under its first reason only.
    expect(await all(false)).toEqual([a1, a5, a0, a2, a3]);
    expect(await all(true)).toEqual([a5, a1, a3, a2, a0]);
    expect(Math.max(...asked)).toBe(2);
  });
});
