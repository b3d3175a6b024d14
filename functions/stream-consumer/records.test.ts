import type { KinesisStreamRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import type { AckEvent, WebhookDisabledEvent } from "../core/events/model.js";
import { decodeRecord } from "./records.js";

const ack: AckEvent = {
  type: "ack",
  version: 1,
  eventId: "e-1",
  tenant: "acme",
  agentId: "a-1",
  at: 1_764_000_000_000,
  operationId: "op-1",
  state: "FULLY_APPLIED",
  matched: true,
};

/** A record as Lambda's event source mapping delivers it. */
const kinesisRecord = (data: string | object, sequenceNumber = "4959"): KinesisStreamRecord => ({
  eventID: `shardId-000000000003:${sequenceNumber}`,
  eventName: "aws:kinesis:record",
  eventSource: "aws:kinesis",
  eventSourceARN: "arn:aws:kinesis:us-east-1:000000000000:stream/beacon-events",
  eventVersion: "1.0",
  invokeIdentityArn: "arn:aws:iam::000000000000:role/consumer",
  awsRegion: "us-east-1",
  kinesis: {
    kinesisSchemaVersion: "1.0",
    partitionKey: "acme/a-1",
    sequenceNumber,
    approximateArrivalTimestamp: 1_764_000_000,
    data: Buffer.from(typeof data === "string" ? data : JSON.stringify(data)).toString("base64"),
  },
});

describe("decodeRecord", () => {
  it("reads a Beacon event with its shard and sequence number", () => {
    expect(decodeRecord(kinesisRecord(ack, "4960"))).toEqual({
      record: { shard: "shardId-000000000003", position: "4960", event: ack },
    });
  });

  it("reads the event of a subscription Beacon disabled", () => {
    const disabled: WebhookDisabledEvent = {
      type: "webhook.disabled",
      version: 1,
      eventId: "e-2",
      tenant: "acme",
      at: 1_764_000_000_000,
      subscriptionId: "sub-1",
      reason: "The receiver answered 410 Gone",
      deliveryId: "e-1",
    };
    expect(decodeRecord(kinesisRecord(disabled))).toEqual({
      record: { shard: "shardId-000000000003", position: "4959", event: disabled },
    });
  });

  it.each([
    ["text that is not JSON", "{not json"],
    ["JSON that is no event", [1, 2]],
    ["an event of a type Beacon never writes", { ...ack, type: "login" }],
    ["an event that breaks its schema", { ...ack, matched: "yes" }],
    ["an event with a field its schema does not list", { ...ack, configurationOptions: { a: "b" } }],
    ["an event of a tenant Beacon cannot name", { ...ack, tenant: "../acme" }],
  ])("refuses %s", (_, data) => {
    expect(decodeRecord(kinesisRecord(data))).toEqual({ refused: expect.any(String) });
  });
});
