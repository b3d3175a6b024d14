import { expect, it } from "vitest";
import type { BeaconEvent, HeartbeatEvent, OperationEvent } from "../../core/events/model.js";
import type { EventOutbox } from "../../core/events/ports.js";
import type { OperationRecord } from "../../core/operations/model.js";
import type { OperationStore } from "../../core/operations/ports.js";
import { contract } from "./contract.js";

/** The outbox shares its table with every other case's: a case reads only its own tenant's staged events. */
const LIMIT = 1_000;

/**
 * Operation changes and their events, written together: the store stages each event with its change and
 * only then, and the outbox hands back what was staged, by time, until it is cleared.
 */
export const eventOutboxContract = contract<{ store: OperationStore; outbox: EventOutbox }>(
  "the event outbox",
  (the) => {
    const START = Date.UTC(2026, 10, 24);
    let sequence = 0;

    const queued = (agentId: string): OperationRecord => ({
      tenant: the.tenant,
      agentId,
      operationId: `op-${agentId}-${++sequence}`,
      operation: "RESTART",
      state: "queued",
      createdAt: START,
      createdBy: "contract",
    });

    const eventOf = (
      record: OperationRecord,
      at: number,
      state: OperationEvent["state"],
    ): OperationEvent => ({
      type: "operation",
      version: 1,
      eventId: `${record.operationId}-${state}`,
      tenant: record.tenant,
      agentId: record.agentId,
      at,
      operationId: record.operationId,
      operation: record.operation,
      state,
    });

    const staged = async (before = START + 3_600_000): Promise<BeaconEvent[]> =>
      (await the.subject.outbox.pending(before, LIMIT)).filter((event) => event.tenant === the.tenant);

    it("stages a new operation's event with it, and each change's event with the change", async () => {
      const { store } = the.subject;
      const record = queued("agent-1");
      const created = eventOf(record, START, "queued");
      await store.create([record], [created]);
      const delivered = eventOf(record, START + 1_000, "delivered");
      expect(
        await store.transition(
          record,
          "queued",
          { state: "delivered", deliveredAt: START + 1_000 },
          delivered,
        ),
      ).toBe(true);
      expect(await staged()).toEqual([created, delivered]);
    });

    it("stages nothing for a change the operation had left behind, nor for a new operation refused", async () => {
      const { store } = the.subject;
      const record = queued("agent-2");
      await store.create([record]);
      const done = eventOf(record, START + 2_000, "done");
      expect(
        await store.transition(record, "delivered", { state: "done", finishedAt: START + 2_000 }, done),
      ).toBe(false);
      await expect(store.create([record], [eventOf(record, START, "queued")])).rejects.toThrow();
      expect(await staged()).toEqual([]);
    });

    it("hands back only what was staged before the time asked, oldest first, at most the limit", async () => {
      const { store, outbox } = the.subject;
      // Older than any other case's events in the table, so that a limit of one reaches this case's.
      const longAgo = START - 365 * 24 * 3_600_000;
      const records = [queued("agent-3"), queued("agent-4"), queued("agent-5")];
      const events = records.map((record, index) =>
        eventOf(record, longAgo + (3 - index) * 60_000, "queued"),
      );
      await store.create(records, events);
      expect(await staged(longAgo + 150_000)).toEqual([events[2], events[1]]);
      expect(await outbox.pending(longAgo + 150_000, 1)).toEqual([events[2]]);
    });

    it("forgets what it was told is on the stream, and takes events it never staged in its stride", async () => {
      const { store, outbox } = the.subject;
      const first = queued("agent-6");
      const second = queued("agent-7");
      const events = [eventOf(first, START, "queued"), eventOf(second, START, "queued")];
      await store.create([first, second], events);
      const heartbeat: HeartbeatEvent = {
        type: "heartbeat",
        version: 1,
        eventId: "hb-1",
        tenant: the.tenant,
        agentId: "agent-6",
        at: START,
        firstSight: false,
        operationsSent: [],
      };
      await outbox.clear([heartbeat, events[0] as OperationEvent]);
      expect(await staged()).toEqual([events[1]]);
      await outbox.clear([events[1] as OperationEvent]);
      expect(await staged()).toEqual([]);
    });

    it("keeps events the buffer could not hold apart from the staged ones, oldest first, until cleared", async () => {
      const { outbox } = the.subject;
      const heartbeat = (eventId: string, at: number): HeartbeatEvent => ({
        type: "heartbeat",
        version: 1,
        eventId,
        tenant: the.tenant,
        agentId: "agent-8",
        at,
        firstSight: false,
        operationsSent: [],
      });
      const kept = async () =>
        (await outbox.kept(LIMIT))
          .filter((event) => event.tenant === the.tenant)
          .map((event) => event.eventId);
      // Of one time, two events keep the order they were kept in.
      const events = [
        heartbeat("k-b", START + 2_000),
        heartbeat("k-c", START + 1_000),
        heartbeat("k-a", START + 2_000),
      ];
      await outbox.keep(events);
      expect(await kept()).toEqual(["k-c", "k-b", "k-a"]);
      expect((await outbox.kept(LIMIT)).find((event) => event.eventId === "k-c")).toEqual(events[1]);
      expect(await staged()).toEqual([]);
      await outbox.clear(events.slice(0, 2));
      expect(await kept()).toEqual(["k-a"]);
      await outbox.clear(events);
      expect(await kept()).toEqual([]);
    });
  },
);
