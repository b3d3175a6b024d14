import { expect, it } from "vitest";
import type { AdoptionRecord } from "../../core/adoptions/model.js";
import type { AdoptionKey, AdoptionStore } from "../../core/adoptions/ports.js";
import type { ClassCatalog } from "../../core/agents/ports.js";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 28);

/** The adoption store, the class catalog whose records hold the policy it writes, and a rollout under way. */
export interface AdoptionStoreSubject {
  store: AdoptionStore;
  classes: Pick<ClassCatalog, "get" | "put">;
  startRollout(tenant: string, className: string): Promise<void>;
}

export const adoptionStoreContract = contract<AdoptionStoreSubject>("the adoption store", (the) => {
  const requested = (adoptionId: string): AdoptionRecord => ({
    tenant: the.tenant,
    className: "pumps",
    adoptionId,
    flowId: "incumbent-a",
    agentId: "pump-1",
    state: "requested",
    createdAt: START,
    createdBy: "ops",
    updatedAt: START,
  });
  const policy: ClassFlowPolicy = { target: "f".repeat(64), accepted: ["f".repeat(64), "incumbent-a"] };

  it("keeps an adoption by class and id, and settles it once, from requested", async () => {
    const { store } = the.subject;
    await store.create(requested("op-1~pump-1"));
    expect(await store.get(the.tenant, "pumps", "op-1~pump-1")).toEqual(requested("op-1~pump-1"));
    expect(await store.get(the.tenant, "valves", "op-1~pump-1")).toBeUndefined();
    expect(await store.get(`${the.tenant}-other`, "pumps", "op-1~pump-1")).toBeUndefined();

    const adopted: AdoptionRecord = {
      ...requested("op-1~pump-1"),
      state: "adopted",
      flowHash: "f".repeat(64),
      bundleEntry: "flow.json",
      current: true,
      updatedAt: START + 1_000,
    };
    expect(await store.settle(adopted)).toBe(true);
    expect(await store.get(the.tenant, "pumps", "op-1~pump-1")).toEqual(adopted);
    expect(await store.settle({ ...adopted, state: "failed", reason: "late" })).toBe(false);
    expect(await store.get(the.tenant, "pumps", "op-1~pump-1")).toEqual(adopted);
    expect(await store.settle({ ...adopted, adoptionId: "op-9~pump-1" })).toBe(false);
  });

  it("makes a version current only for a class without a policy or a rollout, creating the class", async () => {
    const { store, classes, startRollout } = the.subject;
    expect(await store.makeCurrent(the.tenant, "pumps", policy, START)).toBe("made");
    expect((await classes.get(the.tenant, "pumps"))?.flowPolicy).toEqual(policy);
    const other = { target: "e".repeat(64), accepted: ["e".repeat(64)] };
    expect(await store.makeCurrent(the.tenant, "pumps", other, START)).toBe("refused");
    expect((await classes.get(the.tenant, "pumps"))?.flowPolicy).toEqual(policy);
    // A settlement of the same adoption at the same time finds the policy its twin wrote.
    expect(await store.makeCurrent(the.tenant, "pumps", policy, START + 1)).toBe("already");

    await classes.put(the.tenant, "valves", { description: "valves" }, START);
    await startRollout(the.tenant, "valves");
    expect(await store.makeCurrent(the.tenant, "valves", policy, START)).toBe("refused");
    expect((await classes.get(the.tenant, "valves"))?.flowPolicy).toBeUndefined();
  });

  it("lists a class's adoptions newest first, a page at a time", async () => {
    const { store } = the.subject;
    for (const id of ["op-1~pump-1", "op-2~pump-2", "op-3~pump-1"]) await store.create(requested(id));
    await store.create({ ...requested("op-4~valve-1"), className: "valves" });
    const first = await store.list(the.tenant, "pumps", { limit: 2 });
    expect(first.items.map((record) => record.adoptionId)).toEqual(["op-3~pump-1", "op-2~pump-2"]);
    expect(first.items[0]).toEqual(requested("op-3~pump-1"));
    const second = await store.list(the.tenant, "pumps", { limit: 2, after: first.last });
    expect(second.items.map((record) => record.adoptionId)).toEqual(["op-1~pump-1"]);
    expect(second.last).toBeUndefined();
    expect((await store.list(`${the.tenant}-other`, "pumps", { limit: 10 })).items).toEqual([]);
  });

  it("names every adoption still requested, oldest first, and not one once settled", async () => {
    const { store } = the.subject;
    await store.create({ ...requested("op-2~pump-2"), createdAt: START + 2_000 });
    await store.create({ ...requested("op-1~valve-1"), className: "valves", createdAt: START + 1_000 });
    await store.create(requested("op-3~pump-3"));
    const mine = async () => {
      const keys: AdoptionKey[] = [];
      for await (const key of store.requested()) if (key.tenant === the.tenant) keys.push(key);
      return keys;
    };
    expect(await mine()).toEqual([
      { tenant: the.tenant, className: "pumps", adoptionId: "op-3~pump-3" },
      { tenant: the.tenant, className: "valves", adoptionId: "op-1~valve-1" },
      { tenant: the.tenant, className: "pumps", adoptionId: "op-2~pump-2" },
    ]);
    await store.settle({ ...requested("op-3~pump-3"), state: "failed", reason: "no bundle" });
    expect((await mine()).map((key) => key.adoptionId)).toEqual(["op-1~valve-1", "op-2~pump-2"]);
    expect((await store.get(the.tenant, "pumps", "op-3~pump-3"))?.state).toBe("failed");
  });
});
