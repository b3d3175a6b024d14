import { EnvNames } from "./env-names.js";

export interface AgentApiConfig {
  tableName: string;
  streamName: string;
  redisUrl: string;
  cacheTimeoutMs: number;
  maxInflatedBytes: number;
  maxJsonDepth: number;
  checkpointIntervalMs: number;
  describeRetryMs: number;
  maxOperationsPerReply: number;
  operationAckTimeoutMs: number;
}

type Environment = Record<string, string | undefined>;

export function requireEnv(env: Environment, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`Environment variable ${name} must be set`);
  return value;
}

export function numberEnv(env: Environment, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new Error(`Environment variable ${name} must be a positive number`);
  return parsed;
}

/** Read once per container; a missing or malformed variable fails the cold start, not a request. */
export function agentApiConfig(env: Environment = process.env): AgentApiConfig {
  return {
    tableName: requireEnv(env, EnvNames.tableName),
    streamName: requireEnv(env, EnvNames.streamName),
    redisUrl: requireEnv(env, EnvNames.redisUrl),
    cacheTimeoutMs: numberEnv(env, EnvNames.cacheTimeoutMs, 150),
    maxInflatedBytes: numberEnv(env, EnvNames.maxInflatedBytes, 16 * 1024 * 1024),
    maxJsonDepth: 64,
    checkpointIntervalMs: numberEnv(env, EnvNames.checkpointMinutes, 10) * 60_000,
    describeRetryMs: numberEnv(env, EnvNames.describeRetrySeconds, 300) * 1_000,
    maxOperationsPerReply: numberEnv(env, EnvNames.maxOperationsPerReply, 5),
    operationAckTimeoutMs: operationAckTimeoutMs(env),
  };
}

/** How long a delivered operation may go unacknowledged: 5 minutes unless set. */
const operationAckTimeoutMs = (env: Environment): number =>
  numberEnv(env, EnvNames.operationAckTimeoutSeconds, 300) * 1_000;

export interface ConsoleApiConfig {
  tableName: string;
  /** Operations' state changes go on the agent API's stream too. */
  streamName: string;
  operationAckTimeoutMs: number;
  redisUrl: string;
  cacheTimeoutMs: number;
  /** The agent API's checkpoint interval: how stale the registry's last-seen times may be. */
  checkpointIntervalMs: number;
  agentCa: { secretArn: string } | { directory: string };
  maxBodyBytes: number;
  maxJsonDepth: number;
}

export function consoleApiConfig(env: Environment = process.env): ConsoleApiConfig {
  const secretArn = env[EnvNames.agentCaSecretArn];
  const directory = env[EnvNames.agentCaDir];
  if (!secretArn && !directory) {
    throw new Error(
      `Environment variable ${EnvNames.agentCaSecretArn} or ${EnvNames.agentCaDir} must be set`,
    );
  }
  return {
    tableName: requireEnv(env, EnvNames.tableName),
    streamName: requireEnv(env, EnvNames.streamName),
    operationAckTimeoutMs: operationAckTimeoutMs(env),
    redisUrl: requireEnv(env, EnvNames.redisUrl),
    cacheTimeoutMs: numberEnv(env, EnvNames.cacheTimeoutMs, 150),
    checkpointIntervalMs: numberEnv(env, EnvNames.checkpointMinutes, 10) * 60_000,
    agentCa: secretArn ? { secretArn } : { directory: directory as string },
    // Console bodies are a class's settings or a certificate request: a few hundred bytes.
    maxBodyBytes: 64 * 1024,
    maxJsonDepth: 16,
  };
}
