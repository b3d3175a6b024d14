import { expect, it } from "vitest";
import type { OperationChange, OperationRecord } from "../../core/operations/model.js";
import type { OperationStore } from "../../core/operations/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);

/**
 * Operations per agent, every state change conditional on the state it leaves; lists newest first with
 * the table's paging, and the due index the sweeper reads across tenants.
 */
export const operationStoreContract = contract<OperationStore>("the operation store", (the) => {
  /** A queued operation created `minutes` after START; ids sort by creation time, as Beacon's do. */
  const queued = (agentId: string, minutes: number, tenant = the.tenant): OperationRecord => ({
    tenant,
    agentId,
    operationId: `op-${String(START + minutes * 60_000).padStart(13, "0")}-${agentId}`,
    operation: "RESTART",
    state: "queued",
    createdAt: START + minutes * 60_000,
    createdBy: "contract",
  });

  const applied = (record: OperationRecord, change: OperationChange): OperationRecord => ({
    ...record,
    ...change,
  });

  const idsOf = (records: OperationRecord[]) => records.map((record) => record.operationId);

  it("reads what it created by agent and id, and nothing for an id the agent does not hold", async () => {
    const store = the.subject;
    const first = { ...queued("agent-1", 0), operand: "FLOW", operation: "START", dependsOn: ["op-x"] };
    const second = { ...queued("agent-2", 1), args: { "nifi.c2.enable": "true" }, dueAt: START };
    await store.create([first, second]);

    expect(await store.get(the.tenant, "agent-1", first.operationId)).toEqual(first);
    expect(await store.get(the.tenant, "agent-2", second.operationId)).toEqual(second);
    expect(await store.get(the.tenant, "agent-2", first.operationId)).toBeUndefined();
    expect(await store.get(`${the.tenant}-other`, "agent-1", first.operationId)).toBeUndefined();
    expect(await store.get(the.tenant, "agent-1", "op-missing")).toBeUndefined();
  });

  it("refuses an operation id the agent has already, keeping the stored operation", async () => {
    const store = the.subject;
    const operation = queued("agent-1", 0);
    await store.create([operation]);
    await expect(store.create([{ ...operation, operation: "PAUSE" }])).rejects.toThrow();
    expect(await store.get(the.tenant, "agent-1", operation.operationId)).toEqual(operation);
  });

  it("keeps an operation id the agent has already as done when asked, writing the others and saying which", async () => {
    const store = the.subject;
    const operation = queued("agent-1", 0);
    const other = queued("agent-2", 1);
    expect(await store.create([operation])).toEqual([operation.operationId]);
    expect(
      await store.create([{ ...operation, operation: "PAUSE" }, other], [], { existing: "keep" }),
    ).toEqual([other.operationId]);
    expect(await store.get(the.tenant, "agent-1", operation.operationId)).toEqual(operation);
    expect(await store.get(the.tenant, "agent-2", other.operationId)).toEqual(other);
  });

  it("reads an agent's open operations, in operation id order", async () => {
    const store = the.subject;
    const [one, two, three, four] = [1, 2, 3, 4].map((minutes) => queued("agent-1", minutes)) as [
      OperationRecord,
      OperationRecord,
      OperationRecord,
      OperationRecord,
    ];
    // Created out of order, as concurrent requests may.
    await store.create([three, one]);
    await store.create([four, two, queued("agent-2", 0)]);
    const delivered: OperationChange = { state: "delivered", deliveredAt: START, timeoutAt: START + 1 };
    await store.transition(two, "queued", delivered);
    await store.transition(four, "queued", { state: "cancelled", finishedAt: START, reason: "contract" });
    const awaiting: OperationChange = { state: "awaiting_effect" };
    await store.transition(three, "queued", delivered);
    await store.transition(applied(three, delivered), "delivered", awaiting);

    expect(await store.open(the.tenant, "agent-1")).toEqual([
      one,
      applied(two, delivered),
      applied(applied(three, delivered), awaiting),
    ]);
    expect(await store.open(the.tenant, "agent-3")).toEqual([]);
  });

  it("applies a transition only while the operation is in the state it leaves", async () => {
    const store = the.subject;
    const operation = { ...queued("agent-1", 0), dueAt: START + 60_000 };
    await store.create([operation]);

    const delivered: OperationChange = {
      state: "delivered",
      deliveredAt: START + 1_000,
      timeoutAt: START + 301_000,
      dueAt: START + 301_000,
    };
    expect(await store.transition(operation, "queued", delivered)).toBe(true);
    expect(await store.transition(operation, "queued", { state: "cancelled", finishedAt: START })).toBe(
      false,
    );
    expect(await store.get(the.tenant, "agent-1", operation.operationId)).toEqual(
      applied(operation, delivered),
    );

    const done: OperationChange = {
      state: "done",
      finishedAt: START + 2_000,
      ackState: "FULLY_APPLIED",
      details: "applied",
    };
    expect(await store.transition(operation, "delivered", done)).toBe(true);
    // A closed operation keeps what it was told, without its due time.
    const { dueAt: _closed, ...closed } = applied(applied(operation, delivered), done);
    expect(await store.get(the.tenant, "agent-1", operation.operationId)).toEqual(closed);

    // An operation never created is not written either.
    const missing = queued("agent-1", 9);
    expect(await store.transition(missing, "queued", delivered)).toBe(false);
    expect(await store.get(the.tenant, "agent-1", missing.operationId)).toBeUndefined();
  });

  it("lists a tenant's operations newest first, page by page, of every agent or of one", async () => {
    const store = the.subject;
    const operations = [
      queued("agent-1", 0),
      queued("agent-2", 1),
      queued("agent-1", 2),
      queued("agent-3", 3),
      queued("agent-1", 4),
    ];
    await store.create(operations);
    await store.create([queued("agent-1", 5, `${the.tenant}-other`)]);
    const newestFirst = idsOf(operations).reverse();

    const first = await store.list(the.tenant, { limit: 2 });
    expect(idsOf(first.items)).toEqual(newestFirst.slice(0, 2));
    expect(first.last).toBe(newestFirst[1]);
    const second = await store.list(the.tenant, { limit: 2, after: first.last });
    expect(idsOf(second.items)).toEqual(newestFirst.slice(2, 4));
    const third = await store.list(the.tenant, { limit: 2, after: second.last });
    expect(third).toEqual({ items: [operations[0]] });

    const ofAgent = await store.list(the.tenant, { agentId: "agent-1", limit: 10 });
    expect(idsOf(ofAgent.items)).toEqual(
      idsOf([operations[4], operations[2], operations[0]] as OperationRecord[]),
    );
    expect(ofAgent.last).toBeUndefined();
    const afterNewest = await store.list(the.tenant, {
      agentId: "agent-1",
      limit: 10,
      after: operations[4]?.operationId,
    });
    expect(idsOf(afterNewest.items)).toEqual(idsOf([operations[2], operations[0]] as OperationRecord[]));
  });

  it("names a cursor after a full page even when nothing follows it, as the table's query does", async () => {
    const store = the.subject;
    const operations = [queued("agent-1", 0), queued("agent-1", 1)];
    await store.create(operations);
    const full = await store.list(the.tenant, { limit: 2 });
    expect(full.items).toHaveLength(2);
    expect(full.last).toBe(operations[0]?.operationId);
    expect(await store.list(the.tenant, { limit: 2, after: full.last })).toEqual({ items: [] });
  });

  it("filters by state within the page it reads, so a page may hold fewer than it could", async () => {
    const store = the.subject;
    const operations = [0, 1, 2, 3].map((minutes) => queued("agent-1", minutes));
    await store.create(operations);
    const delivered: OperationChange = { state: "delivered", deliveredAt: START };
    // Oldest to newest: queued, delivered, queued, delivered.
    await store.transition(operations[1] as OperationRecord, "queued", delivered);
    await store.transition(operations[3] as OperationRecord, "queued", delivered);

    const first = await store.list(the.tenant, { state: "queued", limit: 2 });
    expect(first).toEqual({ items: [operations[2]], last: operations[2]?.operationId });
    const second = await store.list(the.tenant, { state: "queued", limit: 2, after: first.last });
    expect(second).toEqual({ items: [operations[0]], last: operations[0]?.operationId });
    expect(await store.list(the.tenant, { state: "queued", limit: 2, after: second.last })).toEqual({
      items: [],
    });
  });

  it("hands out every tenant's open operations due by a time, earliest due first", async () => {
    const store = the.subject;
    const other = `${the.tenant}-other`;
    const late = { ...queued("agent-1", 0), dueAt: START + 3_000 };
    const early = { ...queued("agent-2", 1), dueAt: START + 1_000 };
    const ofOther = { ...queued("agent-9", 2, other), dueAt: START + 2_000 };
    const notYet = { ...queued("agent-3", 3), dueAt: START + 60_000 };
    const closing = { ...queued("agent-4", 4), dueAt: START };
    const undated = queued("agent-5", 5);
    await store.create([late, early, notYet, closing, undated]);
    await store.create([ofOther]);
    await store.transition(closing, "queued", { state: "cancelled", finishedAt: START, reason: "contract" });

    const dueBy = async (time: number) => {
      const found: OperationRecord[] = [];
      for await (const record of store.due(time)) {
        if (record.tenant === the.tenant || record.tenant === other) found.push(record);
      }
      return found;
    };
    expect(await dueBy(START + 3_000)).toEqual([early, ofOther, late]);

    // A transition that sets a later due time moves the operation along the index.
    const delivered: OperationChange = { state: "delivered", deliveredAt: START, dueAt: START + 120_000 };
    await store.transition(early, "queued", delivered);
    expect(idsOf(await dueBy(START + 3_000))).toEqual(idsOf([ofOther, late]));
    expect(idsOf(await dueBy(START + 120_000))).toEqual(idsOf([ofOther, late, notYet, early]));
  });

  it("pages a class's queued operations held for windows by agent and id, until they leave queued", async () => {
    const store = the.subject;
    const heldFor = (agentId: string, minutes: number, agentClass = "windowed") => ({
      ...queued(agentId, minutes),
      agentClass,
      notBefore: START + 3_600_000,
      dueAt: START + 3_600_000,
    });
    const [first, second, third, delivered] = [
      heldFor("agent-2", 0),
      heldFor("agent-1", 1),
      heldFor("agent-2", 2),
      heldFor("agent-3", 3),
    ];
    const otherClass = heldFor("agent-4", 4, "other");
    const notHeld = { ...queued("agent-5", 5), agentClass: "windowed" };
    await store.create([first, second, third, delivered, otherClass, notHeld]);
    await store.transition(delivered, "queued", { state: "delivered", deliveredAt: START, dueAt: START });
    // A new opening keeps it in the index, with its new time.
    const moved = { state: "queued" as const, notBefore: START + 60_000, dueAt: START + 60_000 };
    await store.transition(third, "queued", moved);

    const firstPage = await store.held(the.tenant, "windowed", { limit: 2 });
    expect(firstPage.items).toEqual([second, first]);
    expect(firstPage.last).toBeDefined();
    const rest = await store.held(the.tenant, "windowed", { limit: 2, after: firstPage.last });
    expect(rest.items).toEqual([applied(third, moved)]);
    expect(rest.last).toBeUndefined();
    expect((await store.held(the.tenant, "other", { limit: 10 })).items).toEqual([otherClass]);
    expect((await store.held(`${the.tenant}-other`, "windowed", { limit: 10 })).items).toEqual([]);
  });
});
