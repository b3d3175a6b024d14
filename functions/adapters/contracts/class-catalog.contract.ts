import { expect, it } from "vitest";
import type { AgentClassRecord, ClassCatalog } from "../../core/agents/ports.js";
import type { MaintenanceWindow } from "../../core/schedules/windows.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);

/** A tenant's agent classes by name: created or changed field by field, listed a page at a time. */
export const classCatalogContract = contract<ClassCatalog>("the class catalog", (the) => {
  it("creates a class with the fields given, then changes only those a change gives", async () => {
    const catalog = the.subject;
    expect(await catalog.get(the.tenant, "pumps")).toBeUndefined();
    const created = await catalog.put(
      the.tenant,
      "pumps",
      { description: "Pumps", heartbeatIntervalSeconds: 30 },
      START,
    );
    const record: AgentClassRecord = {
      tenant: the.tenant,
      name: "pumps",
      description: "Pumps",
      heartbeatIntervalSeconds: 30,
      createdAt: START,
      updatedAt: START,
      autoCreated: false,
    };
    expect(created).toEqual({ record, created: true });
    expect(await catalog.get(the.tenant, "pumps")).toEqual(record);

    const changed = await catalog.put(
      the.tenant,
      "pumps",
      { description: undefined, ackTimeoutSeconds: 120 },
      START + 60_000,
    );
    const after = { ...record, ackTimeoutSeconds: 120, updatedAt: START + 60_000 };
    expect(changed).toEqual({ record: after, created: false });
    expect(await catalog.get(the.tenant, "pumps")).toEqual(after);
    expect(await catalog.get(`${the.tenant}-other`, "pumps")).toBeUndefined();
  });

  it("sets a class's clean-up age, keeps it through changes that leave it out, and unsets it on null", async () => {
    const catalog = the.subject;
    await catalog.put(the.tenant, "pumps", { cleanUpAfterDays: 30 }, START);
    await catalog.put(the.tenant, "pumps", { description: "Pumps" }, START + 1);
    expect(await catalog.get(the.tenant, "pumps")).toMatchObject({
      cleanUpAfterDays: 30,
      description: "Pumps",
    });
    const { record } = await catalog.put(the.tenant, "pumps", { cleanUpAfterDays: null }, START + 2);
    const unset = { tenant: the.tenant, name: "pumps", description: "Pumps", createdAt: START };
    expect(record).toEqual({ ...unset, updatedAt: START + 2, autoCreated: false });
    expect(await catalog.get(the.tenant, "pumps")).toEqual(record);
    expect(
      (await catalog.put(the.tenant, "valves", { cleanUpAfterDays: null }, START)).record,
    ).not.toHaveProperty("cleanUpAfterDays");
  });

  it("keeps a class's label sources as given, and replaces them whole", async () => {
    const catalog = the.subject;
    const sources = [
      { label: "site", from: "property:nifi.c2.site" },
      { label: "os", from: "device:operatingSystem" },
    ];
    await catalog.put(the.tenant, "pumps", { labelSources: sources }, START);
    expect((await catalog.get(the.tenant, "pumps"))?.labelSources).toEqual(sources);
    await catalog.put(the.tenant, "pumps", { description: "Pumps" }, START + 1);
    expect((await catalog.get(the.tenant, "pumps"))?.labelSources).toEqual(sources);
    const { record } = await catalog.put(the.tenant, "pumps", { labelSources: [] }, START + 2);
    expect(record.labelSources).toEqual([]);
    expect((await catalog.get(the.tenant, "pumps"))?.labelSources).toEqual([]);
  });

  it("sets a class's maintenance windows, keeps them through changes that leave them out, and removes them on none", async () => {
    const catalog = the.subject;
    const windows: MaintenanceWindow[] = [{ days: ["sat", "sun"], start: "02:00", durationMinutes: 240 }];
    expect(
      (await catalog.put(the.tenant, "pumps", { maintenanceWindows: windows }, START)).record,
    ).toMatchObject({
      maintenanceWindows: windows,
    });
    await catalog.put(the.tenant, "pumps", { description: "Pumps" }, START + 1);
    expect(await catalog.get(the.tenant, "pumps")).toMatchObject({ maintenanceWindows: windows });
    const { record } = await catalog.put(the.tenant, "pumps", { maintenanceWindows: [] }, START + 2);
    expect(record).not.toHaveProperty("maintenanceWindows");
    expect(await catalog.get(the.tenant, "pumps")).toEqual(record);
  });

  it("hands out copies: what a caller does to a record read stays with the caller", async () => {
    const catalog = the.subject;
    const { record } = await catalog.put(the.tenant, "pumps", { description: "Pumps" }, START);
    record.description = "changed by its writer";
    const read = (await catalog.get(the.tenant, "pumps")) as AgentClassRecord;
    read.description = "changed by its reader";
    const [listed] = (await catalog.list(the.tenant, { limit: 1 })).items;
    expect(listed?.description).toBe("Pumps");
    expect((await catalog.get(the.tenant, "pumps"))?.description).toBe("Pumps");
  });

  it("lists classes by name page by page, either way", async () => {
    const catalog = the.subject;
    for (const name of ["valves", "pumps", "drains", "sensors"])
      await catalog.put(the.tenant, name, {}, START);
    await catalog.put(`${the.tenant}-other`, "boilers", {}, START);
    const namesOf = (page: { items: AgentClassRecord[] }) => page.items.map((record) => record.name);

    const first = await catalog.list(the.tenant, { limit: 3 });
    expect(namesOf(first)).toEqual(["drains", "pumps", "sensors"]);
    expect(first.last).toBe("sensors");
    expect(await catalog.list(the.tenant, { limit: 3, after: first.last })).toMatchObject({
      items: [{ name: "valves" }],
      last: undefined,
    });

    const descending = await catalog.list(the.tenant, { limit: 2, descending: true });
    expect(descending).toMatchObject({ items: [{ name: "valves" }, { name: "sensors" }], last: "sensors" });
    const rest = await catalog.list(the.tenant, { limit: 2, descending: true, after: descending.last });
    // A full page names a cursor even when nothing follows it.
    expect(rest).toMatchObject({ items: [{ name: "pumps" }, { name: "drains" }], last: "drains" });
    expect(await catalog.list(the.tenant, { limit: 2, descending: true, after: rest.last })).toEqual({
      items: [],
    });
  });
});
