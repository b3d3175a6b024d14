import { expect, it } from "vitest";
import type { AgentRecord } from "../../core/agents/ports.js";
import type { BeaconEvent } from "../../core/events/model.js";
import type { AgentQuery, Decommissioning, FleetRegistry } from "../../core/fleet/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);
const byConsole: Decommissioning = { at: START + 300_000, reason: "console", lastSeen: START };

/**
 * The console's view of the registry, how an agent gets into it (the agent API's registration), and the
 * agent API's periodic checkpoint of its last-seen time.
 */
export interface FleetRegistrySubject {
  registry: FleetRegistry;
  /** A registration: `returned` when it replaced a decommissioned agent's kept entry. */
  add(record: AgentRecord): Promise<"created" | "returned" | "exists">;
  recordSeen(tenant: string, agentId: string, lastSeen: number): Promise<void>;
  /** The events the outbox holds staged, every tenant's. */
  staged(): Promise<BeaconEvent[]>;
}

/** Index pages by class or of the whole fleet in agent id order, filters narrowing a page once read. */
export const fleetRegistryContract = contract<FleetRegistrySubject>("the fleet registry", (the) => {
  const agent = (agentId: string, agentClass: string, change: Partial<AgentRecord> = {}): AgentRecord => ({
    tenant: the.tenant,
    agentId,
    agentClass,
    manifestHash: "manifest-1",
    flowId: "flow-1",
    firstSeen: START,
    lastSeen: START,
    ...change,
  });

  /** Five agents of two classes, added out of order. */
  const fleet = async () => {
    const agents = [
      agent("agent-1", "pumps", { device: { hostname: "north-1" } }),
      agent("agent-2", "valves", { flowId: "flow-2" }),
      agent("agent-3", "pumps", { manifestHash: "manifest-2", lastSeen: START + 60_000 }),
      agent("agent-4", "pumps", { flowId: "flow-2", device: { hostname: "south-4" } }),
      agent("agent-5", "valves", { lastSeen: START + 60_000 }),
    ];
    for (const index of [3, 0, 4, 2, 1]) await the.subject.add(agents[index] as AgentRecord);
    await the.subject.add(agent("agent-0", "pumps", { tenant: `${the.tenant}-other` }));
    return agents;
  };

  const idsOf = (page: { items: AgentRecord[] }) => page.items.map((record) => record.agentId);

  it("reads an agent as it was registered, as a copy of its own, and nothing for one it does not hold", async () => {
    const { registry, add } = the.subject;
    const record = agent("agent-1", "pumps", { device: { hostname: "north-1", vCores: 2 } });
    const added = structuredClone(record);
    expect(await add(record)).toBe("created");
    record.agentClass = "changed by its writer";
    const read = (await registry.get(the.tenant, "agent-1")) as AgentRecord;
    expect(read).toEqual(added);
    read.agentClass = "changed by its reader";
    expect(await registry.get(the.tenant, "agent-1")).toEqual(added);
    expect(await registry.get(the.tenant, "agent-9")).toBeUndefined();
    expect(await registry.get(`${the.tenant}-other`, "agent-1")).toBeUndefined();
  });

  it("pages through the whole fleet by agent id, either way", async () => {
    const { registry } = the.subject;
    const agents = await fleet();
    const first = await registry.query(the.tenant, { limit: 2 });
    expect(first).toEqual({ items: agents.slice(0, 2), last: "agent-2" });
    const second = await registry.query(the.tenant, { limit: 2, after: first.last });
    expect(idsOf(second)).toEqual(["agent-3", "agent-4"]);
    const third = await registry.query(the.tenant, { limit: 2, after: second.last });
    expect(third).toEqual({ items: agents.slice(4) });

    const newest = await registry.query(the.tenant, { limit: 2, descending: true });
    expect(newest).toEqual({ items: [agents[4], agents[3]], last: "agent-4" });
    const older = await registry.query(the.tenant, { limit: 3, descending: true, after: newest.last });
    // A full page names a cursor even when nothing follows it.
    expect(older).toEqual({ items: [agents[2], agents[1], agents[0]], last: "agent-1" });
    expect(await registry.query(the.tenant, { limit: 3, descending: true, after: older.last })).toEqual({
      items: [],
    });
  });

  it("pages through one class's agents by agent id", async () => {
    const { registry } = the.subject;
    await fleet();
    const first = await registry.query(the.tenant, { agentClass: "pumps", limit: 2 });
    expect(first).toMatchObject({ last: "agent-3" });
    expect(idsOf(first)).toEqual(["agent-1", "agent-3"]);
    expect(
      idsOf(await registry.query(the.tenant, { agentClass: "pumps", limit: 2, after: first.last })),
    ).toEqual(["agent-4"]);
    expect(await registry.query(the.tenant, { agentClass: "drains", limit: 2 })).toEqual({ items: [] });
  });

  it("narrows a page by manifest, flow and text once it is read, never what it reads", async () => {
    const { registry } = the.subject;
    await fleet();
    expect(await registry.query(the.tenant, { flowId: "flow-2", limit: 3 })).toEqual({
      items: [expect.objectContaining({ agentId: "agent-2" })],
      last: "agent-3",
    });
    const flowTwo = await registry.query(the.tenant, { flowId: "flow-2", limit: 3, after: "agent-3" });
    expect(idsOf(flowTwo)).toEqual(["agent-4"]);
    expect(
      idsOf(await registry.query(the.tenant, { agentClass: "pumps", manifestHash: "manifest-2", limit: 5 })),
    ).toEqual(["agent-3"]);
    // Text matches a part of the agent id or of the device's hostname.
    expect(idsOf(await registry.query(the.tenant, { text: "south", limit: 5 }))).toEqual(["agent-4"]);
    expect(idsOf(await registry.query(the.tenant, { text: "nt-5", limit: 5 }))).toEqual(["agent-5"]);
  });

  it("replaces an agent's labels, and matches them by value and by key, AND-ed, once a page is read", async () => {
    const { registry } = the.subject;
    await fleet();
    expect(await registry.putLabels(the.tenant, "agent-1", { site: "plant-7", "example.com/gpu": "" })).toBe(
      true,
    );
    expect(await registry.putLabels(the.tenant, "agent-4", { site: "plant-7" })).toBe(true);
    expect(await registry.putLabels(the.tenant, "agent-5", { site: "plant-9", "example.com/gpu": "a" })).toBe(
      true,
    );
    expect(await registry.putLabels(the.tenant, "agent-9", { site: "plant-7" })).toBe(false);
    expect(await registry.get(`${the.tenant}-other`, "agent-9")).toBeUndefined();
    expect((await registry.get(the.tenant, "agent-1"))?.labels).toEqual({
      site: "plant-7",
      "example.com/gpu": "",
    });
    const labelled = async (labels: { key: string; value?: string }[], limit = 5) =>
      idsOf(await registry.query(the.tenant, { labels, limit }));
    expect(await labelled([{ key: "site", value: "plant-7" }])).toEqual(["agent-1", "agent-4"]);
    expect(await labelled([{ key: "example.com/gpu" }])).toEqual(["agent-1", "agent-5"]);
    expect(await labelled([{ key: "site", value: "plant-7" }, { key: "example.com/gpu" }])).toEqual([
      "agent-1",
    ]);
    expect(await labelled([{ key: "example.com/gpu", value: "" }])).toEqual(["agent-1"]);
    expect(await labelled([{ key: "site", value: "plant-7" }], 3)).toEqual(["agent-1"]);
    // The other tenant's agent-0 has no labels, its agent-1 no changes.
    await the.subject.add(agent("agent-1", "pumps", { tenant: `${the.tenant}-other` }));
    expect((await registry.get(`${the.tenant}-other`, "agent-1"))?.labels).toBeUndefined();

    expect(await registry.putLabels(the.tenant, "agent-1", {})).toBe(true);
    expect(await registry.get(the.tenant, "agent-1")).not.toHaveProperty("labels");
    expect(await labelled([{ key: "site" }])).toEqual(["agent-4", "agent-5"]);
  });

  it("matches the labels read from an agent's reports as well, an operator's label of the same key over them", async () => {
    const { registry, add } = the.subject;
    await add(agent("agent-1", "pumps", { reportedLabels: { site: "plant-7", os: "Linux" } }));
    await add(agent("agent-2", "pumps", { reportedLabels: { site: "plant-7" } }));
    await add(agent("agent-3", "pumps", { reportedLabels: {} }));
    await add(agent("agent-4", "pumps"));
    expect(await registry.putLabels(the.tenant, "agent-2", { site: "plant-9" })).toBe(true);
    expect(await registry.putLabels(the.tenant, "agent-4", { site: "plant-7" })).toBe(true);
    const labelled = async (labels: { key: string; value?: string }[]) =>
      idsOf(await registry.query(the.tenant, { labels, limit: 10 }));
    expect(await labelled([{ key: "site", value: "plant-7" }])).toEqual(["agent-1", "agent-4"]);
    expect(await labelled([{ key: "site", value: "plant-9" }])).toEqual(["agent-2"]);
    expect(await labelled([{ key: "os" }])).toEqual(["agent-1"]);
    expect(await labelled([{ key: "site" }])).toEqual(["agent-1", "agent-2", "agent-4"]);
    expect((await registry.get(the.tenant, "agent-1"))?.reportedLabels).toEqual({
      site: "plant-7",
      os: "Linux",
    });
  });

  it("narrows by several classes, several binaries, OS and architecture, and counts what a query picks", async () => {
    const { registry, add } = the.subject;
    await fleet();
    const binary = (manifestId: string, hash = "manifest-1") => ({
      hash,
      manifestId,
      supportedOperations: [],
    });
    const linux = { operatingSystem: "Linux", machineArch: "aarch64" };
    await add(agent("agent-6", "drains", { manifest: binary("a".repeat(64)), device: linux }));
    await add(
      agent("agent-7", "pumps", {
        manifest: binary("b".repeat(64)),
        device: { ...linux, machineArch: "amd64" },
      }),
    );
    // A manifest of another hash than the one the agent reports now counts for no binary.
    await add(
      agent("agent-8", "valves", { manifest: binary("a".repeat(64), "manifest-old"), device: linux }),
    );
    const picked = async (filters: Omit<AgentQuery, "limit">) => {
      const ids = idsOf(await registry.query(the.tenant, { ...filters, limit: 20 }));
      expect(await registry.countMatching(the.tenant, filters)).toBe(ids.length);
      return ids;
    };
    expect(await picked({ agentClasses: ["drains", "valves"] })).toEqual([
      "agent-2",
      "agent-5",
      "agent-6",
      "agent-8",
    ]);
    expect(await picked({ manifestIds: ["a".repeat(64), "b".repeat(64)] })).toEqual(["agent-6", "agent-7"]);
    expect(await picked({ manifestIds: ["c".repeat(64)] })).toEqual([]);
    expect(await picked({ operatingSystem: "Linux" })).toEqual(["agent-6", "agent-7", "agent-8"]);
    expect(await picked({ operatingSystem: "Linux", machineArch: "aarch64" })).toEqual([
      "agent-6",
      "agent-8",
    ]);
    expect(await picked({ agentClass: "pumps", machineArch: "amd64" })).toEqual(["agent-7"]);
    expect(await picked({ agentClass: "pumps" })).toEqual(["agent-1", "agent-3", "agent-4", "agent-7"]);
    expect(await picked({})).toHaveLength(8);
    // More binaries than one IN comparison may list.
    const many = Array.from({ length: 150 }, (_, index) => index.toString(16).padStart(64, "0"));
    expect(await picked({ manifestIds: [...many, "b".repeat(64)] })).toEqual(["agent-7"]);
    expect(await registry.countMatching(`${the.tenant}-other`, {})).toBe(1);
  });

  it("reads the flow id each agent of a class reports, by agent id, nothing else of them", async () => {
    const { registry, add } = the.subject;
    await fleet();
    await add(agent("agent-6", "pumps", { flowId: undefined }));
    expect(await registry.reportedFlows(the.tenant, "pumps")).toEqual([
      { agentId: "agent-1", flowId: "flow-1" },
      { agentId: "agent-3", flowId: "flow-1" },
      { agentId: "agent-4", flowId: "flow-2" },
      { agentId: "agent-6" },
    ]);
    expect(await registry.reportedFlows(the.tenant, "drains")).toEqual([]);
  });

  it("counts a class's agents, or those seen since a time", async () => {
    const { registry } = the.subject;
    await fleet();
    expect(await registry.count(the.tenant, "pumps")).toBe(3);
    expect(await registry.count(the.tenant, "pumps", START + 60_000)).toBe(1);
    expect(await registry.count(the.tenant, "valves", START + 1)).toBe(1);
    expect(await registry.count(the.tenant, "drains")).toBe(0);
  });

  it("reads the last-seen times of periodic checkpoints in pages, reads and counts", async () => {
    const { registry, recordSeen } = the.subject;
    await fleet();
    await recordSeen(the.tenant, "agent-1", START + 120_000);
    await recordSeen(the.tenant, "agent-4", START + 30_000);
    // An older one than the profile's own changes nothing.
    await recordSeen(the.tenant, "agent-3", START + 1);
    const lastSeen = (page: { items: AgentRecord[] }) =>
      Object.fromEntries(page.items.map((record) => [record.agentId, record.lastSeen]));
    expect(lastSeen(await registry.query(the.tenant, { agentClass: "pumps", limit: 5 }))).toEqual({
      "agent-1": START + 120_000,
      "agent-3": START + 60_000,
      "agent-4": START + 30_000,
    });
    expect(lastSeen(await registry.query(the.tenant, { text: "agent-1", limit: 5 }))).toEqual({
      "agent-1": START + 120_000,
    });
    expect((await registry.get(the.tenant, "agent-1"))?.lastSeen).toBe(START + 120_000);
    expect(await registry.count(the.tenant, "pumps", START + 30_000)).toBe(3);
    expect(await registry.count(the.tenant, "pumps", START + 60_000)).toBe(2);
    expect(await registry.count(the.tenant, "pumps", START + 120_001)).toBe(0);
  });

  it("removes an agent with its last-seen time: registered again, it is seen from then", async () => {
    const { registry, add, recordSeen } = the.subject;
    await fleet();
    await recordSeen(the.tenant, "agent-1", START + 120_000);
    expect(await registry.decommission(the.tenant, "agent-1", byConsole)).toBe(true);
    await add(agent("agent-1", "pumps"));
    expect((await registry.get(the.tenant, "agent-1"))?.lastSeen).toBe(START);
  });

  it("reads many agents at once as each is read alone, leaving out those it does not hold", async () => {
    const { registry, recordSeen } = the.subject;
    await fleet();
    await recordSeen(the.tenant, "agent-2", START + 120_000);
    const agentIds = [...Array.from({ length: 120 }, (_, index) => `absent-${index}`), "agent-4", "agent-2"];
    const alone = await Promise.all(["agent-4", "agent-2"].map((id) => registry.get(the.tenant, id)));
    expect(await registry.getMany(the.tenant, agentIds)).toEqual(alone);
    expect(alone[1]?.lastSeen).toBe(START + 120_000);
    expect(await registry.getMany(`${the.tenant}-other`, ["agent-4"])).toEqual([]);
  });

  it("removes an agent from reads, lists and counts, and says when there was none", async () => {
    const { registry } = the.subject;
    await fleet();
    expect(await registry.decommission(the.tenant, "agent-3", byConsole)).toBe(true);
    expect(await registry.get(the.tenant, "agent-3")).toBeUndefined();
    expect(await registry.getMany(the.tenant, ["agent-3", "agent-1"])).toEqual([
      await registry.get(the.tenant, "agent-1"),
    ]);
    expect(idsOf(await registry.query(the.tenant, { agentClass: "pumps", limit: 5 }))).toEqual([
      "agent-1",
      "agent-4",
    ]);
    expect(await registry.count(the.tenant, "pumps")).toBe(2);
    expect(await registry.decommission(the.tenant, "agent-3", byConsole)).toBe(false);
  });

  it("files agents announced offline by class and last heartbeat, until they are back", async () => {
    const { registry } = the.subject;
    await fleet();
    const silent = (agentId: string, agentClass: string, lastSeen: number) => ({
      agentId,
      agentClass,
      lastSeen,
    });
    await registry.markSilent(the.tenant, silent("agent-3", "pumps", START + 60_000));
    await registry.markSilent(the.tenant, silent("agent-1", "pumps", START));
    await registry.markSilent(the.tenant, silent("agent-2", "valves", START));
    await registry.markSilent(the.tenant, silent("agent-9", "pumps", START));
    await registry.markSilent(`${the.tenant}-other`, silent("agent-0", "pumps", START));
    expect(await registry.silentBefore(the.tenant, "pumps", START + 60_001, 10)).toEqual([
      silent("agent-1", "pumps", START),
      silent("agent-3", "pumps", START + 60_000),
    ]);
    expect(await registry.silentBefore(the.tenant, "pumps", START + 60_000, 10)).toEqual([
      silent("agent-1", "pumps", START),
    ]);
    expect(await registry.silentBefore(the.tenant, "pumps", START + 60_001, 1)).toHaveLength(1);
    await registry.clearSilent(the.tenant, "agent-1", START + 1);
    expect(await registry.silentBefore(the.tenant, "pumps", START + 1, 10)).toHaveLength(1);
    await registry.clearSilent(the.tenant, "agent-1", START);
    expect(await registry.silentBefore(the.tenant, "pumps", START + 60_001, 10)).toEqual([
      silent("agent-3", "pumps", START + 60_000),
    ]);
    expect(await registry.silentBefore(the.tenant, "valves", START + 1, 10)).toEqual([
      silent("agent-2", "valves", START),
    ]);
    // Silent again after a heartbeat: filed by the new outage's last heartbeat.
    await registry.markSilent(the.tenant, silent("agent-2", "valves", START + 120_000));
    expect(await registry.silentBefore(the.tenant, "valves", START + 120_001, 10)).toEqual([
      silent("agent-2", "valves", START + 120_000),
    ]);
  });

  it("decommissions a silent agent once and only while silent since then; it registers again", async () => {
    const { registry, add } = the.subject;
    await fleet();
    const bySweeper = (lastSeen: number): Decommissioning & { reason: "silent" } => ({
      at: START + 600_000,
      reason: "silent",
      lastSeen,
      event: {
        type: "agent.decommissioned",
        version: 1,
        eventId: `decommissioned-${lastSeen}`,
        tenant: the.tenant,
        at: START + 600_000,
        agentId: "agent-3",
        agentClass: "pumps",
        lastSeen,
        cleanUpAfterDays: 7,
      },
    });
    expect(await registry.decommission(the.tenant, "agent-3", bySweeper(START + 60_000))).toBe(false);
    await registry.markSilent(the.tenant, {
      agentId: "agent-3",
      agentClass: "pumps",
      lastSeen: START + 60_000,
    });
    expect(await registry.decommission(the.tenant, "agent-3", bySweeper(START))).toBe(false);
    expect(await registry.decommission(the.tenant, "agent-3", bySweeper(START + 60_000))).toBe(true);
    expect(await registry.decommission(the.tenant, "agent-3", bySweeper(START + 60_000))).toBe(false);
    // The event was staged with the one decommissioning that took place, and with none of the refused.
    const staged = (await the.subject.staged()).filter((event) => event.tenant === the.tenant);
    expect(staged).toEqual([bySweeper(START + 60_000).event]);
    expect(await registry.get(the.tenant, "agent-3")).toBeUndefined();
    expect(await registry.silentBefore(the.tenant, "pumps", START + 60_001, 10)).toEqual([]);
    expect(await registry.count(the.tenant, "pumps")).toBe(2);
    expect(idsOf(await registry.query(the.tenant, { limit: 10 }))).toEqual([
      "agent-1",
      "agent-2",
      "agent-4",
      "agent-5",
    ]);
    // Decommissioned, it is filed as silent no more.
    await registry.markSilent(the.tenant, {
      agentId: "agent-3",
      agentClass: "pumps",
      lastSeen: START + 60_000,
    });
    expect(await registry.silentBefore(the.tenant, "pumps", START + 60_001, 10)).toEqual([]);
    expect(
      await add(agent("agent-3", "pumps", { firstSeen: START + 900_000, lastSeen: START + 900_000 })),
    ).toBe("returned");
    expect(await registry.get(the.tenant, "agent-3")).toMatchObject({ firstSeen: START + 900_000 });
    expect(await registry.count(the.tenant, "pumps")).toBe(3);
  });
});
