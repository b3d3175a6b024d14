import { DynamoAgentClassRegistry, DynamoAgentRegistry } from "../adapters/dynamodb/agent-registry.js";
import { DynamoCertificateStore } from "../adapters/dynamodb/certificate-store.js";
import { DynamoClassFlowPolicies } from "../adapters/dynamodb/class-flow-policies.js";
import { DynamoDebugBundles } from "../adapters/dynamodb/debug-bundles.js";
import type { DocumentClient } from "../adapters/dynamodb/direct-calls.js";
import { DynamoFlowCatalog } from "../adapters/dynamodb/flow-catalog.js";
import { DynamoGroupStore } from "../adapters/dynamodb/group-store.js";
import { DynamoManifestCatalog } from "../adapters/dynamodb/manifest-catalog.js";
import { DynamoManifestStore } from "../adapters/dynamodb/manifest-store.js";
import { DynamoOperationStore } from "../adapters/dynamodb/operation-store.js";
import { DynamoParameterStore } from "../adapters/dynamodb/parameter-store.js";
import { DynamoRevocationList } from "../adapters/dynamodb/revocation-list.js";
import { withDeadline } from "../adapters/redis/deadline.js";
import { RedisHotState } from "../adapters/redis/hot-state.js";
import type { AnswerDeadlines } from "../core/agent-requests/answer-budget.js";
import { makeClassLabelSources } from "../core/agent-requests/class-label-sources.js";
import { makeContentDownload } from "../core/agent-requests/content-download.js";
import { makeDownloadMeter } from "../core/agent-requests/download-meter.js";
import { makeFlowDownload } from "../core/agent-requests/flow-download.js";
import { makeRecordAck } from "../core/agent-requests/record-ack.js";
import { makeRecordHeartbeat } from "../core/agent-requests/record-heartbeat.js";
import { makeRenderedFlowDownload } from "../core/agent-requests/rendered-flow-download.js";
import type { AgentClassRegistry, AgentRegistry, ClassFlowPolicies, HotState } from "../core/agents/ports.js";
import { isAssetId } from "../core/assets/model.js";
import { makeDebugBundleIntake } from "../core/bundles/intake.js";
import type { EventSink } from "../core/events/ports.js";
import type { FlowCatalog } from "../core/flows/ports.js";
import { makeGroupValues } from "../core/groups/group-values.js";
import { makeGroupMembership } from "../core/groups/membership.js";
import { type CacheBreaker, makeCacheBreaker } from "../core/guarded-cache.js";
import type { CertificateStore, RevocationList } from "../core/identity/ports.js";
import { loadedOnce } from "../core/loaded-once.js";
import type { ManifestStore } from "../core/manifests/ports.js";
import { makeManifestRegistration } from "../core/manifests/registration.js";
import { makeOperationLifecycle } from "../core/operations/lifecycle.js";
import type { OperationStore } from "../core/operations/ports.js";
import type { ValuesOverClassOf } from "../core/parameters/over-class.js";
import type { ParameterStore, SecretStore } from "../core/parameters/ports.js";
import { makeClassFlowRendering } from "../core/parameters/rendered-flow-ids.js";
import { cachedSecrets } from "../core/parameters/secret-cache.js";
import type { Clock, IdGenerator } from "../core/ports.js";
import { documentsForDirectCalls } from "../runtime/aws-clients/direct.js";
import { environmentNow } from "../runtime/aws-clients/environment.js";
import { composeEventStream } from "../runtime/event-stream.js";
import { loadedOnFirstCall } from "../runtime/on-first-call.js";
import { makeCacheClient } from "../runtime/redis-client.js";
import { boundedByRequest, withinRequestBudget } from "../runtime/request-budget.js";
import { s3AdaptersOnFirstCall } from "../runtime/s3-adapters.js";
import { randomIds, systemClock } from "../runtime/system.js";
import type { AgentApiConfig } from "../shared/config.js";

/** A command a connection left hanging this long is ended by the cache client itself. */
const HANGING_COMMAND_MS = 5_000;
/**
 * Ten cache failures within ten seconds open the container's cache breaker for five: long enough to spare a
 * cache in trouble the calls of every request, short enough that the fast path is back within seconds of
 * the cache.
 */
const CACHE_BREAKER = { failuresToOpen: 10, windowMs: 10_000, coolDownMs: 5_000 } as const;
/** A secret read, retries included, is given up after this: the download still answers within an agent's wait. */
const SECRET_READ_TIMEOUT_MS = 3_000;

/**
 * Wires the agent API's use cases to DynamoDB, Redis, Kinesis and S3; called once per container. The use cases
 * an agent waits on take the request's AnswerDeadlines first: their DynamoDB calls are given up at `storageBy`.
 * A measurement gives DynamoDB's client of its own (`dynamodb`, one that counts its requests).
 */
export function composeAgentApi(
  config: AgentApiConfig,
  onCacheBreakerOpen: () => void = () => {},
  dynamodb: DocumentClient = documentsForDirectCalls(),
) {
  // Bounded within a request's storage share only: what goes on after the answer (a late put's clearing of
  // staged events) and the debug bundle intake, whose S3 upload comes first, keep the client's own timeouts.
  const documents = boundedByRequest(dynamodb);
  // The cache's answers are held to cacheTimeoutMs by withDeadline, which a busy container's late timers do not
  // cut short; the client's own timeout only ends commands a connection left hanging.
  const redis = makeCacheClient({ url: config.redisUrl, commandTimeoutMs: HANGING_COMMAND_MS });
  const registry = new DynamoAgentRegistry(documents, config.tableName);
  const revocations = new DynamoRevocationList(documents, config.tableName);
  const hotState = withDeadline(new RedisHotState(redis), config.cacheTimeoutMs);
  const s3 = s3AdaptersOnFirstCall(config.assetBucket);
  const { events } = composeEventStream(documents, redis, config);
  const clock = systemClock;
  const ids = randomIds;
  const operationStore = new DynamoOperationStore(documents, config.tableName);
  const cacheBreaker = makeCacheBreaker(CACHE_BREAKER, clock, onCacheBreakerOpen);
  const flows = new DynamoFlowCatalog(documents, config.tableName);
  const parameters = new DynamoParameterStore(documents, config.tableName);
  const { overClass: valuesOverClass } = makeGroupValues({
    groups: new DynamoGroupStore(documents, config.tableName),
    parameters,
    registry,
    membership: makeGroupMembership(new DynamoManifestCatalog(documents, config.tableName)),
    clock,
  });
  const classFlows = new DynamoClassFlowPolicies(documents, config.tableName);
  const { manifests, operations, labelSources, recordHeartbeat } = composeHeartbeat(
    {
      registry,
      revocations,
      certificates: new DynamoCertificateStore(documents, config.tableName),
      classes: new DynamoAgentClassRegistry(documents, config.tableName),
      classFlows,
      flows,
      parameters,
      valuesOverClass,
      manifestStore: new DynamoManifestStore(documents, config.tableName),
      operationStore,
      hotState,
      events,
      clock,
      ids,
      cacheBreaker,
    },
    config,
  );
  const shared = { registry, revocations, manifests, operations, hotState, events, clock, ids, cacheBreaker };
  const recordAck = makeRecordAck({
    ...shared,
    classFlows,
    labelSources,
    results: s3.operationResults,
    debugBundles: new DynamoDebugBundles(documents, config.tableName),
    resultRetentionMs: config.operationResultRetentionMs,
  });
  const downloadFlow = makeFlowDownload({ flows, revocations, hotState, cacheBreaker });
  const secretClients = awsSecretClientsOnFirstCall();
  const downloadAgentFlow = makeRenderedFlowDownload({
    registry,
    flows,
    parameters,
    valuesOverClass,
    secrets: cachedSecrets(secretClients.store, clock),
    revocations,
    hotState,
    cacheBreaker,
  });
  // The bucket alone answers: an asset's bytes are under its tenant's prefix, gone once it is deleted.
  const downloadAsset = makeContentDownload({
    // Opened as a stream: an asset may be far larger than the agent API's memory should hold at once.
    read: (credential, assetId) => s3.assetContent.stream(credential.tenant, assetId),
    isId: isAssetId,
    what: "asset",
    revocations,
    hotState,
    cacheBreaker,
  });
  return {
    recordHeartbeat: withinStorageShare(recordHeartbeat),
    recordAck: withinStorageShare(recordAck),
    // The HTTP API ingress's bundle path, buffered within what an invocation carries.
    debugBundleIntake: makeDebugBundleIntake({
      operations: operationStore,
      bundles: new DynamoDebugBundles(documents, config.tableName),
      content: s3.debugBundleContent,
      revocations,
      events,
      clock,
      ids,
      caBindings: config.caBindings,
      retentionMs: config.debugBundleRetentionMs,
    }),
    downloadFlow: withinStorageShare(downloadFlow),
    downloadAgentFlow: withinStorageShare(downloadAgentFlow),
    downloadAsset: withinStorageShare(downloadAsset),
    meterDownload: makeDownloadMeter({ events, clock, ids }),
    close: async () => {
      redis.disconnect();
      documents.destroy();
      s3.destroy();
      secretClients.destroy();
    },
  };
}

/**
 * The secrets of sensitive parameters where they are kept, the store's adapter and its Secrets Manager and SSM
 * clients loaded by the first secret read: only the downloads of flows with sensitive values read any.
 */
function awsSecretClientsOnFirstCall() {
  const env = environmentNow();
  const clients = loadedOnce(async () => {
    const [{ makeSecretsManagerClient }, { makeSsmClient }] = await Promise.all([
      import("../runtime/aws-clients/secrets-manager.js"),
      import("../runtime/aws-clients/ssm.js"),
    ]);
    return { secretsManager: makeSecretsManagerClient(env), ssm: makeSsmClient(env) };
  });
  return {
    store: loadedOnFirstCall<SecretStore>(async () => {
      const { AwsSecretStore } = await import("../adapters/secrets/secret-store.js");
      const { secretsManager, ssm } = await clients();
      return new AwsSecretStore(secretsManager, ssm, SECRET_READ_TIMEOUT_MS);
    }),
    destroy: () => {
      const loaded = clients.loaded();
      loaded?.secretsManager.destroy();
      loaded?.ssm.destroy();
    },
  };
}

/** `useCase` with its DynamoDB calls given up at the request's `storageBy`. */
const withinStorageShare =
  <Args extends unknown[], Result>(useCase: (...args: Args) => Promise<Result>) =>
  (deadlines: AnswerDeadlines, ...args: Args): Promise<Result> =>
    withinRequestBudget(deadlines.storageBy, () => useCase(...args));

/** The ports the agent API's heartbeat is wired to: the functions' adapters, or a measurement's own. */
export interface HeartbeatPorts {
  registry: AgentRegistry;
  revocations: RevocationList;
  certificates: Pick<CertificateStore, "add">;
  classes: AgentClassRegistry;
  classFlows: ClassFlowPolicies;
  flows: Pick<FlowCatalog, "get">;
  parameters: Pick<ParameterStore, "list" | "frozen">;
  /** An agent's values over its class, read as it registers. */
  valuesOverClass: ValuesOverClassOf;
  manifestStore: ManifestStore;
  operationStore: OperationStore;
  hotState: HotState;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  cacheBreaker?: CacheBreaker;
}

/**
 * The agent API's heartbeat over `ports`, with the settings `config` gives it, and the manifest registration
 * and operation lifecycle it is wired with (which the agent API's other requests share).
 */
export function composeHeartbeat(
  ports: HeartbeatPorts,
  config: Pick<
    AgentApiConfig,
    | "checkpointIntervalMs"
    | "describeRetryMs"
    | "maxOperationsPerReply"
    | "catchUpRetryMs"
    | "errorBulletinWindowMs"
    | "agentApiUrl"
    | "operationAckTimeoutMs"
  >,
) {
  const { manifestStore, operationStore, ...heartbeatPorts } = ports;
  const manifests = makeManifestRegistration({ store: manifestStore, cache: ports.hotState });
  const operations = makeOperationLifecycle({
    operations: operationStore,
    clock: ports.clock,
    ids: ports.ids,
    settings: { ackTimeoutMs: config.operationAckTimeoutMs },
  });
  const labelSources = makeClassLabelSources();
  const recordHeartbeat = makeRecordHeartbeat({
    ...heartbeatPorts,
    labelSources,
    renderings: { classFlow: makeClassFlowRendering(ports) },
    manifests,
    operations,
    settings: {
      checkpointIntervalMs: config.checkpointIntervalMs,
      describeRetryMs: config.describeRetryMs,
      maxOperationsPerReply: config.maxOperationsPerReply,
      catchUpRetryMs: config.catchUpRetryMs,
      errorBulletinWindowMs: config.errorBulletinWindowMs,
      agentApiUrl: config.agentApiUrl,
    },
  });
  return { manifests, operations, labelSources, recordHeartbeat };
}
