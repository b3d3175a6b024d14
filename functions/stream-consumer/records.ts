import type { KinesisStreamRecord } from "aws-lambda";
import type { BeaconEvent } from "../core/events/model.js";
import type { StreamRecord } from "../core/events/ports.js";
import { isValidIdentifier } from "../core/identity/credentials.js";
import { eventValidator } from "../shared/event-validators.js";

export type DecodedRecord = { record: StreamRecord } | { refused: string };

/**
 * A Kinesis record as Lambda delivers it, as the event Beacon put on the stream: its shard (the first part of
 * Lambda's `eventID`, `<shardId>:<sequenceNumber>`), its sequence number as its position, and the event, if it
 * is one of Beacon's by its schema and its tenant is one Beacon could have named.
 */
export function decodeRecord(record: KinesisStreamRecord): DecodedRecord {
  const separator = record.eventID.indexOf(":");
  const shard = separator < 0 ? record.eventID : record.eventID.slice(0, separator);
  const position = record.kinesis.sequenceNumber;
  let event: unknown;
  try {
    event = JSON.parse(Buffer.from(record.kinesis.data, "base64").toString("utf8"));
  } catch {
    return { refused: "not JSON" };
  }
  if (typeof event !== "object" || event === null || typeof (event as { type?: unknown }).type !== "string")
    return { refused: "not an event: no type" };
  const validate = eventValidator(event as { type: string });
  if (!validate(event)) {
    const [first] = validate.errors ?? [];
    return { refused: `breaks its schema at ${first?.instancePath || "/"}: ${first?.message ?? "mismatch"}` };
  }
  if (!isValidIdentifier((event as BeaconEvent).tenant)) return { refused: "not a tenant Beacon names" };
  return { record: { shard, position, event: event as BeaconEvent } };
}
