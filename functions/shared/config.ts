import { AgentAnswerBudget } from "../core/agent-requests/answer-budget.js";
import { ERROR_BULLETIN_WINDOW_MS } from "../core/agents/attention.js";
import { ASSET_UPLOAD_TTL_SECONDS } from "../core/assets/model.js";
import { DEFAULT_AUDIT_RETENTION_DAYS } from "../core/audit/model.js";
import { DEFAULT_DEBUG_BUNDLE_DAYS } from "../core/bundles/model.js";
import type { EventBufferBounds } from "../core/events/ports.js";
import type { GroupCountingSettings } from "../core/groups/counting.js";
import { DEFAULT_HISTORY_RETENTION_DAYS } from "../core/history/model.js";
import { type StatementPricing, statementPricing } from "../core/history/statement.js";
import { type CaBindings, readCaBindings } from "../core/identity/ca-bindings.js";
import { DEFAULT_OPERATION_RESULT_DAYS } from "../core/operations/results.js";
import type { UrlPolicy } from "../core/webhooks/address-policy.js";
import { DEFAULT_DELIVERY_RETENTION_DAYS } from "../core/webhooks/policy.js";
import { AwsEndpointEnvNames, EnvNames } from "./env-names.js";
import { FunctionTimeouts, SWEEPER_INTERVAL_SECONDS } from "./function-timeouts.js";

/** Where a function keeps agents' state and says what happened: the table, the events stream and the cache. */
export interface StoreSettings {
  tableName: string;
  /** Events go on it; they are held in the cache while it is down. */
  streamName: string;
  redisUrl: string;
  /** A cache answer later than this is no answer. */
  cacheTimeoutMs: number;
}

export interface AgentApiConfig extends StoreSettings {
  /** DynamoDB's share of an agent request's answer budget (AgentAnswerBudget). */
  storageShareMs: number;
  maxInflatedBytes: number;
  maxJsonDepth: number;
  checkpointIntervalMs: number;
  describeRetryMs: number;
  maxOperationsPerReply: number;
  operationAckTimeoutMs: number;
  /** Where agents reach the agent API, for the download URLs catch-up operations carry. */
  agentApiUrl: string;
  catchUpRetryMs: number;
  /** How long an ERROR bulletin holds its agent in need of attention. */
  errorBulletinWindowMs: number;
  /** Which tenants each trusted CA may speak for, now; undefined when every trusted CA is Beacon's own. */
  caBindings: CurrentCaBindings;
  /** Where assets' bytes are, for their downloads, and the answers DESCRIBE acks bring, under their prefix. */
  assetBucket: string;
  /** How long the console serves the answer a DESCRIBE brought; the bucket's lifecycle deletes it after. */
  operationResultRetentionMs: number;
  /** How long the console serves a debug bundle the agent-api function took (HTTP API ingress). */
  debugBundleRetentionMs: number;
  /** Most events the cache holds for the stream while the stream does not take them, and most of one tenant's. */
  eventBuffer: EventBufferBounds;
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
/**
 * About 0.9 KB an event: 200,000 are ~180 MB of the cache, two minutes of 100,000 agents' heartbeats at 60 s
 * (deployments with a larger cache set more). One tenant holds a tenth of it at most, so that a tenant's flood
 * leaves room for the others; what a bound refuses goes to the outbox.
 */
const eventBufferBounds = (env: Environment): EventBufferBounds => {
  const maxEvents = numberEnv(env, EnvNames.eventBufferMaxEvents, 200_000);
  return {
    maxEvents,
    maxEventsPerTenant: numberEnv(env, EnvNames.eventBufferMaxEventsPerTenant, Math.ceil(maxEvents / 10)),
  };
};

export function agentApiConfig(env: Environment = process.env): AgentApiConfig {
  return {
    ...storeSettings(env, AgentAnswerBudget.cacheCallMs),
    storageShareMs: numberEnv(
      env,
      EnvNames.agentStorageShareMs,
      env[AwsEndpointEnvNames.dynamodb] ? AgentAnswerBudget.emulatedStorageMs : AgentAnswerBudget.storageMs,
    ),
    maxInflatedBytes: numberEnv(env, EnvNames.maxInflatedBytes, 16 * 1024 * 1024),
    maxJsonDepth: 64,
    checkpointIntervalMs: checkpointIntervalMs(env),
    describeRetryMs: numberEnv(env, EnvNames.describeRetrySeconds, 300) * 1_000,
    maxOperationsPerReply: numberEnv(env, EnvNames.maxOperationsPerReply, 5),
    operationAckTimeoutMs: operationAckTimeoutMs(env),
    agentApiUrl: absoluteHttpsUrl(env, EnvNames.agentApiUrl),
    // Long enough for an agent to fetch and apply a flow; an agent that failed it is sent it again after.
    catchUpRetryMs: numberEnv(env, EnvNames.catchUpRetrySeconds, 1800) * 1_000,
    errorBulletinWindowMs:
      numberEnv(env, EnvNames.errorBulletinWindowSeconds, ERROR_BULLETIN_WINDOW_MS / 1_000) * 1_000,
    caBindings: caBindingsOf(env),
    assetBucket: requireEnv(env, EnvNames.assetBucket),
    operationResultRetentionMs:
      numberEnv(env, EnvNames.operationResultDays, DEFAULT_OPERATION_RESULT_DAYS) * 24 * 3_600_000,
    debugBundleRetentionMs: debugBundleRetentionMs(env),
    eventBuffer: eventBufferBounds(env),
  };
}

/** Days the console serves a debug bundle, 1 unless set; the bucket's lifecycle deletes it after as many. */
const debugBundleRetentionMs = (env: Environment): number =>
  numberEnv(env, EnvNames.debugBundleDays, DEFAULT_DEBUG_BUNDLE_DAYS) * 24 * 3_600_000;

export type CurrentCaBindings = () => CaBindings | undefined;

/**
 * The CAs' bindings as core/identity/ca-bindings.ts spells them, as the CDK app writes them from the
 * truststore's CAs and the local stack from its certs folder. Read at the cold start, and again whenever the
 * value changes: on AWS it never does (a deployment starts new containers), while the local stack changes it
 * as its certs folder changes, together with its gateway's trust store.
 */
function caBindingsOf(env: Environment): CurrentCaBindings {
  let read: { value: string | undefined; bindings: CaBindings | undefined } | undefined;
  const current = () => {
    const value = env[EnvNames.agentCaBindings] || undefined;
    if (read?.value !== value)
      read = { value, bindings: value === undefined ? undefined : parsedCaBindings(value) };
    return read?.bindings;
  };
  current();
  return current;
}

function parsedCaBindings(value: string): CaBindings {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  const bindings = readCaBindings(parsed);
  if (bindings === undefined)
    throw new Error(
      `Environment variable ${EnvNames.agentCaBindings} must map CA subject names to "*" or lists of tenants' bindings`,
    );
  return bindings;
}

/** SHA-256 fingerprints as Node prints them: 32 upper-case hex bytes joined by colons. */
const FINGERPRINT_PATTERN = /^[0-9A-F]{2}(?::[0-9A-F]{2}){31}$/;

/** The fingerprints of Beacon's CAs the ingress trusts, where the deployment tells them; undefined unset. */
function trustedCaFingerprintsOf(env: Environment): ReadonlySet<string> | undefined {
  const value = env[EnvNames.trustedCaFingerprints] || undefined;
  if (value === undefined) return undefined;
  const fingerprints = value.split(",").map((fingerprint) => fingerprint.trim().toUpperCase());
  if (!fingerprints.every((fingerprint) => FINGERPRINT_PATTERN.test(fingerprint)))
    throw new Error(
      `Environment variable ${EnvNames.trustedCaFingerprints} must list SHA-256 fingerprints (AB:CD:…), comma-separated`,
    );
  return new Set(fingerprints);
}

/** How long a delivered operation may go unacknowledged: 5 minutes unless set. */
const operationAckTimeoutMs = (env: Environment): number =>
  numberEnv(env, EnvNames.operationAckTimeoutSeconds, 300) * 1_000;

/**
 * StoreSettings from the environment. A cache command may take 150 ms unless set in the console, the sweeper and
 * the bundle intake; the agent API's default is its answer budget's share instead.
 */
function storeSettings(env: Environment, defaultCacheTimeoutMs = 150): StoreSettings {
  return {
    tableName: requireEnv(env, EnvNames.tableName),
    streamName: requireEnv(env, EnvNames.streamName),
    redisUrl: requireEnv(env, EnvNames.redisUrl),
    cacheTimeoutMs: numberEnv(env, EnvNames.cacheTimeoutMs, defaultCacheTimeoutMs),
  };
}

/** Days before its notAfter a certificate counts as expiring: 30 unless set. */
const certificateExpiryWarningDays = (env: Environment): number =>
  Math.ceil(numberEnv(env, EnvNames.certExpiryWarningDays, 30));

/** Operations' state changes go on the agent API's stream too. */
export interface ConsoleApiConfig extends StoreSettings {
  operationAckTimeoutMs: number;
  /** The agent API's checkpoint interval: how stale the registry's last-seen times may be. */
  checkpointIntervalMs: number;
  /**
   * The agent CA: a secret on AWS, with the fingerprints of Beacon's CAs the ingress trusts where the deployment
   * tells them; the local stack's folder, which holds both.
   */
  agentCa: { secretArn: string; trustedFingerprints?: ReadonlySet<string> } | { directory: string };
  /** Where agents reach the agent API, for the download URLs operations carry. */
  agentApiUrl: string;
  /** Where agents reach the bundle intake, for TRANSFER DEBUG's upload targets. */
  debugBundleTargetBase: string;
  maxBodyBytes: number;
  maxJsonDepth: number;
  /** Largest flow document an upload may carry, inflated. */
  maxFlowBytes: number;
  certificateExpiryWarningDays: number;
  /** Where assets' bytes go. */
  assetBucket: string;
  /** How long an upload's part URLs are signed for at most: an hour unless set. */
  assetUploadLinkSeconds: number;
  /** Days an audit record is kept, by the table's time to live. */
  auditRetentionDays: number;
  /** Which hosts subscriptions may name besides the public internet. */
  webhookUrlPolicy: UrlPolicy;
  /** The function that posts a subscription's test for the console: the webhook dispatcher. */
  webhookTesterFunction: string;
  /** Most events the cache holds for the stream while the stream does not take them, and most of one tenant's. */
  eventBuffer: EventBufferBounds;
  /** How long a request by selector queues operations before a selection job takes the rest over. */
  selectionBudgetMs: number;
  /** How often the sweeper runs, which paces rollouts. */
  sweeperIntervalSeconds: number;
  /** The unit prices usage statements bill with: the capacity model's, perhaps overridden. */
  usagePricing: StatementPricing;
}

/**
 * Largest flow document Beacon keeps as a version, inflated, uploaded or adopted. A real flow is tens of KB; the
 * cap keeps a raw upload inside Lambda's 6 MB request payload.
 */
const MAX_FLOW_BYTES = 5 * 1024 * 1024;

function absoluteHttpsUrl(env: Environment, name: string): string {
  const value = requireEnv(env, name);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`Environment variable ${name} must be an absolute URL`);
  }
  // Agents are sent to URLs below it: Java's legacy configuration accepts only absolute ones.
  if (url.protocol !== "https:" || url.search || url.hash)
    throw new Error(`Environment variable ${name} must be an https URL without query or fragment`);
  return value.replace(/\/+$/, "");
}

const checkpointIntervalMs = (env: Environment): number =>
  numberEnv(env, EnvNames.checkpointMinutes, 10) * 60_000;

/** Where agents reach the bundle intake: the agent API unless it is hosted apart. */
const debugBundleTargetBase = (env: Environment): string =>
  env[EnvNames.debugBundleTargetBase]
    ? absoluteHttpsUrl(env, EnvNames.debugBundleTargetBase)
    : absoluteHttpsUrl(env, EnvNames.agentApiUrl);

export function consoleApiConfig(env: Environment = process.env): ConsoleApiConfig {
  const secretArn = env[EnvNames.agentCaSecretArn];
  const directory = env[EnvNames.agentCaDir];
  if (!secretArn && !directory) {
    throw new Error(
      `Environment variable ${EnvNames.agentCaSecretArn} or ${EnvNames.agentCaDir} must be set`,
    );
  }
  return {
    ...storeSettings(env),
    operationAckTimeoutMs: operationAckTimeoutMs(env),
    checkpointIntervalMs: checkpointIntervalMs(env),
    agentCa: secretArn
      ? { secretArn, trustedFingerprints: trustedCaFingerprintsOf(env) }
      : { directory: directory as string },
    agentApiUrl: absoluteHttpsUrl(env, EnvNames.agentApiUrl),
    debugBundleTargetBase: debugBundleTargetBase(env),
    // Console JSON bodies are a class's settings or a certificate request: a few hundred bytes.
    maxBodyBytes: 64 * 1024,
    maxJsonDepth: 16,
    maxFlowBytes: MAX_FLOW_BYTES,
    certificateExpiryWarningDays: certificateExpiryWarningDays(env),
    assetBucket: requireEnv(env, EnvNames.assetBucket),
    assetUploadLinkSeconds: Math.ceil(
      numberEnv(env, EnvNames.assetUploadLinkSeconds, ASSET_UPLOAD_TTL_SECONDS),
    ),
    auditRetentionDays: numberEnv(env, EnvNames.auditRetentionDays, DEFAULT_AUDIT_RETENTION_DAYS),
    webhookUrlPolicy: webhookConfig(env).policy,
    webhookTesterFunction: requireEnv(env, EnvNames.webhookTesterFunction),
    eventBuffer: eventBufferBounds(env),
    // Half of API Gateway's 29 s: the step under way when it runs out, and the answer, fit in the rest.
    selectionBudgetMs: numberEnv(env, EnvNames.selectionBudgetSeconds, 15) * 1_000,
    sweeperIntervalSeconds: numberEnv(env, EnvNames.sweeperIntervalSeconds, SWEEPER_INTERVAL_SECONDS),
    usagePricing: statementPricing(
      env[EnvNames.usagePricedOption] || undefined,
      JSON.parse(env[EnvNames.usageUnitPrices] || "{}"),
    ),
  };
}

/** The streaming intake of debug bundles (functions/bundle-intake), wherever it is hosted. */
/** A stored bundle's upload event goes on the stream, held in the cache when the stream is down. */
export interface BundleIntakeConfig extends StoreSettings {
  /** Where the bundles' bytes go, under their prefix. */
  assetBucket: string;
  /** Which tenants each trusted CA may speak for, now; undefined when every trusted CA is Beacon's own. */
  caBindings: CurrentCaBindings;
  /** How long the console serves a bundle; the bucket's lifecycle deletes it after. */
  retentionMs: number;
  eventBuffer: EventBufferBounds;
}

export function bundleIntakeConfig(env: Environment = process.env): BundleIntakeConfig {
  return {
    ...storeSettings(env),
    assetBucket: requireEnv(env, EnvNames.assetBucket),
    caBindings: caBindingsOf(env),
    retentionMs: debugBundleRetentionMs(env),
    eventBuffer: eventBufferBounds(env),
  };
}

/**
 * Timeouts and the cancellations they cause go on the agents' stream; rollouts read their agents' health from
 * the cache and mark the agents a batch queues for.
 */
export interface SweeperConfig extends StoreSettings {
  operationAckTimeoutMs: number;
  queuedTimeoutHeartbeats: number;
  maxOperationsPerRun: number;
  /** Where agents reach the agent API, for the download URLs rollout operations carry. */
  agentApiUrl: string;
  /** Where agents reach the bundle intake, for the TRANSFER DEBUG a selection job queues. */
  debugBundleTargetBase: string;
  /** The agent API's checkpoint interval: how stale the registry's last-seen times a selection or a group's count reads may be. */
  checkpointIntervalMs: number;
  /** Most steps (of a thousand agents) of selection jobs one run takes. */
  maxSelectionStepsPerRun: number;
  /** Where the debug bundles adoptions read their flow out of are kept. */
  assetBucket: string;
  /** Largest flow document an adoption keeps, inflated: as for an upload. */
  maxFlowBytes: number;
  certificateExpiryWarningDays: number;
  /**
   * The dev CA's folder where the deployment keeps one (`npm start`): the CAs its agent gateway trusts, so that
   * a retired one's certificates are not announced as expiring.
   */
  agentCaDir?: string;
  /** The same on AWS: the fingerprints of Beacon's CAs in the CDK app's CA bundle. */
  trustedCaFingerprints?: ReadonlySet<string>;
  /** Most certificates one run announces as expiring. */
  maxExpiryNoticesPerRun: number;
  /** Most agents one script call marks offline in one tenant, and one run announces in all. */
  maxOfflinePerLook: number;
  maxOfflinePerRun: number;
  /** Groups' counting passes: how long after a tenant's pass ended the next starts, and a run's registry reads. */
  groupCounting: GroupCountingSettings;
  /** The relay leaves staged events younger than this to the functions still putting them on the stream. */
  outboxGraceMs: number;
  maxRelayedPerRun: number;
  /** Most events the cache holds for the stream while the stream does not take them, and most of one tenant's. */
  eventBuffer: EventBufferBounds;
  /** The event archive, which shows the relays what the stream carried already. */
  archiveBucket: string;
  /**
   * A held event whose put's outcome was unknown waits this long after it was recorded before the relay puts
   * it again: longer than that put could stay under way (the Kinesis client's timeout) and than the stream
   * consumer takes to archive what it carried (its batching window, a minute), so that the archive shows it.
   */
  unknownPutSettleMs: number;
  /** Whether each run writes every tenant's fleet series to CloudWatch (Embedded Metric Format log lines). */
  fleetMetricsToCloudWatch: boolean;
}

export function sweeperConfig(env: Environment = process.env): SweeperConfig {
  return {
    ...storeSettings(env),
    operationAckTimeoutMs: operationAckTimeoutMs(env),
    queuedTimeoutHeartbeats: numberEnv(env, EnvNames.queuedTimeoutHeartbeats, 10),
    // A few seconds of work a run; a backlog drains over the next minutes.
    maxOperationsPerRun: numberEnv(env, EnvNames.sweeperMaxOperations, 500),
    agentApiUrl: absoluteHttpsUrl(env, EnvNames.agentApiUrl),
    debugBundleTargetBase: debugBundleTargetBase(env),
    checkpointIntervalMs: checkpointIntervalMs(env),
    // 20,000 agents a run, each step a few seconds; a larger selection goes on over the next runs.
    maxSelectionStepsPerRun: 20,
    assetBucket: requireEnv(env, EnvNames.assetBucket),
    maxFlowBytes: MAX_FLOW_BYTES,
    certificateExpiryWarningDays: certificateExpiryWarningDays(env),
    agentCaDir: env[EnvNames.agentCaDir] || undefined,
    trustedCaFingerprints: trustedCaFingerprintsOf(env),
    // A few seconds of conditional writes; a backlog (a fleet issued on one day) drains over the next runs.
    maxExpiryNoticesPerRun: 500,
    // A script call of 1,000 marks holds the tenant's shard for about a millisecond; 20,000 events are 40
    // stream puts. 100,000 agents that went silent at once are announced within five runs.
    maxOfflinePerLook: 1_000,
    maxOfflinePerRun: 20_000,
    groupCounting: {
      intervalMs: numberEnv(env, EnvNames.groupCountMinutes, 5) * 60_000,
      // A read returns up to 1 MB of profiles, a few hundred agents; 100 of them take a few seconds on AWS
      // and count tens of thousands of agents, so a pass of 100,000 ends within a few runs.
      agentsPerRead: 1_000,
      maxReadsPerRun: 100,
    },
    // Every function that stages events has ended (or died) by then: its timeout, and a minute to spare.
    outboxGraceMs:
      Math.max(FunctionTimeouts.agentApi, FunctionTimeouts.consoleApi, FunctionTimeouts.sweeper) * 1000 +
      60_000,
    // Ten PutRecords calls; a stream outage's backlog drains over the next runs.
    maxRelayedPerRun: 5_000,
    eventBuffer: eventBufferBounds(env),
    archiveBucket: requireEnv(env, EnvNames.archiveBucket),
    unknownPutSettleMs: 120_000,
    fleetMetricsToCloudWatch: env[EnvNames.fleetMetricsToCloudWatch] === "1",
  };
}

export interface StreamConsumerConfig {
  /** Where the archive consumer writes every event. */
  archiveBucket: string;
  /** The EventBridge bus every notification goes on; none when absent. */
  notificationBusName?: string;
}

export function streamConsumerConfig(env: Environment = process.env): StreamConsumerConfig {
  return {
    archiveBucket: requireEnv(env, EnvNames.archiveBucket),
    notificationBusName: env[EnvNames.notificationBusName] || undefined,
  };
}

export interface HistoryConsumerConfig {
  tableName: string;
  /** How long a minute of fleet history and an agent's kept event live (DynamoDB TTL). */
  retentionDays: number;
}

/** The stream consumer's fleet history and agent event logs. */
export function historyConsumerConfig(env: Environment = process.env): HistoryConsumerConfig {
  return {
    tableName: requireEnv(env, EnvNames.tableName),
    retentionDays: numberEnv(env, EnvNames.historyRetentionDays, DEFAULT_HISTORY_RETENTION_DAYS),
  };
}

/** How Beacon reaches the endpoints of event subscriptions (stream consumer, dispatcher). */
export interface WebhookConfig {
  policy: UrlPolicy;
  caFile?: string;
  /** A receiver that has not answered in this time counts as failed; the attempt is retried later. */
  timeoutMs: number;
}

export function webhookConfig(env: Environment = process.env): WebhookConfig {
  const allowedHosts = (env[EnvNames.webhookAllowedHosts] ?? "")
    .split(",")
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== "");
  return { policy: { allowedHosts }, caFile: env[EnvNames.webhookCaFile] || undefined, timeoutMs: 10_000 };
}

/** Where deliveries are queued and how they go out (stream consumer's first attempts, webhook dispatcher). */
export interface WebhookDeliveryConfig extends WebhookConfig {
  tableName: string;
  /** Where webhook.disabled goes. */
  streamName: string;
  /** How long a delivery stays in its subscription's log (DynamoDB TTL). */
  retentionDays: number;
}

export function webhookDeliveryConfig(env: Environment = process.env): WebhookDeliveryConfig {
  return {
    ...webhookConfig(env),
    tableName: requireEnv(env, EnvNames.tableName),
    streamName: requireEnv(env, EnvNames.streamName),
    retentionDays: numberEnv(env, EnvNames.webhookDeliveryRetentionDays, DEFAULT_DELIVERY_RETENTION_DAYS),
  };
}
