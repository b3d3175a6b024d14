import { historyConsumerConfig, streamConsumerConfig, webhookDeliveryConfig } from "../shared/config.js";
import { functionLogger } from "../shared/observability.js";
import { makeStreamHandler } from "./batch.js";
import { composeStreamConsumers } from "./composition.js";

const composed = composeStreamConsumers(
  streamConsumerConfig(),
  historyConsumerConfig(),
  webhookDeliveryConfig(),
);

/**
 * Reads the event stream: Lambda's event source mapping on AWS, the local stack's poller of the Kinesis
 * emulator locally, each invoking it with one shard's batch and resuming where its partial batch response says.
 */
export const handler = makeStreamHandler(composed.consumers, composed.kept, functionLogger());

/** Closes the container's connections; the local stack calls it on shutdown, Lambda never needs to. */
export const shutdown = (): Promise<void> => composed.close();
