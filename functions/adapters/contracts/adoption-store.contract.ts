import { expect, it } from "vitest";
import type { AdoptionRecord } from "../../core/adoptions/model.js";
import type { AdoptionStore } from "../../core/adoptions/ports.js";
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
    expect(await store.makeCurrent(the.tenant, "pumps", policy, START)).toBe(true);
    expect((await classes.get(the.tenant, "pumps"))?.flowPolicy).toEqual(policy);
    const other = { target: "e".repeat(64), accepted: ["e".repeat(64)] };
    expect(await store.makeCurrent(the.tenant, "pumps", other, START)).toBe(false);
    expect((await classes.get(the.tenant, "pumps"))?.flowPolicy).toEqual(policy);

    await classes.put(the.tenant, "valves", { description: "valves" }, START);
    await startRollout(the.tenant, "valves");
    expect(await store.makeCurrent(the.tenant, "valves", policy, START)).toBe(false);
    expect((await classes.get(the.tenant, "valves"))?.flowPolicy).toBeUndefined();
  });
});
