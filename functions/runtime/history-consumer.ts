import type { DocumentClient } from "../adapters/dynamodb/direct-calls.js";
import { DynamoAgentEventLog, DynamoFleetHistory } from "../adapters/dynamodb/history.js";
import type { EventConsumer } from "../core/events/ports.js";
import { makeHistoryConsumer } from "../core/history/consumer.js";
import type { HistoryConsumerConfig } from "../shared/config.js";

/** The stream consumer's fleet history and agent event logs, on the Beacon table; built once per container. */
export function composeHistoryConsumer(
  config: HistoryConsumerConfig,
  documents: DocumentClient,
): EventConsumer {
  return makeHistoryConsumer({
    history: new DynamoFleetHistory(documents, config.tableName, config),
    agentEvents: new DynamoAgentEventLog(documents, config.tableName, config),
  });
}
