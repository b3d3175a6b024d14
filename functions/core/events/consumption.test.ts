import { describe, expect, it } from "vitest";
import { consumeRecords, PartlyConsumed } from "./consumption.js";
import type { EventConsumer, StreamRecord } from "./ports.js";

const records: StreamRecord[] = [0, 1, 2, 3].map((index) => ({
  shard: "shardId-000000000000",
  position: String(index),
  event: {
    type: "heartbeat",
    version: 1,
    eventId: `event-${index}`,
    tenant: "acme",
    agentId: "a",
    at: index,
    firstSight: false,
    operationsSent: [],
  },
}));

/** Keeps what it was given; fails as told. */
const consumer = (name: string, fails?: () => Error): EventConsumer & { given: StreamRecord[][] } => {
  const given: StreamRecord[][] = [];
  return {
    name,
    given,
    async consume(batch) {
      given.push(batch);
      if (fails) throw fails();
    },
  };
};

describe("consumeRecords", () => {
  it("gives every consumer every record in order, and reports no failure when all took them", async () => {
    const [archive, history] = [consumer("archive"), consumer("history")];
    expect(await consumeRecords(records, [archive, history])).toEqual({ failures: [] });
    expect(archive.given).toEqual([records]);
    expect(history.given).toEqual([records]);
  });

  it("fails from the first record: a consumer that throws took none of them", async () => {
    const outcome = await consumeRecords(records, [
      consumer("ok"),
      consumer("down", () => new Error("down")),
    ]);
    expect(outcome.failedFrom).toBe(0);
    expect(outcome.failures.map(({ consumer, from }) => ({ consumer, from }))).toEqual([
      { consumer: "down", from: 0 },
    ]);
  });

  it("fails from the earliest record any consumer did not take", async () => {
    const outcome = await consumeRecords(records, [
      consumer("three", () => new PartlyConsumed(3, { cause: new Error("x") })),
      consumer("one", () => new PartlyConsumed(1, { cause: new Error("y") })),
    ]);
    expect(outcome.failedFrom).toBe(1);
  });

  it("delivers the last record again when a failed consumer claims to have taken them all", async () => {
    const outcome = await consumeRecords(records, [
      consumer("all", () => new PartlyConsumed(99, { cause: new Error("x") })),
    ]);
    expect(outcome.failedFrom).toBe(3);
  });

  it("calls no consumer for no records", async () => {
    const idle = consumer("idle");
    expect(await consumeRecords([], [idle])).toEqual({ failures: [] });
    expect(idle.given).toEqual([]);
  });
});
