import {
  GetRecordsCommand,
  GetShardIteratorCommand,
  type KinesisClient,
  ListShardsCommand,
} from "@aws-sdk/client-kinesis";
import type { KinesisStreamEvent } from "aws-lambda";
import { kinesisStreamEventOf } from "../local/stream-poller.js";

/** One record as a shard holds it: its shard, its sequence number and its data, parsed. */
export interface ShardRecord {
  shard: string;
  sequenceNumber: string;
  data: unknown;
}

/** Reads every record on every shard of a stream from the start, shard by shard in order: for tests and local inspection. */
export async function readShardRecords(kinesis: KinesisClient, streamName: string): Promise<ShardRecord[]> {
  const { Shards = [] } = await kinesis.send(new ListShardsCommand({ StreamName: streamName }));
  const records: ShardRecord[] = [];
  for (const shard of Shards) {
    const shardId = shard.ShardId as string;
    let { ShardIterator: iterator } = await kinesis.send(
      new GetShardIteratorCommand({
        StreamName: streamName,
        ShardId: shardId,
        ShardIteratorType: "TRIM_HORIZON",
      }),
    );
    while (iterator) {
      const page = await kinesis.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 10_000 }));
      for (const record of page.Records ?? [])
        records.push({
          shard: shardId,
          sequenceNumber: record.SequenceNumber as string,
          data: JSON.parse(Buffer.from(record.Data ?? []).toString("utf8")),
        });
      if ((page.Records ?? []).length === 0 && (page.MillisBehindLatest ?? 0) === 0) break;
      iterator = page.NextShardIterator;
    }
  }
  return records;
}

/** Every record's data on every shard of a stream, from the start. */
export async function readWholeStream(kinesis: KinesisClient, streamName: string): Promise<unknown[]> {
  return (await readShardRecords(kinesis, streamName)).map((record) => record.data);
}

/** A one-shard stream's records, read whole, as the batch Lambda would deliver them to the stream consumer. */
export async function wholeShardBatch(
  kinesis: KinesisClient,
  streamName: string,
): Promise<KinesisStreamEvent> {
  const { Shards = [] } = await kinesis.send(new ListShardsCommand({ StreamName: streamName }));
  const [shard] = Shards;
  if (!shard || Shards.length !== 1) throw new Error(`${streamName} has ${Shards.length} shards, not one`);
  const shardId = shard.ShardId as string;
  const { ShardIterator } = await kinesis.send(
    new GetShardIteratorCommand({
      StreamName: streamName,
      ShardId: shardId,
      ShardIteratorType: "TRIM_HORIZON",
    }),
  );
  const { Records = [] } = await kinesis.send(new GetRecordsCommand({ ShardIterator, Limit: 10_000 }));
  return kinesisStreamEventOf(
    `arn:aws:kinesis:us-east-1:000000000000:stream/${streamName}`,
    shardId,
    Records,
  );
}
