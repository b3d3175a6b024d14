import { expect, it } from "vitest";
import type { SelectionJobKey, SelectionJobStore } from "../../core/operations/ports.js";
import { jobAfterStep, type SelectionJob } from "../../core/operations/selection-jobs.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 29);

/** Selection jobs by tenant and id; each step written once, from the cursor it read on after. */
export const selectionJobStoreContract = contract<SelectionJobStore>("the selection job store", (the) => {
  const running = (selectionId: string, createdAt = START): SelectionJob => ({
    tenant: the.tenant,
    selectionId,
    request: {
      operation: "DESCRIBE",
      operand: "MANIFEST",
      selector: { agentClass: "pumps", labels: [{ key: "a", value: "b" }] },
    },
    createdBy: "ops",
    createdAt,
    updatedAt: createdAt,
    state: "running",
    cursor: "pump-1000",
    created: 1000,
    skippedCount: 0,
    skipped: [],
  });
  const runningOfTenant = async (store: SelectionJobStore) => {
    const keys: SelectionJobKey[] = [];
    for await (const key of store.running()) if (key.tenant === the.tenant) keys.push(key);
    return keys;
  };

  it("keeps a job by tenant and id, and refuses a second of the same id", async () => {
    const store = the.subject;
    await store.create(running("sel-1"));
    expect(await store.get(the.tenant, "sel-1")).toEqual(running("sel-1"));
    expect(await store.get(the.tenant, "sel-2")).toBeUndefined();
    expect(await store.get(`${the.tenant}-other`, "sel-1")).toBeUndefined();
    await expect(store.create({ ...running("sel-1"), created: 0 })).rejects.toThrow();
    expect(await store.get(the.tenant, "sel-1")).toEqual(running("sel-1"));
  });

  it("writes a step once, from the cursor it read on after, and a job done or failed no more", async () => {
    const store = the.subject;
    await store.create(running("sel-1"));
    const skipped = [{ agentId: "pump-1500", reason: "no DESCRIBE" }];
    const stepped = jobAfterStep(running("sel-1"), { created: 999, skipped }, "pump-2000", START + 1);
    expect(await store.advance(stepped, "pump-1000")).toBe(true);
    expect(await store.advance(stepped, "pump-1000")).toBe(false);
    expect(await store.get(the.tenant, "sel-1")).toEqual(stepped);
    const done = jobAfterStep(stepped, { created: 10, skipped: [] }, undefined, START + 2);
    expect(await store.advance(done, "pump-2000")).toBe(true);
    expect(await store.get(the.tenant, "sel-1")).toEqual(done);
    expect(await store.advance({ ...done, state: "running", cursor: "x" }, "pump-2000")).toBe(false);
  });

  it("hands out every running job, oldest first, until it is done", async () => {
    const store = the.subject;
    await store.create(running("sel-2", START + 60_000));
    await store.create(running("sel-1"));
    expect(await runningOfTenant(store)).toEqual([
      { tenant: the.tenant, selectionId: "sel-1" },
      { tenant: the.tenant, selectionId: "sel-2" },
    ]);
    const done = jobAfterStep(running("sel-1"), { created: 1, skipped: [] }, undefined, START + 1);
    expect(await store.advance(done, "pump-1000")).toBe(true);
    expect(await runningOfTenant(store)).toEqual([{ tenant: the.tenant, selectionId: "sel-2" }]);
  });
});
