import { S3EventArchive } from "../adapters/s3/event-archive.js";
import { makeArchiveConsumer } from "../core/archive/consumer.js";
import type { EventConsumer } from "../core/events/ports.js";
import { makeS3Client } from "../shared/aws-clients.js";
import type { StreamConsumerConfig } from "../shared/config.js";

/** Wires every reader of the event stream to its backends; called once per container. */
export function composeStreamConsumers(config: StreamConsumerConfig) {
  const s3 = makeS3Client();
  const consumers: EventConsumer[] = [makeArchiveConsumer(new S3EventArchive(s3, config.archiveBucket))];
  return {
    consumers,
    close: async () => {
      s3.destroy();
    },
  };
}
