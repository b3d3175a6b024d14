import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import type { ClassCatalog } from "../../core/agents/ports.js";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import {
  DEFAULT_ROLLOUT_PLAN,
  emptyCounts,
  type RolloutMember,
  type RolloutRecord,
} from "../../core/rollouts/model.js";
import type { RolloutStore } from "../../core/rollouts/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);
const previous: ClassFlowPolicy = { target: "flow-1", accepted: ["flow-1"] };
const during: ClassFlowPolicy = { target: "flow-1", accepted: ["flow-1", "flow-2"], ackTimeoutMs: 90_000 };
const after: ClassFlowPolicy = { target: "flow-2", accepted: ["flow-2"] };

/** A canary rollout of `className` from flow-1 to flow-2 created `minutes` after START; ids sort by creation time. */
export function canaryRollout(tenant: string, className: string, minutes = 0): RolloutRecord {
  const createdAt = START + minutes * 60_000;
  return {
    tenant,
    rolloutId: `ro-${String(createdAt).padStart(13, "0")}-${randomUUID()}`,
    className,
    fromFlow: "flow-1",
    toFlow: "flow-2",
    state: "canary",
    plan: DEFAULT_ROLLOUT_PLAN,
    classSize: 10,
    canarySize: 1,
    batches: 0,
    exhausted: false,
    counts: emptyCounts(),
    settled: emptyCounts(),
    acceptedFailures: 0,
    createdAt,
    createdBy: "contract",
    updatedAt: createdAt,
    version: 1,
  };
}

/** The rollout store, with the class catalog that shows the class item it writes together with a rollout. */
export interface RolloutStoreSubject {
  store: RolloutStore;
  catalog: ClassCatalog;
}

/**
 * One active rollout per class, writes conditional on the version read, the class's flow policy and active
 * rollout changed in the same transaction, and members read by batch and page by page.
 */
export const rolloutStoreContract = contract<RolloutStoreSubject>("the rollout store", (the) => {
  const rolloutOf = (className: string, minutes = 0) => canaryRollout(the.tenant, className, minutes);

  /** The record as the next write carries it: changed, and one version on from the one read. */
  const next = (record: RolloutRecord, change: Partial<RolloutRecord>): RolloutRecord => ({
    ...record,
    ...change,
    version: record.version + 1,
  });

  const memberOf = (record: RolloutRecord, batch: number, agentId: string): RolloutMember => ({
    tenant: the.tenant,
    rolloutId: record.rolloutId,
    agentId,
    batch,
    state: "updating",
    operationId: `op-${agentId}`,
    previousFlowId: "flow-1",
    selectedAt: record.createdAt,
  });

  const activeOfTenant = async () => {
    const ids: string[] = [];
    for await (const entry of the.subject.store.active())
      if (entry.tenant === the.tenant) ids.push(entry.rolloutId);
    return ids;
  };

  it("makes a rollout the class's active one, creating the class, and refuses a second while it is", async () => {
    const { store, catalog } = the.subject;
    const first = rolloutOf("edge");
    expect(await store.start(first, during)).toBe(true);
    expect(await store.get(the.tenant, first.rolloutId)).toEqual(first);
    expect(await catalog.get(the.tenant, "edge")).toEqual({
      tenant: the.tenant,
      name: "edge",
      createdAt: first.createdAt,
      autoCreated: false,
      activeRolloutId: first.rolloutId,
      flowPolicy: during,
    });

    const second = rolloutOf("edge", 1);
    expect(await store.start(second, after)).toBe(false);
    expect(await store.get(the.tenant, second.rolloutId)).toBeUndefined();
    expect(await catalog.get(the.tenant, "edge")).toMatchObject({
      activeRolloutId: first.rolloutId,
      flowPolicy: during,
    });
    expect(await activeOfTenant()).toEqual([first.rolloutId]);
  });

  it("keeps a class's own fields when a rollout starts, and reads its acknowledgement timeout", async () => {
    const { store, catalog } = the.subject;
    await catalog.put(the.tenant, "edge", { description: "edge gateways", ackTimeoutSeconds: 120 }, START);
    const rollout = rolloutOf("edge", 1);
    expect(await store.start(rollout, during)).toBe(true);
    expect(await catalog.get(the.tenant, "edge")).toEqual({
      tenant: the.tenant,
      name: "edge",
      description: "edge gateways",
      ackTimeoutSeconds: 120,
      createdAt: START,
      updatedAt: START,
      autoCreated: false,
      activeRolloutId: rollout.rolloutId,
      flowPolicy: during,
    });
  });

  it("holds a waiting rollout as the class's active one, its flow policy kept, until it starts with one", async () => {
    const { store, catalog } = the.subject;
    await catalog.put(the.tenant, "edge", { description: "edge gateways" }, START);
    const earlier = rolloutOf("edge");
    await store.start(earlier, during);
    await store.save(next(earlier, { state: "completed", finishedAt: START + 60_000 }), 1, previous);

    const waiting: RolloutRecord = { ...rolloutOf("edge", 5), state: "awaiting_approval" };
    expect(await store.hold(waiting)).toBe(true);
    expect(await store.get(the.tenant, waiting.rolloutId)).toEqual(waiting);
    expect(await catalog.get(the.tenant, "edge")).toMatchObject({
      description: "edge gateways",
      activeRolloutId: waiting.rolloutId,
      flowPolicy: previous,
    });
    // The sweeper looks at it, to start it once due; and it holds the class against another rollout.
    expect(await activeOfTenant()).toEqual([waiting.rolloutId]);
    expect(await store.start(rolloutOf("edge", 6), during)).toBe(false);
    expect(await store.hold({ ...rolloutOf("edge", 7), state: "scheduled" })).toBe(false);

    const started = next(waiting, { state: "canary", approvedBy: "second" });
    expect(await store.save(started, 1, during)).toBe(true);
    expect(await catalog.get(the.tenant, "edge")).toMatchObject({
      activeRolloutId: waiting.rolloutId,
      flowPolicy: during,
    });
  });

  it("holds a waiting rollout for a class it creates, with no flow policy, and frees the class once refused", async () => {
    const { store, catalog } = the.subject;
    const waiting: RolloutRecord = { ...rolloutOf("edge"), state: "scheduled", startAt: START + 3_600_000 };
    expect(await store.hold(waiting)).toBe(true);
    expect(await catalog.get(the.tenant, "edge")).toEqual({
      tenant: the.tenant,
      name: "edge",
      createdAt: waiting.createdAt,
      autoCreated: false,
      activeRolloutId: waiting.rolloutId,
    });

    const refused = next(waiting, { state: "refused", refusedBy: "second", reason: "Not today" });
    expect(await store.save(refused, 1)).toBe(true);
    expect((await catalog.get(the.tenant, "edge"))?.activeRolloutId).toBeUndefined();
    expect(await activeOfTenant()).toEqual([]);
    expect(await store.hold({ ...rolloutOf("edge", 1), state: "awaiting_approval" })).toBe(true);
  });

  it("writes a rollout only over the version it read", async () => {
    const { store, catalog } = the.subject;
    const rollout = rolloutOf("edge");
    await store.start(rollout, during);
    const rolling = next(rollout, { state: "rolling", batches: 1, lastBatchAt: START + 60_000 });
    expect(await store.save(rolling, 1)).toBe(true);

    const stale = next(rollout, { state: "paused", reason: "read before the batch" });
    expect(await store.save(stale, 1)).toBe(false);
    expect(await store.save(stale, 1, after)).toBe(false);
    expect(await store.get(the.tenant, rollout.rolloutId)).toEqual(rolling);
    expect(await catalog.get(the.tenant, "edge")).toMatchObject({ flowPolicy: during });
  });

  it("changes the class's policy with the rollout, and a final rollout stops being its active one", async () => {
    const { store, catalog } = the.subject;
    const rollout = rolloutOf("edge");
    await store.start(rollout, during);
    const rolling = next(rollout, { state: "rolling" });
    expect(await store.save(rolling, 1, { ...during, target: "flow-2" })).toBe(true);
    expect(await catalog.get(the.tenant, "edge")).toMatchObject({
      activeRolloutId: rollout.rolloutId,
      flowPolicy: { ...during, target: "flow-2" },
    });

    const completed = next(rolling, { state: "completed", finishedAt: START + 600_000 });
    expect(await store.save(completed, 2, after)).toBe(true);
    expect(await store.get(the.tenant, rollout.rolloutId)).toEqual(completed);
    const edge = await catalog.get(the.tenant, "edge");
    expect(edge?.flowPolicy).toEqual(after);
    expect(edge?.activeRolloutId).toBeUndefined();
    expect(await activeOfTenant()).toEqual([]);

    // The class is free for the next rollout, which may leave it without a policy.
    const nextRollout = rolloutOf("edge", 20);
    expect(await store.start(nextRollout, undefined)).toBe(true);
    expect((await catalog.get(the.tenant, "edge"))?.flowPolicy).toBeUndefined();
  });

  it("leaves the class to its next rollout when an ended one is written again", async () => {
    const { store, catalog } = the.subject;
    const ended = rolloutOf("edge");
    await store.start(ended, during);
    const aborted = next(ended, { state: "aborted", reason: "operator" });
    await store.save(aborted, 1, previous);
    const successor = rolloutOf("edge", 5);
    await store.start(successor, during);

    const recounted = next(aborted, { counts: { ...emptyCounts(), selected: 1, failed: 1 } });
    expect(await store.save(recounted, 2, previous)).toBe(true);
    expect(await store.get(the.tenant, ended.rolloutId)).toEqual(recounted);
    expect(await catalog.get(the.tenant, "edge")).toMatchObject({
      activeRolloutId: successor.rolloutId,
      flowPolicy: during,
    });
    expect(await activeOfTenant()).toEqual([successor.rolloutId]);
  });

  it("lists rollouts newest first, page by page, of every class or one", async () => {
    const { store } = the.subject;
    const rollouts = [rolloutOf("edge", 0), rolloutOf("core", 1), rolloutOf("edge2", 2)];
    for (const rollout of rollouts) await store.start(rollout, during);
    const first = await store.list(the.tenant, { limit: 2 });
    expect(first.items).toEqual([rollouts[2], rollouts[1]]);
    const second = await store.list(the.tenant, { limit: 2, after: first.last });
    expect(second).toEqual({ items: [rollouts[0]] });

    const ofCore = await store.list(the.tenant, { limit: 10, className: "core" });
    expect(ofCore).toEqual({ items: [rollouts[1]] });
  });

  it("filters by class within the page it reads, so a page of a class may be empty and still lead on", async () => {
    const { store } = the.subject;
    const rollouts = [rolloutOf("edge", 0), rolloutOf("core", 1), rolloutOf("edge2", 2)];
    for (const rollout of rollouts) await store.start(rollout, during);
    const first = await store.list(the.tenant, { limit: 2, className: "edge" });
    expect(first).toEqual({ items: [], last: rollouts[1]?.rolloutId });
    const second = await store.list(the.tenant, { limit: 2, className: "edge", after: first.last });
    expect(second).toEqual({ items: [rollouts[0]] });
  });

  it("lists the rollouts in one state, filtering each page as it reads it", async () => {
    const { store } = the.subject;
    const waiting: RolloutRecord = { ...rolloutOf("edge", 0), state: "awaiting_approval" };
    const running = rolloutOf("core", 1);
    const alsoWaiting: RolloutRecord = { ...rolloutOf("edge2", 2), state: "awaiting_approval" };
    await store.hold(waiting);
    await store.start(running, during);
    await store.hold(alsoWaiting);

    const all = await store.list(the.tenant, { limit: 10, state: "awaiting_approval" });
    expect(all).toEqual({ items: [alsoWaiting, waiting] });
    const first = await store.list(the.tenant, { limit: 2, state: "canary" });
    expect(first).toEqual({ items: [running], last: running.rolloutId });
    expect(await store.list(the.tenant, { limit: 2, state: "canary", after: first.last })).toEqual({
      items: [],
    });
    expect(
      await store.list(the.tenant, { limit: 10, state: "awaiting_approval", className: "edge" }),
    ).toEqual({ items: [waiting] });
  });

  it("writes members once and reads them by batch, whole, and page by page", async () => {
    const { store } = the.subject;
    const rollout = rolloutOf("edge");
    await store.start(rollout, during);
    const canary = memberOf(rollout, 0, "agent-5");
    const batch = ["agent-3", "agent-1", "agent-2"].map((agentId) => memberOf(rollout, 1, agentId));
    // Those it wrote, in no particular order: the writes go out together.
    const written = await store.addMembers([canary, ...batch]);
    expect(written).toHaveLength(4);
    expect(written).toEqual(expect.arrayContaining([canary, ...batch]));
    // A retried batch leaves the members there as they are.
    expect(await store.addMembers([{ ...canary, state: "failed" }])).toEqual([]);

    const [three, one, two] = batch;
    expect(await store.members(the.tenant, rollout.rolloutId, 1)).toEqual([one, two, three]);
    expect(await store.members(the.tenant, rollout.rolloutId, 0)).toEqual([canary]);
    expect(await store.members(the.tenant, rollout.rolloutId)).toEqual([canary, one, two, three]);
    expect(await store.members(the.tenant, rollout.rolloutId, 2)).toEqual([]);

    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await store.memberPage(the.tenant, rollout.rolloutId, {
        limit: 2,
        after: cursor,
      });
      pages.push(page.items.map((member) => member.agentId));
      cursor = page.last;
    } while (cursor !== undefined);
    // A full page names a cursor even when nothing follows it, as the table's query does.
    expect(pages).toEqual([["agent-5", "agent-1"], ["agent-2", "agent-3"], []]);
  });

  it("keeps a member's failure through its rollback, and the rollout's failed count beside its rollback counts", async () => {
    const { store } = the.subject;
    const rollout = rolloutOf("edge");
    await store.start(rollout, during);
    const member = memberOf(rollout, 0, "agent-1");
    await store.addMembers([member]);
    const failed: RolloutMember = {
      ...member,
      state: "failed",
      settledAt: START,
      failedAt: START,
      reason: "Acknowledged NOT_APPLIED",
    };
    expect(await store.updateMember(failed, "updating")).toBe(true);
    const rollingBack: RolloutMember = { ...failed, state: "rolling_back", rollbackOperationId: "op-back" };
    expect(await store.updateMember(rollingBack, "failed")).toBe(true);
    const rolledBack: RolloutMember = { ...rollingBack, state: "rolled_back", settledAt: START + 60_000 };
    expect(await store.updateMember(rolledBack, "rolling_back")).toBe(true);
    expect(await store.members(the.tenant, rollout.rolloutId)).toEqual([rolledBack]);

    const counted = next(rollout, {
      state: "rolling_back",
      counts: { ...emptyCounts(), selected: 1, failed: 1, rolledBack: 1 },
    });
    expect(await store.save(counted, 1)).toBe(true);
    expect((await store.get(the.tenant, rollout.rolloutId))?.counts).toEqual(counted.counts);
  });

  it("changes a member only from the state it was read in", async () => {
    const { store } = the.subject;
    const rollout = rolloutOf("edge");
    await store.start(rollout, during);
    const member = { ...memberOf(rollout, 0, "agent-1"), reason: "waiting for its acknowledgement" };
    await store.addMembers([member]);

    const { reason: _cleared, ...soaking } = { ...member, state: "soaking" as const, soakingSince: START };
    expect(await store.updateMember(soaking, "updating")).toBe(true);
    expect(await store.updateMember({ ...member, state: "failed" }, "updating")).toBe(false);
    expect(await store.members(the.tenant, rollout.rolloutId, 0)).toEqual([soaking]);
    // A member that was never added is not written either.
    expect(await store.updateMember(memberOf(rollout, 0, "agent-9"), "updating")).toBe(false);
    expect(await store.members(the.tenant, rollout.rolloutId)).toEqual([soaking]);
  });
});
