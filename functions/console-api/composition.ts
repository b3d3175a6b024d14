import { DynamoAdoptionStore } from "../adapters/dynamodb/adoption-store.js";
import { DynamoAssetCatalog } from "../adapters/dynamodb/asset-catalog.js";
import { DynamoAuditLog } from "../adapters/dynamodb/audit-log.js";
import { DynamoCertificateStore } from "../adapters/dynamodb/certificate-store.js";
import { DynamoClassCatalog } from "../adapters/dynamodb/class-catalog.js";
import { DynamoDebugBundles } from "../adapters/dynamodb/debug-bundles.js";
import { DynamoDeliveryQueue } from "../adapters/dynamodb/delivery-queue.js";
import type { DocumentClient } from "../adapters/dynamodb/direct-calls.js";
import { DynamoFleetRegistry } from "../adapters/dynamodb/fleet-registry.js";
import { DynamoFlowCatalog } from "../adapters/dynamodb/flow-catalog.js";
import { DynamoGroupStore } from "../adapters/dynamodb/group-store.js";
import { DynamoAgentEventLog, DynamoFleetHistory } from "../adapters/dynamodb/history.js";
import { DynamoManifestCatalog } from "../adapters/dynamodb/manifest-catalog.js";
import { DynamoOperationStore } from "../adapters/dynamodb/operation-store.js";
import { DynamoResourceSetStore } from "../adapters/dynamodb/resource-sets.js";
import { DynamoRolloutStore } from "../adapters/dynamodb/rollout-store.js";
import { DynamoSelectionJobStore } from "../adapters/dynamodb/selection-job-store.js";
import { DynamoStagingParameterStore } from "../adapters/dynamodb/staged-parameter-store.js";
import { DynamoSubscriptionStore } from "../adapters/dynamodb/subscription-store.js";
import { DynamoTenantSettings } from "../adapters/dynamodb/tenant-settings.js";
import { DynamoUsage } from "../adapters/dynamodb/usage.js";
import { RedisFleetHotState } from "../adapters/redis/fleet-hot-state.js";
import { longestCheckpointIntervalMs } from "../core/agents/checkpoint-interval.js";
import { makeConsoleUseCases } from "../core/console/use-cases.js";
import { makeTenantNotes } from "../core/history/stored.js";
import type { CertificateAuthority } from "../core/identity/ports.js";
import { loadedOnce } from "../core/loaded-once.js";
import { makeOperationLifecycle } from "../core/operations/lifecycle.js";
import type { WebhookTester } from "../core/webhooks/ports.js";
import { documentsForDirectCalls } from "../runtime/aws-clients/direct.js";
import { environmentNow } from "../runtime/aws-clients/environment.js";
import { composeEventStream } from "../runtime/event-stream.js";
import { loadedOnFirstCall } from "../runtime/on-first-call.js";
import { makeCacheClient } from "../runtime/redis-client.js";
import { s3AdaptersOnFirstCall } from "../runtime/s3-adapters.js";
import { randomIds, randomSource, systemClock } from "../runtime/system.js";
import type { ConsoleApiConfig } from "../shared/config.js";
import { WebhookTestTimeouts } from "../shared/webhooks.js";
import { consoleRoutes } from "./routes.js";

/**
 * Wires the console's use cases to DynamoDB, Redis, S3 and the agent CA; called once per container. A bench
 * passes the table's client of its own, which counts the requests.
 */
export function composeConsoleApi(
  config: ConsoleApiConfig,
  documents: DocumentClient = documentsForDirectCalls(),
) {
  const redis = makeCacheClient({ url: config.redisUrl, commandTimeoutMs: config.cacheTimeoutMs });
  const env = environmentNow();
  // The CA's adapter, with the Secrets Manager SDK, is loaded by the first request that needs the CA.
  const authority = loadedOnFirstCall<CertificateAuthority>(async () => {
    const { LocalFileCertificateAuthority, SecretsManagerCertificateAuthority } = await import(
      "../adapters/x509/certificate-authority.js"
    );
    if (!("secretArn" in config.agentCa)) return new LocalFileCertificateAuthority(config.agentCa.directory);
    const { makeSecretsManagerClient } = await import("../runtime/aws-clients/secrets-manager.js");
    return new SecretsManagerCertificateAuthority(
      makeSecretsManagerClient(env),
      config.agentCa.secretArn,
      Date.now,
      config.agentCa.trustedFingerprints,
    );
  });
  const clock = systemClock;
  const ids = randomIds;
  const operations = new DynamoOperationStore(documents, config.tableName);
  const s3 = s3AdaptersOnFirstCall(config.assetBucket);
  const audit = new DynamoAuditLog(documents, config.tableName, { retentionDays: config.auditRetentionDays });
  const usage = new DynamoUsage(documents, config.tableName);
  // No receiver is reachable from the console's network on AWS: the dispatcher posts tests for it.
  const lambda = loadedOnce(async () =>
    (await import("../runtime/aws-clients/lambda.js")).makeLambdaClient(
      WebhookTestTimeouts.invocationMs,
      env,
    ),
  );
  const api = makeConsoleUseCases({
    catalog: new DynamoClassCatalog(documents, config.tableName),
    tenantSettings: new DynamoTenantSettings(documents, config.tableName),
    groups: new DynamoGroupStore(documents, config.tableName),
    registry: new DynamoFleetRegistry(documents, config.tableName),
    hotState: new RedisFleetHotState(redis),
    manifests: new DynamoManifestCatalog(documents, config.tableName),
    flows: new DynamoFlowCatalog(documents, config.tableName),
    assets: new DynamoAssetCatalog(documents, config.tableName),
    assetContent: s3.assetContent,
    operationResults: s3.operationResults,
    debugBundles: new DynamoDebugBundles(documents, config.tableName),
    debugBundleContent: s3.debugBundleContent,
    resourceSets: new DynamoResourceSetStore(documents, config.tableName),
    certificates: new DynamoCertificateStore(documents, config.tableName),
    authority,
    operations,
    lifecycle: makeOperationLifecycle({
      operations,
      clock,
      ids,
      settings: { ackTimeoutMs: config.operationAckTimeoutMs },
    }),
    rollouts: new DynamoRolloutStore(documents, config.tableName),
    adoptions: new DynamoAdoptionStore(documents, config.tableName),
    parameters: new DynamoStagingParameterStore(documents, config.tableName),
    events: composeEventStream(documents, redis, config).events,
    history: new DynamoFleetHistory(documents, config.tableName),
    usage,
    agentEvents: new DynamoAgentEventLog(documents, config.tableName),
    audit,
    subscriptions: new DynamoSubscriptionStore(documents, config.tableName),
    deliveries: new DynamoDeliveryQueue(documents, config.tableName),
    webhookTester: loadedOnFirstCall<WebhookTester>(async () => {
      const { LambdaWebhookTester } = await import("../adapters/lambda/webhook-tester.js");
      return new LambdaWebhookTester(await lambda(), config.webhookTesterFunction);
    }),
    webhookUrlPolicy: config.webhookUrlPolicy,
    clock,
    ids,
    random: randomSource,
    registryLagMs: longestCheckpointIntervalMs(config.checkpointIntervalMs),
    maxFlowBytes: config.maxFlowBytes,
    agentApiUrl: config.agentApiUrl,
    debugBundleTargetBase: config.debugBundleTargetBase,
    certificateExpiryWarningDays: config.certificateExpiryWarningDays,
    selectionJobs: new DynamoSelectionJobStore(documents, config.tableName),
    selectionBudgetMs: config.selectionBudgetMs,
    sweeperIntervalSeconds: config.sweeperIntervalSeconds,
    usagePricing: config.usagePricing,
    uploadLinkSeconds: config.assetUploadLinkSeconds,
  });
  return {
    routes: consoleRoutes(api),
    audit,
    noteTenant: makeTenantNotes({ usage, clock }),
    close: async () => {
      redis.disconnect();
      documents.destroy();
      s3.destroy();
      lambda.loaded()?.destroy();
    },
  };
}
