import { MemoryAdoptionStore } from "../../functions/adapters/memory/adoption-store.js";
import { MemoryAssetCatalog } from "../../functions/adapters/memory/asset-catalog.js";
import { MemoryAssetContent } from "../../functions/adapters/memory/asset-content.js";
import { MemoryAuditLog } from "../../functions/adapters/memory/audit-log.js";
import { FakeCertificateAuthority } from "../../functions/adapters/memory/certificate-authority.js";
import { MemoryCertificateStore } from "../../functions/adapters/memory/certificate-store.js";
import { MemoryClassCatalog } from "../../functions/adapters/memory/class-catalog.js";
import { ManualClock } from "../../functions/adapters/memory/clock.js";
import {
  MemoryDebugBundleContent,
  MemoryDebugBundles,
} from "../../functions/adapters/memory/debug-bundles.js";
import { MemoryDeliveryQueue } from "../../functions/adapters/memory/delivery-queue.js";
import { MemoryEventSink } from "../../functions/adapters/memory/event-sink.js";
import { MemoryFleetHotState } from "../../functions/adapters/memory/fleet-hot-state.js";
import { MemoryFleetRegistry } from "../../functions/adapters/memory/fleet-registry.js";
import { MemoryFlowCatalog } from "../../functions/adapters/memory/flow-catalog.js";
import { MemoryGroupStore } from "../../functions/adapters/memory/group-store.js";
import { MemoryAgentEventLog, MemoryFleetHistory } from "../../functions/adapters/memory/history.js";
import { SequentialIds } from "../../functions/adapters/memory/id-generator.js";
import { MemoryManifestCatalog } from "../../functions/adapters/memory/manifest-catalog.js";
import { MemoryOperationResults } from "../../functions/adapters/memory/operation-results.js";
import { MemoryOperationStore } from "../../functions/adapters/memory/operation-store.js";
import { MemoryParameterStore } from "../../functions/adapters/memory/parameter-store.js";
import { CountingRandom } from "../../functions/adapters/memory/random-source.js";
import { MemoryResourceSetStore } from "../../functions/adapters/memory/resource-sets.js";
import { MemoryRolloutStore } from "../../functions/adapters/memory/rollout-store.js";
import { MemorySelectionJobStore } from "../../functions/adapters/memory/selection-job-store.js";
import { MemorySubscriptionStore } from "../../functions/adapters/memory/subscription-store.js";
import { MemoryTenantSettings } from "../../functions/adapters/memory/tenant-settings.js";
import { MemoryUsage } from "../../functions/adapters/memory/usage.js";
import { RecordingWebhookSender } from "../../functions/adapters/memory/webhook-sender.js";
import { makeConsoleUseCases } from "../../functions/core/console/use-cases.js";
import type { JsonObject } from "../../functions/core/json.js";
import { binaryOf } from "../../functions/core/manifests/canonical.js";
import { makeOperationLifecycle } from "../../functions/core/operations/lifecycle.js";
import {
  makeFlowRenderings,
  renderingClassFlows,
} from "../../functions/core/parameters/rendered-flow-ids.js";
import { makeWebhookTestSender } from "../../functions/core/webhooks/test-sender.js";
import { example } from "../common/c2-examples.js";
import { valuesOverClassOfEachIn } from "./group-values.js";

/** The console's use cases over the in-memory adapters, with agents to seed: for core's tests and the console API's. */
export const MINUTE = 60_000;
export const CHECKPOINT_MS = 10 * MINUTE;
export const AGENT_API_URL = "https://agents.beacon.example";
export const BUNDLE_TARGET_BASE = "https://bundles.beacon.example";
/** A request by selector's budget: the manual clock moves on within a request only as a test makes it. */
export const SELECTION_BUDGET_MS = 15_000;
/** The binary of the Java example's manifest, which every agent of these tests runs. */
export const javaBinary = binaryOf(
  (example("java-2.3.0/ack-describe-manifest.json").agentInfo as JsonObject).agentManifest as JsonObject,
);
export const takesUpdates = [
  { type: "DESCRIBE", properties: { MANIFEST: {} } },
  { type: "UPDATE", properties: { CONFIGURATION: {} } },
];

/** The Java example's binary as the manifest store summarises it. */
export const storedJavaBinary = () => ({
  manifestId: javaBinary.manifestId,
  agentType: "minifi-java",
  version: "2.3.0",
  bundleCount: 1,
  processorTypeCount: 1,
  controllerServiceTypeCount: 0,
  jsonBytes: 10,
  gzipBytes: 5,
  createdAt: 0,
});

export function consoleHarness() {
  const catalog = new MemoryClassCatalog();
  const assets = new MemoryAssetCatalog();
  const subscriptions = new MemorySubscriptionStore();
  const clock = new ManualClock();
  const ports = {
    catalog,
    tenantSettings: new MemoryTenantSettings(),
    groups: new MemoryGroupStore(),
    // The rollout store keeps a class's active rollout and flow policy on the catalog's records, as the table does.
    rollouts: new MemoryRolloutStore(catalog),
    adoptions: new MemoryAdoptionStore(catalog),
    parameters: new MemoryParameterStore(),
    registry: new MemoryFleetRegistry(),
    hotState: new MemoryFleetHotState(),
    manifests: new MemoryManifestCatalog(),
    flows: new MemoryFlowCatalog(),
    assets,
    assetContent: new MemoryAssetContent(),
    resourceSets: new MemoryResourceSetStore(assets),
    certificates: new MemoryCertificateStore(),
    authority: new FakeCertificateAuthority(),
    operations: new MemoryOperationStore(),
    selectionJobs: new MemorySelectionJobStore(),
    operationResults: new MemoryOperationResults(),
    debugBundles: new MemoryDebugBundles(),
    debugBundleContent: new MemoryDebugBundleContent(),
    events: new MemoryEventSink(),
    history: new MemoryFleetHistory(),
    usage: new MemoryUsage(),
    agentEvents: new MemoryAgentEventLog(),
    audit: new MemoryAuditLog(),
    subscriptions,
    deliveries: new MemoryDeliveryQueue(),
    webhookTester: makeWebhookTestSender({ subscriptions, sender: new RecordingWebhookSender(), clock }),
    webhookUrlPolicy: { allowedHosts: [] },
    clock,
    ids: new SequentialIds(),
    random: new CountingRandom(),
  };
  const lifecycle = makeOperationLifecycle({ ...ports, settings: { ackTimeoutMs: 300_000 } });
  const api = makeConsoleUseCases({
    ...ports,
    lifecycle,
    registryLagMs: CHECKPOINT_MS,
    maxFlowBytes: 5 * 1024 * 1024,
    agentApiUrl: AGENT_API_URL,
    debugBundleTargetBase: BUNDLE_TARGET_BASE,
    certificateExpiryWarningDays: 30,
    selectionBudgetMs: SELECTION_BUDGET_MS,
    sweeperIntervalSeconds: 60,
  });
  const now = ports.clock.now();
  /** An agent the registry last checkpointed `registryAgo` ms ago and the cache saw `hotAgo` ms ago. */
  const agent = (
    tenant: string,
    agentId: string,
    agentClass: string,
    registryAgo: number,
    hotAgo?: number,
  ) => {
    ports.registry.add({
      tenant,
      agentId,
      agentClass,
      firstSeen: now - 3_600_000,
      lastSeen: now - registryAgo,
      manifestHash: `hash-${agentClass}`,
      manifest: {
        hash: `hash-${agentClass}`,
        manifestId: javaBinary.manifestId,
        supportedOperations: takesUpdates,
      },
      device: { hostname: `${agentId}.plant.example` },
    });
    if (hotAgo !== undefined) {
      ports.hotState.agentStates.set(`${tenant}/${agentId}`, {
        lastSeen: now - hotAgo,
        agentClass,
        status: { uptime: 1, queuedFlowFiles: 3 },
        bulletins: [{ level: "ERROR", message: "disk full" }],
      });
    }
  };
  /** What the sweeper writes class policies to the cache through, over the same stores. */
  const classFlowCache = renderingClassFlows(
    ports.hotState,
    makeFlowRenderings({ ...ports, valuesOverClassOfEach: valuesOverClassOfEachIn(ports) }),
  );
  return { ...ports, api, now, agent, classFlowCache };
}
