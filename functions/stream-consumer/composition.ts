import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { S3EventArchive } from "../adapters/s3/event-archive.js";
import { makeArchiveConsumer } from "../core/archive/consumer.js";
import type { EventConsumer } from "../core/events/ports.js";
import { makeDynamoDbClient, makeS3Client } from "../shared/aws-clients.js";
import type { StreamConsumerConfig } from "../shared/config.js";
import { composeHistoryConsumer, type HistoryConsumerConfig } from "../shared/history-consumer.js";

/** Wires every reader of the event stream to its backends; called once per container. */
export function composeStreamConsumers(config: StreamConsumerConfig, history: HistoryConsumerConfig) {
  const s3 = makeS3Client();
  const documents = DynamoDBDocumentClient.from(makeDynamoDbClient(), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const consumers: EventConsumer[] = [
    makeArchiveConsumer(new S3EventArchive(s3, config.archiveBucket)),
    composeHistoryConsumer(history, documents),
  ];
  return {
    consumers,
    close: async () => {
      s3.destroy();
      documents.destroy();
    },
  };
}
