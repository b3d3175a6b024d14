import { expect, it } from "vitest";
import type { OperationEvent } from "../../core/events/model.js";
import type { AgentLogEvent } from "../../core/history/agent-log.js";
import { type BucketKey, type HistoryBucket, zeroCounts } from "../../core/history/model.js";
import type { AgentEventLog, FleetHistoryStore } from "../../core/history/ports.js";
import { addAgent, emptySketch, estimateAgents } from "../../core/history/sketch.js";
import { contract } from "./contract.js";

export interface FleetHistorySubject {
  history: FleetHistoryStore;
  agentEvents: AgentEventLog;
}

const MINUTE = 29_000_000;

/** A change that counts one more heartbeat of `agentId` from `shard`, as the consumer's would. */
const oneMore =
  (key: BucketKey, shard: string, agentId: string) =>
  (stored: HistoryBucket | undefined): HistoryBucket => {
    const counts = { ...zeroCounts(), ...stored?.counts };
    counts.heartbeats++;
    const agentsSeen = stored?.agentsSeen ?? emptySketch();
    addAgent(agentsSeen, agentId);
    return {
      ...key,
      counts,
      agentsSeen,
      positions: { ...stored?.positions, [shard]: `${counts.heartbeats}` },
    };
  };

const operationEvent = (tenant: string, eventId: string, at: number): AgentLogEvent =>
  ({
    type: "operation",
    version: 1,
    eventId,
    tenant,
    agentId: "pump-1",
    at,
    operationId: "op-1~pump-1",
    operation: "DESCRIBE",
    operand: "MANIFEST",
    state: "queued",
  }) satisfies OperationEvent;

/** Buckets changed over the one read, never losing a racing writer's change; agents' events kept once by id. */
export const fleetHistoryContract = contract<FleetHistorySubject>("the fleet history store", (the) => {
  it("keeps each class's minutes apart, per tenant, and reads a range of them by minute", async () => {
    const { history } = the.subject;
    const key = (agentClass: string, minute: number) => ({ tenant: the.tenant, agentClass, minute });
    for (const [agentClass, minute] of [
      ["pumps", MINUTE],
      ["pumps", MINUTE + 2],
      ["pumps", MINUTE + 5],
      ["valves", MINUTE],
    ] as const) {
      await history.update(key(agentClass, minute), oneMore(key(agentClass, minute), "shard-0", "pump-1"));
    }
    const read = await history.read(the.tenant, "pumps", MINUTE, MINUTE + 5);
    expect(
      read.map((bucket) => [bucket.minute, bucket.counts.heartbeats, estimateAgents(bucket.agentsSeen)]),
    ).toEqual([
      [MINUTE, 1, 1],
      [MINUTE + 2, 1, 1],
    ]);
    expect(read[0]).toMatchObject({ tenant: the.tenant, agentClass: "pumps", positions: { "shard-0": "1" } });
    expect(await history.read(`${the.tenant}-other`, "pumps", MINUTE, MINUTE + 6)).toEqual([]);
  });

  it("answers one minute's counts of each class asked, zeros for a class without that minute", async () => {
    const { history } = the.subject;
    const key = (agentClass: string, minute: number) => ({ tenant: the.tenant, agentClass, minute });
    for (const [agentClass, minute] of [
      ["pumps", MINUTE],
      ["pumps", MINUTE],
      ["pumps", MINUTE + 1],
      ["valves", MINUTE],
      ["drains", MINUTE + 1],
    ] as const) {
      await history.update(key(agentClass, minute), oneMore(key(agentClass, minute), "shard-0", "pump-1"));
    }
    const counts = await history.countsInMinute(the.tenant, ["pumps", "valves", "drains"], MINUTE);
    expect([...counts].map(([name, counted]) => [name, counted.heartbeats])).toEqual([
      ["pumps", 2],
      ["valves", 1],
      ["drains", 0],
    ]);
    expect(counts.get("drains")).toEqual(zeroCounts());
    const many = Array.from({ length: 130 }, (_, index) => `class-${index}`);
    expect((await history.countsInMinute(the.tenant, many, MINUTE)).size).toBe(130);
    const other = await history.countsInMinute(`${the.tenant}-other`, ["pumps"], MINUTE);
    expect(other.get("pumps")?.heartbeats).toBe(0);
  });

  it("loses no change when writers race on one bucket, and writes nothing when the change is none", async () => {
    const { history } = the.subject;
    const key = { tenant: the.tenant, agentClass: "pumps", minute: MINUTE };
    await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        history.update(key, oneMore(key, `shard-${index}`, `pump-${index}`)),
      ),
    );
    let asked: HistoryBucket | undefined;
    await history.update(key, (stored) => {
      asked = stored;
      return undefined;
    });
    expect(asked?.counts.heartbeats).toBe(8);
    const [bucket] = await history.read(the.tenant, "pumps", MINUTE, MINUTE + 1);
    expect(bucket?.counts.heartbeats).toBe(8);
    expect(estimateAgents(bucket?.agentsSeen ?? emptySketch())).toBe(8);
    expect(Object.keys(bucket?.positions ?? {})).toHaveLength(8);
  });

  it("keeps an agent's events once by id, newest first, in pages, for its tenant only", async () => {
    const { agentEvents } = the.subject;
    const events = [1_000, 3_000, 2_000].map((at, index) => operationEvent(the.tenant, `event-${index}`, at));
    await agentEvents.add(events);
    await agentEvents.add([events[0] as AgentLogEvent, events[2] as AgentLogEvent]);
    const first = await agentEvents.list(the.tenant, "pump-1", { limit: 2, descending: true });
    expect(first.items).toEqual([events[1], events[2]]);
    const rest = await agentEvents.list(the.tenant, "pump-1", {
      limit: 2,
      descending: true,
      after: first.last,
    });
    expect(rest.items).toEqual([events[0]]);
    expect((await agentEvents.list(`${the.tenant}-other`, "pump-1", { limit: 10 })).items).toEqual([]);
  });
});
