/**
 * The local stand-in for Lambda's Kinesis event source mapping: it reads each shard of the stream in order
 * (GetShardIterator, GetRecords), hands each page of records to the stream consumer's handler in the event
 * shape Lambda delivers, and, as Lambda does with ReportBatchItemFailures, reads again from the lowest
 * sequence number of a partial batch response, or from the batch's first record when the invocation failed.
 * It outlives the emulator: while the stream cannot be read it retries, and when the stream comes back new
 * (an emulator restarted in memory, its shards starting at other sequence numbers) it reads that from its start.
 */
import {
  DescribeStreamSummaryCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type GetShardIteratorCommandInput,
  type KinesisClient,
  ListShardsCommand,
  type Shard,
  type _Record as StreamRecord,
} from "@aws-sdk/client-kinesis";
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from "aws-lambda";
import { makeKinesisClient } from "../../functions/runtime/aws-clients/kinesis.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { FunctionTimeouts } from "../../functions/shared/function-timeouts.js";
import type { FunctionLog } from "./function-logs.js";
import { invoker, setLocalLambdaEnvironment } from "./lambda-runtime.js";

type StreamInvoke = (event: KinesisStreamEvent) => Promise<KinesisStreamBatchResponse | undefined>;

export interface StreamPollerOptions {
  kinesis: KinesisClient;
  streamName: string;
  invoke: StreamInvoke;
  log: (line: string) => void;
  /** Most records per invocation: the event source mapping's batch size (kinesalite gives at most 10,000). */
  batchSize?: number;
  /**
   * Pause before reading a shard again that gave less than a full batch (nothing new, or what had come since the
   * last read): Lambda reads each shard about once a second, and the deployed mapping waits up to its batching
   * window to fill a batch. Reading again at once would hand the consumer a trickle one record or two at a time,
   * each batch costing it its fixed writes (an archive object, fleet history's and usage's conditional writes).
   */
  idleMs?: number;
  /** Pause after a failed batch, or while the stream cannot be read. */
  retryMs?: number;
}

export interface StreamPoller {
  /** Stops reading, and resolves once the batch in progress, if any, has been handled. */
  stop(): Promise<void>;
}

type Resume =
  | { ShardIteratorType: "TRIM_HORIZON" }
  | { ShardIteratorType: "AT_SEQUENCE_NUMBER" | "AFTER_SEQUENCE_NUMBER"; StartingSequenceNumber: string };

const fromStart: Resume = { ShardIteratorType: "TRIM_HORIZON" };

export function pollStream(options: StreamPollerOptions): StreamPoller {
  const { kinesis, streamName, invoke, log } = options;
  const batchSize = options.batchSize ?? 1_000;
  const idleMs = options.idleMs ?? 500;
  const retryMs = options.retryMs ?? 1_000;
  let stopped = false;
  const sleepers = new Set<() => void>();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });
  let unreadable: string | undefined;
  const readable = () => {
    if (unreadable === undefined) return;
    unreadable = undefined;
    log(`stream consumer: reading ${streamName} again`);
  };
  const cannotRead = (error: unknown) => {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    if (unreadable === undefined) log(`stream consumer: cannot read ${streamName} (${reason}); retrying`);
    unreadable = reason;
  };

  /** The handler's verdict on a batch: the sequence number to read again from, or undefined when all went. */
  async function deliver(event: KinesisStreamEvent, shardId: string): Promise<string | undefined> {
    const first = event.Records[0]?.kinesis.sequenceNumber;
    try {
      const response = await invoke(event);
      const failed = (response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier);
      if (failed.length === 0) return undefined;
      return failed.reduce((lowest, sequence) => (BigInt(sequence) < BigInt(lowest) ? sequence : lowest));
    } catch (error) {
      log(`stream consumer: batch of ${shardId} failed (${(error as Error).message}); reading it again`);
      return first;
    }
  }

  /** Where the shard starts now: a stream created anew starts its shards at other sequence numbers. */
  async function startOf(shardId: string): Promise<string | undefined> {
    const { Shards = [] } = await kinesis.send(new ListShardsCommand({ StreamName: streamName }));
    const shard = Shards.find((candidate) => candidate.ShardId === shardId);
    if (shard === undefined) throw new Error(`${shardId} is not a shard of ${streamName}`);
    return shard.SequenceNumberRange?.StartingSequenceNumber;
  }

  /**
   * Whether the record a resume names is still there. Kinesalite stamps sequence numbers to the second, so a
   * stream created anew within the second its predecessor was starts at the same sequence number; it holds
   * another record at the old position, or none, or refuses the position.
   */
  async function stillHolds(shardId: string, resume: Resume): Promise<boolean> {
    if (resume.ShardIteratorType === "TRIM_HORIZON") return true;
    try {
      const { ShardIterator } = await kinesis.send(
        new GetShardIteratorCommand({
          StreamName: streamName,
          ShardId: shardId,
          ShardIteratorType: "AT_SEQUENCE_NUMBER",
          StartingSequenceNumber: resume.StartingSequenceNumber,
        }),
      );
      const { Records = [] } = await kinesis.send(new GetRecordsCommand({ ShardIterator, Limit: 1 }));
      return Records[0]?.SequenceNumber === resume.StartingSequenceNumber;
    } catch (error) {
      if ((error as Error).name === "InvalidArgumentException") return false;
      throw error;
    }
  }

  async function pollShard(shard: Shard, streamArn: string): Promise<void> {
    const shardId = shard.ShardId as string;
    let shardStart = shard.SequenceNumberRange?.StartingSequenceNumber;
    let resume: Resume = fromStart;
    let iterator: string | undefined;
    let failed = false;
    while (!stopped) {
      try {
        if (failed) {
          // The emulator may have restarted in memory, its stream gone and created again: sequence numbers
          // of the old stream mean nothing in the new one (kinesalite takes them, and skips records), so
          // the new stream is read from its start.
          const start = await startOf(shardId);
          if (resume !== fromStart && (start !== shardStart || !(await stillHolds(shardId, resume)))) {
            log(`stream consumer: ${streamName} was created anew; reading ${shardId} from its start`);
            resume = fromStart;
          }
          shardStart = start;
          failed = false;
        }
        iterator ??= (
          await kinesis.send(
            new GetShardIteratorCommand({
              StreamName: streamName,
              ShardId: shardId,
              ...resume,
            } as GetShardIteratorCommandInput),
          )
        ).ShardIterator;
        const page = await kinesis.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: batchSize }));
        readable();
        const records = page.Records ?? [];
        const last = records.at(-1)?.SequenceNumber;
        if (records.length === 0 || last === undefined) {
          iterator = page.NextShardIterator;
          if (iterator === undefined) return; // a closed shard, read to its end
          await pause(idleMs);
          continue;
        }
        const failedFrom = await deliver(kinesisStreamEventOf(streamArn, shardId, records), shardId);
        if (failedFrom === undefined) {
          resume = { ShardIteratorType: "AFTER_SEQUENCE_NUMBER", StartingSequenceNumber: last };
          iterator = page.NextShardIterator;
          if (iterator === undefined) return;
          // A full page may have more behind it: a shard behind is read again at once, as Lambda catches up.
          if (records.length < batchSize) await pause(idleMs);
        } else {
          resume = { ShardIteratorType: "AT_SEQUENCE_NUMBER", StartingSequenceNumber: failedFrom };
          iterator = undefined;
          await pause(retryMs);
        }
      } catch (error) {
        iterator = undefined;
        failed = true;
        cannotRead(error);
        await pause(retryMs);
      }
    }
  }

  const running = (async () => {
    while (!stopped) {
      try {
        const [{ Shards = [] }, { StreamDescriptionSummary }] = await Promise.all([
          kinesis.send(new ListShardsCommand({ StreamName: streamName })),
          kinesis.send(new DescribeStreamSummaryCommand({ StreamName: streamName })),
        ]);
        readable();
        const streamArn = StreamDescriptionSummary?.StreamARN ?? streamName;
        await Promise.all(Shards.map((shard) => pollShard(shard, streamArn)));
        return;
      } catch (error) {
        cannotRead(error);
        await pause(retryMs);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      for (const wake of [...sleepers]) wake();
      await running;
    },
  };
}

/** Records of one shard as Lambda's event source mapping hands them to a function. */
export function kinesisStreamEventOf(
  streamArn: string,
  shardId: string,
  records: StreamRecord[],
): KinesisStreamEvent {
  const region = streamArn.split(":")[3] || "local";
  return {
    Records: records.map((record) => ({
      eventID: `${shardId}:${record.SequenceNumber}`,
      eventName: "aws:kinesis:record",
      eventSource: "aws:kinesis",
      eventSourceARN: streamArn,
      eventVersion: "1.0",
      invokeIdentityArn: "arn:aws:iam::000000000000:role/stream-consumer",
      awsRegion: region,
      kinesis: {
        kinesisSchemaVersion: "1.0",
        partitionKey: record.PartitionKey ?? "",
        sequenceNumber: record.SequenceNumber ?? "",
        approximateArrivalTimestamp: (record.ApproximateArrivalTimestamp?.getTime() ?? Date.now()) / 1000,
        data: Buffer.from(record.Data ?? []).toString("base64"),
      },
    })),
  };
}

type StreamConsumerModule = {
  handler(event: KinesisStreamEvent, context: Context): Promise<KinesisStreamBatchResponse>;
  shutdown(): Promise<void>;
};

/**
 * Loads the stream consumer's handler module as Lambda would, on the backends in `env`, and feeds it the
 * stream, writing to `logs`. The returned function stops reading, waits for the batch in progress, and closes
 * the consumer's connections.
 */
export async function startStreamPoller(
  env: Record<string, string>,
  log: (line: string) => void,
  logs: FunctionLog,
  options: Pick<StreamPollerOptions, "batchSize" | "idleMs" | "retryMs"> = {},
): Promise<() => Promise<void>> {
  // The module reads its configuration when first imported.
  setLocalLambdaEnvironment(logs);
  Object.assign(process.env, env);
  const consumer = (await import("../../functions/stream-consumer/handler.js")) as StreamConsumerModule;
  const kinesis = makeKinesisClient(env);
  const poller = pollStream({
    kinesis,
    streamName: env[EnvNames.streamName] as string,
    invoke: invoker(
      { name: "stream-consumer", timeoutSeconds: FunctionTimeouts.streamConsumer },
      logs,
      consumer.handler,
    ),
    log,
    ...options,
  });
  return async () => {
    await poller.stop();
    kinesis.destroy();
    await consumer.shutdown();
  };
}
