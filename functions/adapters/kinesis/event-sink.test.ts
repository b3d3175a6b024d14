import { KinesisClient, PutRecordsCommand, type PutRecordsCommandInput } from "@aws-sdk/client-kinesis";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import type { HeartbeatEvent } from "../../core/events/model.js";
import { KinesisEventSink, StreamPublishError } from "./event-sink.js";

// The emulators never fail part of a batch or throttle; these faults are injected at the client.
const kinesis = mockClient(KinesisClient);
const sink = new KinesisEventSink(new KinesisClient({ region: "us-east-1" }), "events", {
  maxAttempts: 3,
  backoffMs: 1,
});

const event = (agentId: string): HeartbeatEvent => ({
  type: "heartbeat",
  version: 1,
  eventId: `event-${agentId}`,
  tenant: "acme",
  agentId,
  at: 1,
  firstSight: false,
  operationsSent: [],
});

const agentsIn = (input: PutRecordsCommandInput) =>
  (input.Records ?? []).map(
    (record) => (JSON.parse(Buffer.from(record.Data ?? []).toString()) as HeartbeatEvent).agentId,
  );

beforeEach(() => kinesis.reset());

describe("KinesisEventSink", () => {
  it("puts each event with its tenant/agent partition key", async () => {
    kinesis
      .on(PutRecordsCommand)
      .resolves({ FailedRecordCount: 0, Records: [{ SequenceNumber: "1", ShardId: "s" }] });
    await sink.publish([event("a")]);
    const [call] = kinesis.commandCalls(PutRecordsCommand);
    expect(call?.args[0].input.Records?.[0]?.PartitionKey).toBe("acme/a");
  });

  it("resends only the entries a PutRecords call failed", async () => {
    kinesis
      .on(PutRecordsCommand)
      .resolvesOnce({
        FailedRecordCount: 2,
        Records: [
          { ErrorCode: "ProvisionedThroughputExceededException" },
          { SequenceNumber: "1", ShardId: "s" },
          { ErrorCode: "InternalFailure" },
        ],
      })
      .resolves({ FailedRecordCount: 0, Records: [{ SequenceNumber: "2" }, { SequenceNumber: "3" }] });
    await sink.publish([event("a"), event("b"), event("c")]);
    const calls = kinesis.commandCalls(PutRecordsCommand).map((call) => agentsIn(call.args[0].input));
    expect(calls).toEqual([
      ["a", "b", "c"],
      ["a", "c"],
    ]);
  });

  it("gives up after the bounded number of attempts, naming what failed", async () => {
    kinesis
      .on(PutRecordsCommand)
      .resolves({ FailedRecordCount: 1, Records: [{ ErrorCode: "ProvisionedThroughputExceededException" }] });
    await expect(sink.publish([event("a")])).rejects.toBeInstanceOf(StreamPublishError);
    expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(3);
  });

  it("puts at most 500 events a call, and counts those of later calls as not put when one gives up", async () => {
    // Every call fails its first entry: the first 500 events never all get through.
    kinesis.on(PutRecordsCommand).callsFake((input: PutRecordsCommandInput) => ({
      FailedRecordCount: 1,
      Records: (input.Records ?? []).map((_, index) =>
        index === 0 ? { ErrorCode: "InternalFailure" } : { SequenceNumber: "1" },
      ),
    }));
    const events = Array.from({ length: 600 }, (_, index) => event(`a-${index}`));
    await expect(sink.publish(events)).rejects.toMatchObject({ failedCount: 101 });
    expect(
      kinesis.commandCalls(PutRecordsCommand).map((call) => agentsIn(call.args[0].input).length),
    ).toEqual([500, 1, 1]);
  });

  it("retries a call that failed whole, such as a throttled request", async () => {
    const throttled = Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException" });
    kinesis
      .on(PutRecordsCommand)
      .rejectsOnce(throttled)
      .resolves({ FailedRecordCount: 0, Records: [{ SequenceNumber: "1" }] });
    await sink.publish([event("a")]);
    expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(2);
  });
});
