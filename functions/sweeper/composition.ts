import { DynamoAdoptionStore } from "../adapters/dynamodb/adoption-store.js";
import { DynamoAgentRegistry } from "../adapters/dynamodb/agent-registry.js";
import { DynamoAssetCatalog } from "../adapters/dynamodb/asset-catalog.js";
import { DynamoCertificateStore } from "../adapters/dynamodb/certificate-store.js";
import { DynamoClassCatalog } from "../adapters/dynamodb/class-catalog.js";
import { DynamoDebugBundles } from "../adapters/dynamodb/debug-bundles.js";
import type { DocumentClient } from "../adapters/dynamodb/direct-calls.js";
import { DynamoFleetRegistry } from "../adapters/dynamodb/fleet-registry.js";
import { DynamoFlowCatalog } from "../adapters/dynamodb/flow-catalog.js";
import { DynamoGroupStore } from "../adapters/dynamodb/group-store.js";
import { DynamoFleetHistory } from "../adapters/dynamodb/history.js";
import { DynamoManifestCatalog } from "../adapters/dynamodb/manifest-catalog.js";
import { DynamoOperationStore } from "../adapters/dynamodb/operation-store.js";
import { DynamoResourceSetStore } from "../adapters/dynamodb/resource-sets.js";
import { DynamoRolloutStore } from "../adapters/dynamodb/rollout-store.js";
import { DynamoSelectionJobStore } from "../adapters/dynamodb/selection-job-store.js";
import { DynamoStagingParameterStore } from "../adapters/dynamodb/staged-parameter-store.js";
import { DynamoTenantSettings } from "../adapters/dynamodb/tenant-settings.js";
import { DynamoUsage } from "../adapters/dynamodb/usage.js";
import { RedisFleetHotState } from "../adapters/redis/fleet-hot-state.js";
import { RedisPresenceState } from "../adapters/redis/presence.js";
import { trustedSignersIn } from "../adapters/x509/trusted-signers.js";
import { makeAdoptionSettlement } from "../core/adoptions/settlement.js";
import { longestCheckpointIntervalMs } from "../core/agents/checkpoint-interval.js";
import { makeOfflineSweep } from "../core/agents/presence.js";
import { partitionPathsOf } from "../core/archive/layout.js";
import type { EventSink } from "../core/events/ports.js";
import { relayHeld, relayStaged, resending } from "../core/events/publishing.js";
import { makeFleetCleanUp } from "../core/fleet/clean-up.js";
import { makeGroupReader } from "../core/groups/console-groups.js";
import { makeGroupCounting } from "../core/groups/counting.js";
import { makeGroupValues } from "../core/groups/group-values.js";
import { makeGroupMembership } from "../core/groups/membership.js";
import { makeFleetSeries } from "../core/history/console-metrics.js";
import { makeStoredSnapshots } from "../core/history/stored.js";
import { makeExpiryNotices } from "../core/identity/expiry.js";
import { makeOperationsApi } from "../core/operations/console-operations.js";
import { makeOperationLifecycle } from "../core/operations/lifecycle.js";
import { makeSweepTimeouts } from "../core/operations/timeouts.js";
import { makeFlowRenderings, renderingClassFlows } from "../core/parameters/rendered-flow-ids.js";
import type { Clock, IdGenerator } from "../core/ports.js";
import { makeRolloutEngine } from "../core/rollouts/engine.js";
import { makeRolloutPreparation } from "../core/rollouts/preparation.js";
import { makeRolloutTargets } from "../core/rollouts/targets.js";
import { documentsForDirectCalls } from "../runtime/aws-clients/direct.js";
import { composeEventStream } from "../runtime/event-stream.js";
import { makeCacheClient } from "../runtime/redis-client.js";
import { s3AdaptersOnFirstCall } from "../runtime/s3-adapters.js";
import { randomIds, systemClock } from "../runtime/system.js";
import type { SweeperConfig } from "../shared/config.js";

/** What the group reader reads: the groups, the binaries, the agents' registry and classes, and the cache. */
export type GroupReaderStores = Omit<Parameters<typeof makeGroupReader>[0], "registryLagMs">;

/** The groups' counting passes over the group reader's stores: the sweeper's, and the bench's. */
export function composeGroupCounting(
  stores: GroupReaderStores,
  config: Pick<SweeperConfig, "checkpointIntervalMs" | "groupCounting">,
) {
  // A pass reads every agent, those the cache no longer holds too: their last-seen times are the registry's,
  // which may lag a checkpoint interval.
  const { reader } = makeGroupReader({
    ...stores,
    registryLagMs: longestCheckpointIntervalMs(config.checkpointIntervalMs),
  });
  return makeGroupCounting({
    groups: stores.groups,
    membership: makeGroupMembership(stores.manifests),
    registry: stores.registry,
    reader,
    catalog: stores.manifests,
    clock: stores.clock,
    settings: config.groupCounting,
  });
}

/**
 * The rollout engine as the sweeper runs it, on DynamoDB, the cache and the event stream, with the stores and
 * readers it is wired to, which the sweeper's other steps share: the sweeper's, and the bench's.
 */
export function composeRolloutEngine(
  documents: DocumentClient,
  hotState: RedisFleetHotState,
  events: EventSink,
  config: Pick<SweeperConfig, "tableName" | "agentApiUrl" | "operationAckTimeoutMs">,
  clock: Clock,
  ids: IdGenerator,
) {
  const operations = new DynamoOperationStore(documents, config.tableName);
  const lifecycle = makeOperationLifecycle({
    operations,
    clock,
    ids,
    settings: { ackTimeoutMs: config.operationAckTimeoutMs },
  });
  const classes = new DynamoClassCatalog(documents, config.tableName);
  const fleetRegistry = new DynamoFleetRegistry(documents, config.tableName);
  const flows = new DynamoFlowCatalog(documents, config.tableName);
  const parameters = new DynamoStagingParameterStore(documents, config.tableName);
  const tenantSettings = new DynamoTenantSettings(documents, config.tableName);
  const groupStore = new DynamoGroupStore(documents, config.tableName);
  const manifests = new DynamoManifestCatalog(documents, config.tableName);
  const { overClassOfEach: valuesOverClassOfEach } = makeGroupValues({
    groups: groupStore,
    parameters,
    registry: fleetRegistry,
    membership: makeGroupMembership(manifests),
    clock,
  });
  const renderings = makeFlowRenderings({ flows, parameters, valuesOverClassOfEach });
  const classFlowCache = renderingClassFlows(hotState, renderings);
  const groupReaderStores: GroupReaderStores = {
    groups: groupStore,
    manifests,
    registry: fleetRegistry,
    catalog: classes,
    hotState,
    clock,
  };
  // The sweeper reads last-seen times from the cache, as the rollout engine's health checks do: no registry
  // lag to allow for.
  const { reader, groups } = makeGroupReader({ ...groupReaderStores, registryLagMs: 0 });
  const rollouts = makeRolloutEngine({
    targets: makeRolloutTargets({ groups: groupStore, members: groups }),
    rollouts: new DynamoRolloutStore(documents, config.tableName),
    // The sweeper reads no manifests: a scheduled rollout starts on the agent checks of its creation and approval.
    preparation: makeRolloutPreparation({ flows, catalog: classes, parameters }),
    classes,
    tenantSettings,
    registry: fleetRegistry,
    hotState,
    operations,
    lifecycle,
    events,
    clock,
    ids,
    agentApiUrl: config.agentApiUrl,
    flows,
    renderings,
    parameters,
    valuesOverClassOfEach,
    classFlowCache,
  });
  return {
    rollouts,
    operations,
    lifecycle,
    classes,
    fleetRegistry,
    flows,
    renderings,
    classFlowCache,
    tenantSettings,
    manifests,
    groupReaderStores,
    reader,
    groups,
  };
}

/**
 * Wires the sweeper's use cases, operation timeouts, rollouts, adoptions, certificate expiry notices, agents
 * gone offline, the clean-up of those silent too long, the groups' counting passes and the tenants' daily snapshots
 * of what they store, to DynamoDB, Kinesis, the cache and the buckets; called once per container. Tests
 * pass a clock of their own to look at operations, rollouts and certificates as they will be later.
 */
export function composeSweeper(config: SweeperConfig, clock: Clock = systemClock) {
  const documents = documentsForDirectCalls();
  const s3 = s3AdaptersOnFirstCall(config.assetBucket);
  const redis = makeCacheClient({ url: config.redisUrl, commandTimeoutMs: config.cacheTimeoutMs });
  const ids = randomIds;
  const { events, outbox, buffer, stream } = composeEventStream(documents, redis, config);
  const hotState = new RedisFleetHotState(redis);
  const {
    rollouts,
    operations,
    lifecycle,
    classes,
    fleetRegistry,
    flows,
    renderings,
    classFlowCache,
    tenantSettings,
    manifests,
    groupReaderStores,
    reader,
    groups,
  } = composeRolloutEngine(documents, hotState, events, config, clock, ids);
  const sweepTimeouts = makeSweepTimeouts({
    operations,
    lifecycle,
    agents: new DynamoAgentRegistry(documents, config.tableName),
    classes,
    hotState,
    events,
    clock,
    settings: {
      queuedTimeoutHeartbeats: config.queuedTimeoutHeartbeats,
      maxOperationsPerRun: config.maxOperationsPerRun,
    },
  });
  const adoptions = makeAdoptionSettlement({
    adoptions: new DynamoAdoptionStore(documents, config.tableName),
    catalog: classes,
    classFlowCache,
    flows,
    operations,
    debugBundles: new DynamoDebugBundles(documents, config.tableName),
    debugBundleContent: s3.debugBundleContent,
    clock,
    maxFlowBytes: config.maxFlowBytes,
  });
  const announceExpiringCertificates = makeExpiryNotices({
    store: new DynamoCertificateStore(documents, config.tableName),
    events,
    clock,
    ids,
    settings: {
      warningDays: config.certificateExpiryWarningDays,
      maxPerRun: config.maxExpiryNoticesPerRun,
    },
    trustedSigners: async () =>
      config.agentCaDir === undefined ? config.trustedCaFingerprints : trustedSignersIn(config.agentCaDir),
  });
  const presence = new RedisPresenceState(redis);
  const offline = makeOfflineSweep({
    presence,
    classes,
    silentAgents: fleetRegistry,
    events,
    clock,
    ids,
    settings: {
      maxPerLook: config.maxOfflinePerLook,
      maxPerRun: config.maxOfflinePerRun,
    },
  });
  const cleanUp = makeFleetCleanUp({
    presence,
    classes,
    tenantSettings,
    registry: fleetRegistry,
    hotState,
    events,
    clock,
    ids,
    settings: { maxPerRun: config.maxOfflinePerRun },
  });
  const groupCounting = composeGroupCounting(groupReaderStores, config);
  const fleetSeries = makeFleetSeries({
    catalog: classes,
    registry: fleetRegistry,
    hotState,
    classFlowCache,
    clock,
    registryLagMs: longestCheckpointIntervalMs(config.checkpointIntervalMs),
    history: new DynamoFleetHistory(documents, config.tableName),
  });
  const selections = makeOperationsApi({
    operations,
    lifecycle,
    operationResults: s3.operationResults,
    registry: fleetRegistry,
    catalog: classes,
    manifests,
    hotState,
    flows,
    renderings,
    assets: new DynamoAssetCatalog(documents, config.tableName),
    resourceSets: new DynamoResourceSetStore(documents, config.tableName),
    tenantSettings,
    events,
    clock,
    ids,
    agentApiUrl: config.agentApiUrl,
    debugBundleTargetBase: config.debugBundleTargetBase,
    selectAgents: reader.selectAfter,
    windowedGroups: groups.withWindows,
    merge: reader.merge,
    selectionJobs: new DynamoSelectionJobStore(documents, config.tableName),
    // The sweeper continues selections and begins none: it answers no request whose time runs out.
    selectionBudgetMs: Number.POSITIVE_INFINITY,
  });
  const archive = s3.archiveReader(config.archiveBucket);
  // What the relays put again may be on the stream already: the archive shows what it carried.
  const resent = resending(stream, archive);
  const storedSnapshots = makeStoredSnapshots({
    usage: new DynamoUsage(documents, config.tableName),
    sources: {
      manifests,
      classes,
      flows,
      assets: new DynamoAssetCatalog(documents, config.tableName),
      debugBundles: new DynamoDebugBundles(documents, config.tableName),
      archive,
      archivePrefix: (tenant) => partitionPathsOf(tenant)[0] as string,
    },
    clock,
  });
  return {
    sweepTimeouts,
    rollouts,
    adoptions,
    announceExpiringCertificates,
    offline,
    cleanUp,
    /** Each tenant's groups counted by a pass over its agents, continued across runs. */
    countGroups: async (deadline: number) => groupCounting.sweep(await presence.tenants(), deadline),
    /** The tenants whose agents the cache indexes, and each one's fleet series, as a scrape reads them. */
    tenants: () => presence.tenants(),
    fleetSeries,
    /** The tenants whose snapshots of what they store are taken: those the cache indexes, and those remembered. */
    snapshotTenants: async () => storedSnapshots.tenants(await presence.tenants()),
    /** The tenant's snapshot of what it stores, once a day. */
    takeStoredSnapshot: storedSnapshots.take,
    continueSelections: (deadline: number) =>
      selections.continueSelections(deadline, config.maxSelectionStepsPerRun),
    relayStaged: () =>
      relayStaged(outbox, resent, clock.now() - config.outboxGraceMs, config.maxRelayedPerRun),
    relayHeld: () =>
      relayHeld(buffer, outbox, resent, config.maxRelayedPerRun, clock.now() - config.unknownPutSettleMs),
    close: async () => {
      redis.disconnect();
      documents.destroy();
      s3.destroy();
    },
  };
}
