import type { KinesisClient } from "@aws-sdk/client-kinesis";
import type { MadeForDirectCalls } from "../aws/call-settings.js";
import { jsonProtocolCalls } from "../aws/json-protocol.js";

/** What records are put through: a client made for direct calls alone (a function's), or the SDK's (tooling's). */
export type StreamClient = MadeForDirectCalls | KinesisClient;

/** One record as PutRecords takes it: its data (base64, as Kinesis's JSON API carries bytes) and partition key. */
export interface RecordEntry {
  Data: string;
  PartitionKey: string;
}

/** What became of each record of a PutRecords call, in the order they were sent. */
export interface PutRecordsOutcome {
  Records?: { ErrorCode?: string; SequenceNumber?: string }[];
}

export type PutRecords = (streamName: string, records: RecordEntry[]) => Promise<PutRecordsOutcome>;

/**
 * PutRecords without the SDK's per-call middleware (json-protocol.ts), which on the hot path cost more CPU than
 * the rest of a steady heartbeat. Not retried here: the sink knows which failures may be sent again (event-sink.ts).
 */
export function kinesisPutRecords(client: StreamClient): PutRecords {
  const call = jsonProtocolCalls(client, {
    targetPrefix: "Kinesis_20131202",
    signingName: "kinesis",
    contentType: "application/x-amz-json-1.1",
    retried: false,
  });
  return async (streamName, records) =>
    JSON.parse(
      await call("PutRecords", JSON.stringify({ StreamName: streamName, Records: records })),
    ) as PutRecordsOutcome;
}
