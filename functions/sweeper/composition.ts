import { randomUUID } from "node:crypto";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoAgentRegistry } from "../adapters/dynamodb/agent-registry.js";
import { DynamoClassCatalog } from "../adapters/dynamodb/class-catalog.js";
import { DynamoOperationStore } from "../adapters/dynamodb/operation-store.js";
import { KinesisEventSink } from "../adapters/kinesis/event-sink.js";
import { makeOperationLifecycle } from "../core/operations/lifecycle.js";
import { makeSweepTimeouts } from "../core/operations/timeouts.js";
import type { Clock } from "../core/ports.js";
import { makeDynamoDbClient, makeKinesisClient } from "../shared/aws-clients.js";
import type { SweeperConfig } from "../shared/config.js";

/**
 * Wires the sweeper's use case to DynamoDB and Kinesis; called once per container. It needs no cache.
 * Tests pass a clock of their own to look at the operations as they will be later.
 */
export function composeSweeper(config: SweeperConfig, clock: Clock = { now: () => Date.now() }) {
  const documents = DynamoDBDocumentClient.from(makeDynamoDbClient(), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const operations = new DynamoOperationStore(documents, config.tableName);
  const sweepTimeouts = makeSweepTimeouts({
    operations,
    lifecycle: makeOperationLifecycle({
      operations,
      clock,
      ids: { newId: () => randomUUID() },
      settings: { ackTimeoutMs: config.operationAckTimeoutMs },
    }),
    agents: new DynamoAgentRegistry(documents, config.tableName),
    classes: new DynamoClassCatalog(documents, config.tableName),
    events: new KinesisEventSink(makeKinesisClient(), config.streamName),
    clock,
    settings: {
      queuedTimeoutHeartbeats: config.queuedTimeoutHeartbeats,
      maxOperationsPerRun: config.maxOperationsPerRun,
    },
  });
  return {
    sweepTimeouts,
    close: async () => {
      documents.destroy();
    },
  };
}
