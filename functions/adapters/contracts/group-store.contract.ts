import { expect, it } from "vitest";
import type { Group, GroupStore } from "../../core/groups/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 29);

/** Groups by name: created once, replaced only when there, listed in name order, each tenant's its own. */
export const groupStoreContract = contract<GroupStore>("the group store", (the) => {
  const group = (name: string, change: Partial<Group> = {}): Group => ({
    tenant: the.tenant,
    name,
    query: { classes: ["pumps"], components: [{ kind: "processor", type: "org.example.Publish" }] },
    createdAt: START,
    updatedAt: START,
    ...change,
  });

  it("creates a group once, reads it as written, and refuses a second of the same name", async () => {
    const store = the.subject;
    const written = group("kafka-capable", { description: "can publish" });
    expect(await store.create(written)).toBe(true);
    expect(await store.create(group("kafka-capable", { query: {} }))).toBe(false);
    expect(await store.get(the.tenant, "kafka-capable")).toEqual(written);
    expect(await store.get(the.tenant, "other")).toBeUndefined();
    expect(await store.get(`${the.tenant}-other`, "kafka-capable")).toBeUndefined();
  });

  it("creates and reads a group with its approval and maintenance windows", async () => {
    const store = the.subject;
    const written = group("night-shift", {
      requireApproval: true,
      maintenanceWindows: [{ days: ["sat", "sun"], start: "22:30", durationMinutes: 240 }],
    });
    expect(await store.create(written)).toBe(true);
    expect(await store.get(the.tenant, "night-shift")).toEqual(written);
  });

  it("replaces an existing group's query, description and settings, keeping when it was created", async () => {
    const store = the.subject;
    await store.create(
      group("edge", {
        description: "first",
        requireApproval: true,
        maintenanceWindows: [{ days: ["mon"], start: "01:00", durationMinutes: 60 }],
      }),
    );
    const replaced = group("edge", {
      query: { status: "online" },
      createdAt: START + 9,
      updatedAt: START + 5,
    });
    expect(await store.replace(replaced)).toBe(true);
    expect(await store.get(the.tenant, "edge")).toEqual({ ...replaced, createdAt: START });
    const windowed = {
      ...replaced,
      maintenanceWindows: [{ days: ["tue" as const], start: "02:00", durationMinutes: 30 }],
    };
    expect(await store.replace(windowed)).toBe(true);
    expect(await store.get(the.tenant, "edge")).toEqual({ ...windowed, createdAt: START });
    expect(await store.replace(group("missing"))).toBe(false);
    expect(await store.get(the.tenant, "missing")).toBeUndefined();
    expect(await store.replace({ ...replaced, tenant: `${the.tenant}-other` })).toBe(false);
  });

  it("lists the tenant's groups by name, in pages, and deletes one once", async () => {
    const store = the.subject;
    for (const name of ["c", "a", "b"]) await store.create(group(name));
    await store.create({ ...group("a0"), tenant: `${the.tenant}-other` });
    const first = await store.list(the.tenant, { limit: 2 });
    expect(first.items.map((item) => item.name)).toEqual(["a", "b"]);
    expect(first.last).toBe("b");
    const second = await store.list(the.tenant, { limit: 2, after: first.last });
    expect(second.items.map((item) => item.name)).toEqual(["c"]);
    expect(await store.delete(the.tenant, "b")).toBe(true);
    expect(await store.delete(the.tenant, "b")).toBe(false);
    expect(await store.delete(the.tenant, "a0")).toBe(false);
    expect((await store.list(the.tenant, { limit: 5 })).items.map((item) => item.name)).toEqual(["a", "c"]);
  });

  it("sets a group's count only while it is as counted, and drops it when the group is replaced", async () => {
    const store = the.subject;
    await store.create(group("edge"));
    const count = { updatedAt: START, memberCount: 42, countedAt: START + 60_000 };
    expect(await store.putCount(the.tenant, "edge", count)).toBe(true);
    expect(await store.get(the.tenant, "edge")).toMatchObject({ memberCount: 42, countedAt: START + 60_000 });
    expect((await store.list(the.tenant, { limit: 5 })).items).toEqual([
      { ...group("edge"), memberCount: 42, countedAt: START + 60_000 },
    ]);
    await store.replace(group("edge", { query: { status: "online" }, updatedAt: START + 5 }));
    const replaced = await store.get(the.tenant, "edge");
    expect(replaced?.memberCount).toBeUndefined();
    expect(replaced?.countedAt).toBeUndefined();
    expect(await store.putCount(the.tenant, "edge", count)).toBe(false);
    expect((await store.get(the.tenant, "edge"))?.memberCount).toBeUndefined();
    expect(await store.putCount(the.tenant, "missing", count)).toBe(false);
    expect(await store.get(the.tenant, "missing")).toBeUndefined();
    expect(await store.putCount(the.tenant, "edge", { ...count, updatedAt: START + 5, memberCount: 7 })).toBe(
      true,
    );
    expect(await store.get(the.tenant, "edge")).toMatchObject({ memberCount: 7 });
  });

  it("keeps each tenant's counting state beside its groups, out of their listing, its binaries' counts too", async () => {
    const store = the.subject;
    expect(await store.countingState(the.tenant)).toEqual({});
    const running = {
      startedAt: START,
      groups: [{ name: "edge", updatedAt: START }],
      counts: { edge: 3 },
      binaries: { edge: { ["3f".repeat(32)]: 2, unknown: 1 } },
      after: "agent-0042",
    };
    await store.putCountingState(the.tenant, { finishedAt: START - 1, running });
    expect(await store.countingState(the.tenant)).toEqual({ finishedAt: START - 1, running });
    expect(await store.countingState(`${the.tenant}-other`)).toEqual({});
    expect((await store.list(the.tenant, { limit: 5 })).items).toEqual([]);
    const binaries = {
      countedAt: START + 9,
      items: [
        { className: "pumps", name: "Binary not yet known", agents: 1 },
        {
          className: "pumps",
          manifestId: "3f".repeat(32),
          name: "MiNiFi Java 2.3.0 · 3f3f3f3",
          agentType: "minifi-java",
          version: "2.3.0",
          agents: 4,
        },
      ],
    };
    await store.putCountingState(the.tenant, { finishedAt: START + 9, binaries });
    expect(await store.countingState(the.tenant)).toEqual({ finishedAt: START + 9, binaries });
  });

  it("marks the parameters a group sets one name at a time, keeps them when it is replaced, and has a priority", async () => {
    const store = the.subject;
    await store.create(group("sites", { parameterPriority: 5 }));
    expect(await store.markParameter(the.tenant, "sites", "site", true)).toBe(true);
    await Promise.all(
      ["broker", "region"].map((name) => store.markParameter(the.tenant, "sites", name, true)),
    );
    await store.markParameter(the.tenant, "sites", "region", false);
    expect(await store.get(the.tenant, "sites")).toEqual(
      group("sites", { parameterPriority: 5, parameterNames: ["broker", "site"] }),
    );
    expect(await store.replace(group("sites", { query: { labels: ["site"] }, updatedAt: START + 1 }))).toBe(
      true,
    );
    expect(await store.get(the.tenant, "sites")).toEqual(
      group("sites", {
        query: { labels: ["site"] },
        updatedAt: START + 1,
        parameterNames: ["broker", "site"],
      }),
    );
    await store.markParameter(the.tenant, "sites", "broker", false);
    await store.markParameter(the.tenant, "sites", "site", false);
    expect((await store.get(the.tenant, "sites"))?.parameterNames).toBeUndefined();
    expect(await store.markParameter(the.tenant, "nothing", "site", true)).toBe(false);
  });
});
