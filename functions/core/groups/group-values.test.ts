import { describe, expect, it, vi } from "vitest";
import { MemoryClassCatalog } from "../../adapters/memory/class-catalog.js";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryFleetHotState } from "../../adapters/memory/fleet-hot-state.js";
import { MemoryFleetRegistry } from "../../adapters/memory/fleet-registry.js";
import { MemoryGroupStore } from "../../adapters/memory/group-store.js";
import { MemoryManifestCatalog } from "../../adapters/memory/manifest-catalog.js";
import { MemoryParameterStore } from "../../adapters/memory/parameter-store.js";
import type { AgentRecord } from "../agents/ports.js";
import { makeAgentReader } from "../fleet/agents.js";
import { type ValuesOverClassHints, valuesOverClass } from "../parameters/over-class.js";
import { makeAgentFlowIds, ownValuesOf } from "../parameters/rendered-flow-ids.js";
import {
  byParameterPrecedence,
  GROUPS_COPY_KEPT_MS,
  makeGroupValues,
  valuesIneligibility,
} from "./group-values.js";
import { makeGroupMembership } from "./membership.js";
import type { Group } from "./ports.js";

const NOW = Date.UTC(2026, 10, 29);

const record = (agentId: string, change: Partial<AgentRecord> = {}): AgentRecord => ({
  tenant: "acme",
  agentId,
  agentClass: "pumps",
  firstSeen: NOW,
  lastSeen: NOW,
  ...change,
});

const value = (name: string, text: string) => ({
  name,
  value: { value: text },
  updatedAt: NOW,
  updatedBy: "alice",
});

describe("which groups may hold parameter values", () => {
  it("those selecting on what agents are, not on what they do", () => {
    expect(
      valuesIneligibility({
        classes: ["pumps"],
        labels: ["site=north"],
        agentType: "minifi-java",
        agentVersion: { atLeast: "1.0.0" },
        manifestIds: [],
        components: [],
        operatingSystem: "Linux",
        machineArch: "x86_64",
      }),
    ).toBeUndefined();
    expect(valuesIneligibility({ labels: ["site"], flowId: "f" })).toContain("uses flowId");
    expect(valuesIneligibility({ status: "offline", seenWithinMinutes: 5, silentForMinutes: 1 })).toContain(
      "uses status, seenWithinMinutes, silentForMinutes",
    );
  });
});

describe("the groups' precedence", () => {
  it("orders by priority, lowest first, and equal priorities by name, the last sorting last", () => {
    const groups = [
      { name: "b", parameterPriority: 0 },
      { name: "z" },
      { name: "a", parameterPriority: 5 },
      { name: "c", parameterPriority: -1 },
      { name: "y", parameterPriority: 5 },
    ];
    expect(byParameterPrecedence(groups).map(({ name }) => name)).toEqual(["c", "b", "z", "a", "y"]);
  });

  it("lays each group's values over those before it, and the agent's own over them all", () => {
    const values = valuesOverClass(
      [
        { group: "low", values: [value("site", "low"), value("broker", "low")] },
        { group: "high", values: [value("site", "high")] },
      ],
      [value("region", "own"), value("broker", "own")],
    );
    expect(values).toEqual([
      { name: "broker", value: { value: "low" }, layer: "group", group: "low" },
      { name: "site", value: { value: "high" }, layer: "group", group: "high" },
      { name: "broker", value: { value: "own" }, layer: "agent" },
      { name: "region", value: { value: "own" }, layer: "agent" },
    ]);
    expect(Object.fromEntries(ownValuesOf(values))).toEqual({
      broker: { value: "own" },
      site: { value: "high" },
      region: { value: "own" },
    });
  });
});

describe("an agent's values over its class", () => {
  function world() {
    const clock = new ManualClock(NOW);
    const registry = new MemoryFleetRegistry();
    const groups = new MemoryGroupStore();
    const parameters = new MemoryParameterStore();
    const membership = makeGroupMembership(new MemoryManifestCatalog());
    const values = makeGroupValues({ groups, parameters, registry, membership, clock });
    const group = async (
      name: string,
      query: Group["query"],
      names: Record<string, string>,
      priority?: number,
    ) => {
      await groups.create({
        tenant: "acme",
        name,
        query,
        createdAt: NOW,
        updatedAt: NOW,
        ...(priority === undefined ? {} : { parameterPriority: priority }),
      });
      for (const [parameter, text] of Object.entries(names)) {
        await parameters.put("acme", { layer: "group", group: name }, value(parameter, text));
        await groups.markParameter("acme", name, parameter, true);
      }
    };
    for (const agent of [
      record("north-1", { labels: { site: "north" } }),
      record("north-2", { labels: { site: "north", tier: "gold" } }),
      record("south-1", { labels: { site: "south" } }),
    ])
      registry.agents.set(`acme/${agent.agentId}`, agent);
    return { registry, groups, parameters, values, group, clock };
  }

  it("takes the values of the groups it is a member of, the higher priority's over the lower's, its own over all", async () => {
    const { values, parameters, group } = world();
    await group("north", { labels: ["site=north"] }, { site: "north", broker: "north" }, 1);
    await group("gold", { labels: ["tier=gold"] }, { broker: "gold", tier: "gold" });
    await group("a-gold", { labels: ["tier=gold"] }, { tier: "a-gold" });
    await group("valves", { classes: ["valves"] }, { site: "valves" });
    await parameters.put("acme", { layer: "agent", agentId: "north-2" }, value("site", "own"));
    expect(await values.overClass("acme", "north-1")).toEqual([
      { name: "broker", value: { value: "north" }, layer: "group", group: "north" },
      { name: "site", value: { value: "north" }, layer: "group", group: "north" },
    ]);
    expect(await values.overClass("acme", "north-2")).toEqual([
      { name: "broker", value: { value: "north" }, layer: "group", group: "north" },
      { name: "site", value: { value: "north" }, layer: "group", group: "north" },
      { name: "tier", value: { value: "gold" }, layer: "group", group: "gold" },
      { name: "site", value: { value: "own" }, layer: "agent" },
    ]);
    expect(await values.overClass("acme", "south-1")).toEqual([]);
  });

  it("reads no agent record nor group's values while no group holds values", async () => {
    const { values, parameters, groups, registry } = world();
    await groups.create({
      tenant: "acme",
      name: "north",
      query: { labels: ["site=north"] },
      createdAt: NOW,
      updatedAt: NOW,
    });
    await parameters.put("acme", { layer: "agent", agentId: "north-1" }, value("site", "own"));
    registry.agents.clear();
    expect(await values.overClass("acme", "north-1")).toEqual([
      { name: "site", value: { value: "own" }, layer: "agent" },
    ]);
  });

  it("tells every agent the filters pick once, whichever picks it, with its values over its class", async () => {
    const { values, registry, group, clock } = world();
    await group("north", { labels: ["site=north"] }, { site: "north" });
    const reader = makeAgentReader({
      registry,
      catalog: new MemoryClassCatalog(),
      hotState: new MemoryFleetHotState(),
      clock,
      registryLagMs: 0,
      groupFilters: async () => undefined,
    });
    const told: [string, string[]][] = [];
    const count = await values.retell(
      "acme",
      { reader, registry },
      [{ labels: [{ key: "site", value: "north" }] }, { agentClass: "pumps" }, undefined],
      async (agentId, over) => {
        told.push([agentId, over.map(({ name, group }) => `${name}@${group}`)]);
      },
    );
    expect(count).toBe(3);
    expect(told).toEqual([
      ["north-1", ["site@north"]],
      ["north-2", ["site@north"]],
      ["south-1", []],
    ]);
  });

  it("are read for registering agents from the container's copy of the groups while the cache's version holds, for a minute at most", async () => {
    const { values, groups, group, clock } = world();
    await group("north", { labels: ["site=north"] }, { site: "north" });
    const listed = vi.spyOn(groups, "list");
    const groupsOf = async (agentId: string, groupsVersion?: string) =>
      (await values.overClass("acme", agentId, undefined, { groupsVersion })).map(({ group }) => group);
    expect(await groupsOf("north-1", "v1")).toEqual(["north"]);
    expect(await groupsOf("north-2", "v1")).toEqual(["north"]);
    expect(await groupsOf("south-1", "v1")).toEqual([]);
    expect(listed).toHaveBeenCalledTimes(1);
    // A change replaced the version: the groups are read again, and the copy is kept at the new one.
    await group("gold", { labels: ["tier=gold"] }, { tier: "gold" });
    expect(await groupsOf("north-2", "v2")).toEqual(["north", "gold"]);
    expect(await groupsOf("north-2", "v2")).toEqual(["north", "gold"]);
    expect(listed).toHaveBeenCalledTimes(2);
    // Without the cache's version (it failed) every registration reads them.
    expect(await groupsOf("north-2")).toEqual(["north", "gold"]);
    expect(listed).toHaveBeenCalledTimes(3);
    clock.advance(GROUPS_COPY_KEPT_MS - 1);
    await groupsOf("north-1", "v2");
    expect(listed).toHaveBeenCalledTimes(3);
    clock.advance(1);
    await groupsOf("north-1", "v2");
    expect(listed).toHaveBeenCalledTimes(4);
  });

  it("are read again once the cache failed a sighting, as a change meanwhile replaced no version", async () => {
    const { values, parameters, group } = world();
    await group("north", { labels: ["site=north"] }, { site: "north" });
    const valuesOf = async (agentId: string, hints: ValuesOverClassHints) =>
      (await values.overClass("acme", agentId, undefined, hints)).map(
        ({ group: from, name, value: set }) =>
          `${from}:${name}=${"value" in set ? set.value : set.secretRef}`,
      );
    expect(await valuesOf("north-1", { groupsVersion: "v1" })).toEqual(["north:site=north"]);
    // The cache is down: a value and a group change, and the version stays v1.
    await parameters.put("acme", { layer: "group", group: "north" }, value("site", "north-2"));
    await group("everyone", { labels: ["site=north"] }, { tier: "gold" }, 10);
    expect(await valuesOf("north-2", { cacheUnanswered: true })).toEqual([
      "north:site=north-2",
      "everyone:tier=gold",
    ]);
    // The cache is back with the version the copies were kept at: they are not served.
    expect(await valuesOf("north-1", { groupsVersion: "v1" })).toEqual([
      "north:site=north-2",
      "everyone:tier=gold",
    ]);
  });

  it("read a group's values once for the members registering at one version of the cache's groups, not a failed read", async () => {
    const { values, parameters, group, clock } = world();
    await group("north", { labels: ["site=north"] }, { site: "north" });
    const list = parameters.list.bind(parameters);
    const listed = vi.spyOn(parameters, "list");
    const groupReads = () => listed.mock.calls.filter(([, scope]) => scope.layer === "group").length;
    const siteOf = async (agentId: string, groupsVersion?: string) =>
      (await values.overClass("acme", agentId, undefined, { groupsVersion })).map(
        ({ name, value: set }) => `${name}=${"value" in set ? set.value : set.secretRef}`,
      );
    expect(await siteOf("north-1", "v1")).toEqual(["site=north"]);
    expect(await siteOf("north-2", "v1")).toEqual(["site=north"]);
    expect(groupReads()).toBe(1);
    // A value changed, and then the version (the console's order): the next member reads the values again.
    await parameters.put("acme", { layer: "group", group: "north" }, value("site", "north-2"));
    expect(await siteOf("north-1", "v2")).toEqual(["site=north-2"]);
    expect(await siteOf("north-2", "v2")).toEqual(["site=north-2"]);
    expect(groupReads()).toBe(2);
    // Without the cache's version every registration reads them; a copy serves a minute at most.
    await siteOf("north-1");
    expect(groupReads()).toBe(3);
    clock.advance(GROUPS_COPY_KEPT_MS);
    await siteOf("north-1", "v2");
    expect(groupReads()).toBe(4);
    // A read of the group's values that failed is not kept.
    let failing = true;
    listed.mockImplementation(async (tenant, scope) => {
      if (scope.layer !== "group" || !failing) return list(tenant, scope);
      failing = false;
      throw new Error("DynamoDB did not answer");
    });
    await expect(siteOf("north-1", "v3")).rejects.toThrow("DynamoDB did not answer");
    expect(await siteOf("north-1", "v3")).toEqual(["site=north-2"]);
    expect(groupReads()).toBe(6);
  });

  it("are read for many agents with one query of the tenant's groups: an UPDATE CONFIGURATION's flow ids", async () => {
    const { values, parameters, groups, group } = world();
    await group("north", { labels: ["site=north"] }, { site: "north" });
    await parameters.put("acme", { layer: "class", className: "pumps" }, value("site", "class"));
    const listed = vi.spyOn(groups, "list");
    const agents = ["north-1", "north-2", "south-1"];
    const over = await values.overClassOfEach("acme", agents);
    expect(listed).toHaveBeenCalledTimes(1);
    expect([...over].map(([agentId, entries]) => [agentId, entries.map(({ group }) => group)])).toEqual([
      ["north-1", ["north"]],
      ["north-2", ["north"]],
      ["south-1", []],
    ]);
    const flowIds = makeAgentFlowIds({ parameters, valuesOverClassOfEach: values.overClassOfEach });
    const version = { hash: "a".repeat(64), parameters: [{ name: "site", sensitive: false }] };
    const sent = await flowIds.agentFlowIds("acme", "pumps", version, agents);
    expect(listed).toHaveBeenCalledTimes(2);
    expect(sent.get("north-1")).toBe(sent.get("north-2"));
    expect(sent.get("south-1")).not.toBe(sent.get("north-1"));
  });
});
