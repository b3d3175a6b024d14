import {
  GetRecordsCommand,
  GetShardIteratorCommand,
  type KinesisClient,
  ListShardsCommand,
} from "@aws-sdk/client-kinesis";

/** Reads every record on every shard of a stream from the start: for tests and local inspection. */
export async function readWholeStream(kinesis: KinesisClient, streamName: string): Promise<unknown[]> {
  const { Shards = [] } = await kinesis.send(new ListShardsCommand({ StreamName: streamName }));
  const records: unknown[] = [];
  for (const shard of Shards) {
    let { ShardIterator: iterator } = await kinesis.send(
      new GetShardIteratorCommand({
        StreamName: streamName,
        ShardId: shard.ShardId,
        ShardIteratorType: "TRIM_HORIZON",
      }),
    );
    while (iterator) {
      const page = await kinesis.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 10_000 }));
      for (const record of page.Records ?? [])
        records.push(JSON.parse(Buffer.from(record.Data ?? []).toString("utf8")));
      if ((page.Records ?? []).length === 0 && (page.MillisBehindLatest ?? 0) === 0) break;
      iterator = page.NextShardIterator;
    }
  }
  return records;
}
