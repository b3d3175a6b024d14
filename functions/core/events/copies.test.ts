import { describe, expect, it } from "vitest";
import { PartlyConsumed } from "./consumption.js";
import { consumeFirstRecords, copiesAmong } from "./copies.js";
import type { BeaconEvent } from "./model.js";
import type { EventConsumer, KeptEvents, StreamRecord } from "./ports.js";
import type { ShardSpan } from "./positions.js";

const heartbeat = (eventId: string, resent?: true): BeaconEvent => ({
  type: "heartbeat",
  version: 1,
  eventId,
  tenant: "acme",
  agentId: "a",
  at: 1_000,
  firstSight: false,
  operationsSent: [],
  ...(resent ? { resent } : {}),
});

const elsewhere: ShardSpan = { shard: "shardId-000000000001", first: "1", last: "99" };

const batch = (...events: BeaconEvent[]): StreamRecord[] =>
  events.map((event, index) => ({ shard: "shardId-000000000000", position: String(10 + index), event }));

/** Holds the eventIds given, in an object of another shard unless a span is given; records every lookup. */
const archiveHolding = (ids: string[], span = elsewhere): KeptEvents & { asked: string[][] } => {
  const asked: string[][] = [];
  return {
    asked,
    async keptAmong(events) {
      asked.push(events.map((event) => event.eventId));
      const held = events.map((event) => event.eventId).filter((id) => ids.includes(id));
      return new Map(held.map((id) => [id, [span]]));
    },
  };
};

const taking = (name: string, failAt?: number): EventConsumer & { given: string[][] } => {
  const given: string[][] = [];
  return {
    name,
    given,
    async consume(records) {
      given.push(records.map((record) => record.event.eventId));
      if (failAt !== undefined) throw new PartlyConsumed(failAt, { cause: new Error("down") });
    },
  };
};

describe("copiesAmong", () => {
  it("looks nothing up for a batch without marked records", async () => {
    const archive = archiveHolding(["a"]);
    expect(await copiesAmong(batch(heartbeat("a"), heartbeat("b")), archive)).toEqual(new Set());
    expect(archive.asked).toEqual([]);
  });

  it("passes over a record whose eventId an earlier record of the batch carries, marked or not", async () => {
    const archive = archiveHolding([]);
    const records = batch(heartbeat("a"), heartbeat("b"), heartbeat("a", true), heartbeat("b"));
    expect(await copiesAmong(records, archive)).toEqual(new Set([2, 3]));
    expect(archive.asked).toEqual([]);
  });

  it("looks up marked records only, and passes over those kept already", async () => {
    const archive = archiveHolding(["kept", "unmarked"]);
    const records = batch(heartbeat("unmarked"), heartbeat("kept", true), heartbeat("new", true));
    expect(await copiesAmong(records, archive)).toEqual(new Set([1]));
    expect(archive.asked).toEqual([["kept", "new"]]);
  });

  it("takes a marked record kept only within a span of its own shard for itself, delivered again", async () => {
    const records = batch(heartbeat("redelivered", true), heartbeat("copy", true));
    const ownSpan = { shard: "shardId-000000000000", first: "5", last: "10" };
    expect(await copiesAmong(records, archiveHolding(["redelivered", "copy"], ownSpan))).toEqual(
      new Set([1]),
    );
  });
});

describe("consumeFirstRecords", () => {
  it("gives the consumers the first record of each event, and names the copies passed over", async () => {
    const [history, webhooks] = [taking("history"), taking("webhooks")];
    const records = batch(heartbeat("a"), heartbeat("x", true), heartbeat("b"), heartbeat("a", true));
    expect(await consumeFirstRecords(records, [history, webhooks], archiveHolding(["x"]))).toEqual({
      failures: [],
      copies: [1, 3],
    });
    expect(history.given).toEqual([["a", "b"]]);
    expect(webhooks.given).toEqual([["a", "b"]]);
  });

  it("names a failure by the batch's index, and names only the copies before it", async () => {
    const failing = taking("history", 1);
    const records = batch(heartbeat("a"), heartbeat("x", true), heartbeat("b"), heartbeat("a", true));
    const consumption = await consumeFirstRecords(records, [failing], archiveHolding(["x"]));
    expect(consumption).toMatchObject({ failedFrom: 2, copies: [1] });
    expect(consumption.failures.map((failure) => failure.from)).toEqual([2]);
  });

  it("gives nothing to any consumer when the copies cannot be told, so the batch comes again", async () => {
    const history = taking("history");
    const unreachable: KeptEvents = {
      keptAmong: () => Promise.reject(new Error("archive unreachable")),
    };
    const consumption = await consumeFirstRecords(batch(heartbeat("x", true)), [history], unreachable);
    expect(consumption).toMatchObject({ failedFrom: 0, copies: [] });
    expect(consumption.failures.map((failure) => failure.consumer)).toEqual(["copies"]);
    expect(history.given).toEqual([]);
  });
});
