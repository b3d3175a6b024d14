import { describe, expect, it } from "vitest";
import { MemoryClassCatalog } from "../../adapters/memory/class-catalog.js";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryFleetHotState } from "../../adapters/memory/fleet-hot-state.js";
import { MemoryFleetRegistry } from "../../adapters/memory/fleet-registry.js";
import { MemoryGroupStore } from "../../adapters/memory/group-store.js";
import { MemoryManifestCatalog } from "../../adapters/memory/manifest-catalog.js";
import type { AgentRecord } from "../agents/ports.js";
import { type MergedAgent, makeAgentReader } from "../fleet/agents.js";
import { accumulateCounts, makeGroupCounting, passDue } from "./counting.js";
import { makeGroupMembership } from "./membership.js";
import type { Group } from "./ports.js";

const NOW = Date.UTC(2026, 10, 21);
const MINUTE = 60_000;

const record = (agentId: string, change: Partial<AgentRecord> = {}): AgentRecord => ({
  tenant: "acme",
  agentId,
  agentClass: "pumps",
  firstSeen: NOW - 10 * MINUTE,
  lastSeen: NOW,
  ...change,
});

const manifestRecord = (manifestId: string, agentType: string, version: string) => ({
  manifestId,
  agentType,
  version,
  bundleCount: 1,
  processorTypeCount: 1,
  controllerServiceTypeCount: 0,
  jsonBytes: 2,
  gzipBytes: 2,
  createdAt: NOW,
});

const merged = (agent: AgentRecord, status: "online" | "offline" = "online"): MergedAgent => ({
  record: agent,
  hot: undefined,
  agentClass: agent.agentClass,
  lastSeen: agent.lastSeen,
  lastSeenFrom: "registry",
  status,
});

describe("the groups' member counts", () => {
  it("adds each agent to every group whose filters pick it, and none to a group no agent can join", () => {
    const agents = [
      merged(record("a-1", { labels: { site: "north" } })),
      merged(record("a-2", { agentClass: "valves", labels: { site: "north" } }), "offline"),
      merged(record("a-3", { device: { operatingSystem: "Linux" } })),
    ];
    const counts = accumulateCounts({ pumps: 5, north: 1 }, agents, [
      { name: "pumps", filters: { agentClass: "pumps" } },
      { name: "north", filters: { labels: [{ key: "site", value: "north" }] } },
      { name: "north-online", filters: { labels: [{ key: "site", value: "north" }], status: "online" } },
      { name: "linux", filters: { operatingSystem: "Linux" } },
      { name: "nobody", filters: undefined },
    ]);
    expect(counts).toEqual({ pumps: 7, north: 3, "north-online": 1, linux: 1 });
  });

  it("is due when no pass ended yet, while one is under way, and an interval after the last ended", () => {
    expect(passDue({}, NOW, 5 * MINUTE)).toBe(true);
    expect(passDue({ finishedAt: NOW - 4 * MINUTE }, NOW, 5 * MINUTE)).toBe(false);
    expect(passDue({ finishedAt: NOW - 5 * MINUTE }, NOW, 5 * MINUTE)).toBe(true);
    const running = { startedAt: NOW, groups: [], counts: {} };
    expect(passDue({ finishedAt: NOW, running }, NOW, 5 * MINUTE)).toBe(true);
  });
});

describe("a tenant's counting pass", () => {
  function world() {
    const clock = new ManualClock(NOW);
    const registry = new MemoryFleetRegistry();
    const groups = new MemoryGroupStore();
    const hotState = new MemoryFleetHotState();
    const catalog = new MemoryManifestCatalog();
    const membership = makeGroupMembership(catalog);
    const reader = makeAgentReader({
      registry,
      catalog: new MemoryClassCatalog(),
      hotState,
      clock,
      registryLagMs: 0,
      groupFilters: async () => undefined,
    });
    const counting = makeGroupCounting({
      groups,
      membership,
      registry,
      reader,
      catalog,
      clock,
      settings: { intervalMs: 5 * MINUTE, agentsPerRead: 2, maxReadsPerRun: 2 },
    });
    const group = (name: string, query: Group["query"], updatedAt = NOW - MINUTE): Group => ({
      tenant: "acme",
      name,
      query,
      createdAt: updatedAt,
      updatedAt,
    });
    return { clock, registry, groups, catalog, counting, group };
  }

  it("counts every group over reads continued across runs, and writes the counts once it read every agent", async () => {
    const { clock, registry, groups, counting, group } = world();
    for (let index = 1; index <= 5; index++)
      registry.add(record(`a-${index}`, { agentClass: index % 2 === 0 ? "valves" : "pumps" }));
    await groups.create(group("pumps", { classes: ["pumps"] }));
    await groups.create(group("all", {}));
    const deadline = NOW + 60 * MINUTE;

    const first = await counting.sweep(["acme"], deadline);
    expect(first).toMatchObject({ passesEnded: 0, agentsRead: 4, more: true });
    expect((await groups.get("acme", "all"))?.memberCount).toBeUndefined();
    expect((await groups.countingState("acme")).running).toMatchObject({
      after: "a-4",
      counts: { all: 4, pumps: 2 },
    });

    // A group changed during the pass is left to the next one.
    await groups.replace(group("pumps", { classes: ["pumps", "valves"] }, NOW + 1));
    clock.advance(MINUTE);
    const second = await counting.sweep(["acme"], deadline);
    expect(second).toMatchObject({ passesEnded: 1, groupsCounted: 1, more: false });
    expect(await groups.get("acme", "all")).toMatchObject({ memberCount: 5, countedAt: NOW + MINUTE });
    expect((await groups.get("acme", "pumps"))?.memberCount).toBeUndefined();

    // Not due until the interval passed: then the changed group and a new agent are counted.
    registry.add(record("a-6"));
    expect(await counting.sweep(["acme"], deadline)).toMatchObject({ agentsRead: 0, more: false });
    clock.advance(5 * MINUTE);
    await counting.sweep(["acme"], deadline);
    await counting.sweep(["acme"], deadline);
    expect(await groups.get("acme", "all")).toMatchObject({ memberCount: 6, countedAt: NOW + 6 * MINUTE });
    expect(await groups.get("acme", "pumps")).toMatchObject({ memberCount: 6 });
  });

  it("counts groups on status and last seen by the agents' statuses", async () => {
    const { registry, groups, counting, group } = world();
    registry.add(record("a-1", { lastSeen: NOW - 60 * MINUTE }));
    registry.add(record("a-2"));
    await groups.create(group("online", { status: "online" }));
    await groups.create(group("silent", { silentForMinutes: 30 }));
    await counting.sweep(["acme"], NOW + MINUTE);
    expect(await groups.get("acme", "online")).toMatchObject({ memberCount: 1 });
    expect(await groups.get("acme", "silent")).toMatchObject({ memberCount: 1 });
  });

  it("counts a tenant's agents by class and binary, groups or not, each binary named from its manifest", async () => {
    const { registry, groups, catalog, counting } = world();
    const java = "a".repeat(64);
    const cpp = "c".repeat(64);
    catalog.add("acme", manifestRecord(java, "minifi-java", "2.3.0"), "{}");
    catalog.add("acme", manifestRecord(cpp, "cpp", "0.15.0"), "{}");
    const running = (manifestId: string) => ({
      manifestHash: `h-${manifestId}`,
      manifest: { hash: `h-${manifestId}`, manifestId, supportedOperations: [] },
    });
    registry.add(record("a-1", running(java)));
    registry.add(record("a-2", running(java)));
    registry.add(record("a-3", { agentClass: "valves", ...running(java) }));
    registry.add(record("a-4", { agentClass: "valves", ...running(cpp) }));
    // Its manifest is of another hash than the one it reports now: its binary is not known.
    registry.add(record("a-5", { ...running(cpp), manifestHash: "h-changed" }));

    await counting.sweep(["acme"], NOW + MINUTE);
    await counting.sweep(["acme"], NOW + MINUTE);
    expect((await groups.countingState("acme")).binaries).toEqual({
      countedAt: NOW,
      items: [
        { className: "pumps", name: "Binary not yet known", agents: 1 },
        {
          className: "valves",
          manifestId: cpp,
          name: "MiNiFi C++ 0.15.0 · ccccccc",
          agentType: "cpp",
          version: "0.15.0",
          agents: 1,
        },
        {
          className: "pumps",
          manifestId: java,
          name: "MiNiFi Java 2.3.0 · aaaaaaa",
          agentType: "minifi-java",
          version: "2.3.0",
          agents: 2,
        },
        {
          className: "valves",
          manifestId: java,
          name: "MiNiFi Java 2.3.0 · aaaaaaa",
          agentType: "minifi-java",
          version: "2.3.0",
          agents: 1,
        },
      ],
    });
  });
});
