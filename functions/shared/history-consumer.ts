import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoAgentEventLog, DynamoFleetHistory } from "../adapters/dynamodb/history.js";
import type { EventConsumer } from "../core/events/ports.js";
import { makeHistoryConsumer } from "../core/history/consumer.js";
import { DEFAULT_HISTORY_RETENTION_DAYS } from "../core/history/model.js";
import { makeDynamoDbClient } from "./aws-clients.js";
import { numberEnv, requireEnv } from "./config.js";
import { EnvNames } from "./env-names.js";

export interface HistoryConsumerConfig {
  tableName: string;
  /** How long a minute of fleet history and an agent's kept event live (DynamoDB TTL). */
  retentionDays: number;
}

/** Read once per container, as the other functions' configurations are. */
export function historyConsumerConfig(
  env: Record<string, string | undefined> = process.env,
): HistoryConsumerConfig {
  return {
    tableName: requireEnv(env, EnvNames.tableName),
    retentionDays: numberEnv(env, EnvNames.historyRetentionDays, DEFAULT_HISTORY_RETENTION_DAYS),
  };
}

/** The stream consumer's fleet history and agent event logs, on the Beacon table; built once per container. */
export function composeHistoryConsumer(
  config: HistoryConsumerConfig,
  documents = DynamoDBDocumentClient.from(makeDynamoDbClient(), {
    marshallOptions: { removeUndefinedValues: true },
  }),
): EventConsumer {
  return makeHistoryConsumer({
    history: new DynamoFleetHistory(documents, config.tableName, config),
    agentEvents: new DynamoAgentEventLog(documents, config.tableName, config),
  });
}
