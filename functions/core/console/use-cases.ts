import { makeAdoptionsApi } from "../adoptions/console-adoptions.js";
import type { AdoptionStore } from "../adoptions/ports.js";
import type { ClassCatalog } from "../agents/ports.js";
import { makeAssetsApi } from "../assets/console-assets.js";
import type { AssetCatalog, AssetContentStore, ResourceSetStore } from "../assets/ports.js";
import { makeAuditApi } from "../audit/console-audit.js";
import type { AuditLog } from "../audit/ports.js";
import { makeDebugBundlesApi } from "../bundles/console-debug-bundles.js";
import type { DebugBundleContent, DebugBundleStore } from "../bundles/ports.js";
import { makeLinkDownloadMeter } from "../events/link-downloads.js";
import type { EventSink } from "../events/ports.js";
import { makeFleetBinaries } from "../fleet/binaries.js";
import { makeAgentsApi } from "../fleet/console-agents.js";
import { makeFleetAttention } from "../fleet/console-attention.js";
import { makeClassesApi } from "../fleet/console-classes.js";
import { makeSettingsApi } from "../fleet/console-settings.js";
import { makeFleetSummary } from "../fleet/console-summary.js";
import type { FleetHotState, FleetRegistry, TenantSettingsStore } from "../fleet/ports.js";
import { makeFlowsApi } from "../flows/console-flows.js";
import type { FlowCatalog } from "../flows/ports.js";
import { makeFlowValidation } from "../flows/validation.js";
import { makeGroupReader } from "../groups/console-groups.js";
import { makeGroupValues } from "../groups/group-values.js";
import { makeGroupMembership } from "../groups/membership.js";
import type { GroupStore } from "../groups/ports.js";
import { guardedCache } from "../guarded-cache.js";
import { makeHistoryApi } from "../history/console-history.js";
import { makeFleetMetrics } from "../history/console-metrics.js";
import { makeUsageApi } from "../history/console-usage.js";
import type { AgentEventLog, FleetHistoryStore, UsageStore } from "../history/ports.js";
import type { StatementPricing } from "../history/statement.js";
import { makeCertificateRevocation } from "../identity/certificates.js";
import { makeCertificatesApi } from "../identity/console-certificates.js";
import type { CertificateAuthority, CertificateStore } from "../identity/ports.js";
import { makeManifestsApi } from "../manifests/console-manifests.js";
import type { ManifestCatalog } from "../manifests/ports.js";
import { makeOperationsApi } from "../operations/console-operations.js";
import { makePinsApi } from "../operations/console-pins.js";
import { makeResourceSetsApi } from "../operations/console-resource-sets.js";
import type { OperationLifecycle } from "../operations/lifecycle.js";
import type { OperationResultStore, OperationStore, SelectionJobStore } from "../operations/ports.js";
import { makeOperationQueue } from "../operations/queue.js";
import { makeParametersApi } from "../parameters/console-parameters.js";
import type { ParameterStore } from "../parameters/ports.js";
import { makeReadinessCheck } from "../parameters/readiness-check.js";
import { makeFlowRenderings, type OwnValues, renderingClassFlows } from "../parameters/rendered-flow-ids.js";
import type { Clock, IdGenerator, RandomSource } from "../ports.js";
import { makeRolloutsApi } from "../rollouts/console-rollouts.js";
import { makeRolloutEngine } from "../rollouts/engine.js";
import type { RolloutStore } from "../rollouts/ports.js";
import { makeRolloutPreparation } from "../rollouts/preparation.js";
import { makeRolloutTargets } from "../rollouts/targets.js";
import type { UrlPolicy } from "../webhooks/address-policy.js";
import { makeDeliveryLogApi } from "../webhooks/console-deliveries.js";
import { makeSubscriptionsApi } from "../webhooks/console-webhooks.js";
import type { DeliveryQueue, SubscriptionStore, WebhookTester } from "../webhooks/ports.js";
import { makeClassScopes } from "./scopes.js";

export interface ConsoleDependencies {
  catalog: ClassCatalog;
  /** What the tenant set for its whole fleet. */
  tenantSettings: TenantSettingsStore;
  /** The tenant's groups: saved queries over its agents. */
  groups: GroupStore;
  registry: FleetRegistry;
  hotState: FleetHotState;
  manifests: ManifestCatalog;
  flows: FlowCatalog;
  assets: AssetCatalog;
  assetContent: AssetContentStore;
  resourceSets: ResourceSetStore;
  certificates: CertificateStore;
  authority: CertificateAuthority;
  operations: OperationStore;
  lifecycle: OperationLifecycle;
  /** The answers DESCRIBE acknowledgements brought, which only the console reads. */
  operationResults: OperationResultStore;
  /** The debug bundles agents uploaded, which only the console reads. */
  debugBundles: DebugBundleStore;
  debugBundleContent: DebugBundleContent;
  rollouts: RolloutStore;
  /** Parameter values set for classes, groups and agents. */
  parameters: ParameterStore;
  /** The class's adoptions of flows its agents ran before Beacon. */
  adoptions: AdoptionStore;
  events: EventSink;
  /** What the stream consumer counted and kept, read here only. */
  history: FleetHistoryStore;
  agentEvents: AgentEventLog;
  /** Each tenant's usage by hour, which the stream consumer meters. */
  usage: UsageStore;
  /** The tenant's audit trail, which the console handler writes and admins read. */
  audit: AuditLog;
  subscriptions: SubscriptionStore;
  /** What was delivered to each subscription, and what is still being tried. */
  deliveries: DeliveryQueue;
  /** Posts the console's test notifications; the delivery queue posts the rest. */
  webhookTester: WebhookTester;
  /** Which hosts a subscription may name besides the public internet: none on AWS. */
  webhookUrlPolicy: UrlPolicy;
  clock: Clock;
  ids: IdGenerator;
  random: RandomSource;
  /** How stale the registry's last-seen times may be: the agent API's longest checkpoint interval. */
  registryLagMs: number;
  /** Largest flow document accepted, inflated. */
  maxFlowBytes: number;
  /** The agent API's public base URL, for the URLs agents are sent to. */
  agentApiUrl: string;
  /** The base of TRANSFER DEBUG's upload targets: where agents reach the streaming bundle intake. */
  debugBundleTargetBase: string;
  /** How many days before its notAfter a certificate counts as expiring. */
  certificateExpiryWarningDays: number;
  /** Selections a request by selector left to the sweeper. */
  selectionJobs: SelectionJobStore;
  /** How long a request by selector queues operations before it leaves the rest to a selection job. */
  selectionBudgetMs: number;
  /** How often the sweeper runs, which paces rollouts: their views say so. */
  sweeperIntervalSeconds: number;
  /** The unit prices usage statements bill with; the capacity model's for the default option unless given. */
  usagePricing?: StatementPricing;
  /** How long an upload's part URLs are signed for at most; an hour unless given. */
  uploadLinkSeconds?: number;
}

/**
 * Every use case of the tenant console, over its ports. Each checks the caller's role first; `scopes` holds a
 * principal limited to some classes to them, around each, by the operation's rule.
 */
export function makeConsoleUseCases(ports: ConsoleDependencies) {
  const groupValues = makeGroupValues({ ...ports, membership: makeGroupMembership(ports.manifests) });
  const valuesOverClass = groupValues.overClass;
  const valuesOverClassOfEach = groupValues.overClassOfEach;
  const renderings = makeFlowRenderings({ ...ports, valuesOverClassOfEach });
  const deps = {
    ...ports,
    renderings,
    valuesOverClass,
    valuesOverClassOfEach,
    classFlowCache: renderingClassFlows(ports.hotState, renderings),
  };
  const revocation = makeCertificateRevocation({ ...deps, store: deps.certificates });
  // Held operations follow a change of a class's or a group's windows; the operations use case reads the groups.
  const followHeldOperations = (tenant: string, agentClass?: string) =>
    operations.followWindows(tenant, agentClass);
  /** An agent is told its values over its class as its own values are: in its cache entry, and its pin. */
  const tellValues = async (tenant: string, agentId: string, own: OwnValues) => {
    await guardedCache().attempt(() => deps.hotState.rememberOwnValues(tenant, agentId, own));
    await pins.followValues(tenant, agentId, own);
  };
  // Without the cache, containers' copies of the groups serve registering agents until they expire.
  const groupsChanged = async (tenant: string) => {
    await guardedCache().attempt(() => deps.hotState.groupsChanged(tenant));
  };
  const { reader, groups } = makeGroupReader({
    ...deps,
    followHeldOperations,
    values: { overClass: groupValues, parameters: deps.parameters, tell: tellValues, groupsChanged },
  });
  const classAgents = (tenant: string, className: string, limit: number) =>
    reader.select(tenant, { agentClass: className }, limit);
  const validateFlow = makeFlowValidation({ manifests: deps.manifests, flows: deps.flows, classAgents });
  const readiness = makeReadinessCheck({
    ...deps,
    classAgents,
    groupLayers: (tenant, agentIds) => groupValues.groupLayersOf(tenant, deps.registry, agentIds),
    groupMembers: (tenant, group, limit) =>
      groupValues.membersOver(tenant, { reader, registry: deps.registry }, group, limit),
    rollingOut: async (tenant, { activeRolloutId }) =>
      activeRolloutId === undefined ? undefined : (await deps.rollouts.get(tenant, activeRolloutId))?.toFlow,
  });
  const preparation = makeRolloutPreparation({ ...deps, agentChecks: { validate: validateFlow, readiness } });
  const targets = makeRolloutTargets({ groups: deps.groups, members: groups });
  const engine = makeRolloutEngine({ ...deps, classes: deps.catalog, preparation, targets });
  const operations = makeOperationsApi({
    ...deps,
    selectAgents: reader.selectAfter,
    windowedGroups: groups.withWindows,
    merge: reader.merge,
  });
  const pins = makePinsApi({
    ...deps,
    createOperation: operations.create,
    reader,
    groupFilters: groups.filtersOf,
  });
  const certificates = makeCertificatesApi({
    ...deps,
    store: deps.certificates,
    revocation,
    expiryWarningDays: deps.certificateExpiryWarningDays,
  });
  const meterLinkDownload = makeLinkDownloadMeter(deps);
  return {
    classes: makeClassesApi({ ...deps, followHeldOperations }),
    settings: makeSettingsApi({ ...deps, followHeldOperations }),
    groups,
    agents: makeAgentsApi({
      ...deps,
      labelsChanged: groups.labelsChanged,
      reader,
      revokeAgentCertificates: revocation.revokeAgentCertificates,
      agentCertificateExpiry: certificates.agentCertificateExpiry,
    }),
    operations,
    pins,
    debugBundles: makeDebugBundlesApi({ ...deps, meterLinkDownload }),
    manifests: makeManifestsApi({ catalog: deps.manifests }),
    flows: makeFlowsApi({ ...deps, validate: validateFlow, checkParameters: readiness.version }),
    parameters: makeParametersApi({
      ...deps,
      readiness,
      pinFollowsValues: pins.followValues,
      groupHolder: groups.valueHolder,
    }),
    assets: makeAssetsApi({ ...deps, content: deps.assetContent, meterLinkDownload }),
    resourceSets: makeResourceSetsApi({ ...deps, selectAgents: reader.selectAfter }),
    rollouts: makeRolloutsApi({ ...deps, engine, preparation }),
    adoptions: makeAdoptionsApi({
      ...deps,
      groupValues: groupValues.groupValues,
      queue: makeOperationQueue(deps),
    }),
    fleetSummary: makeFleetSummary(deps),
    fleetAttention: makeFleetAttention(deps),
    fleetMetrics: makeFleetMetrics(deps),
    fleetBinaries: makeFleetBinaries(deps),
    history: makeHistoryApi(deps),
    usage: makeUsageApi(deps),
    certificates,
    deliveries: makeDeliveryLogApi(deps),
    audit: makeAuditApi(deps),
    webhooks: makeSubscriptionsApi(deps),
    scopes: makeClassScopes(deps),
  };
}

export type ConsoleUseCases = ReturnType<typeof makeConsoleUseCases>;
