import { MemoryAgentClassRegistry } from "../../functions/adapters/memory/agent-class-registry.js";
import { MemoryAgentRegistry } from "../../functions/adapters/memory/agent-registry.js";
import { MemoryCertificateStore } from "../../functions/adapters/memory/certificate-store.js";
import { MemoryClassFlowPolicies } from "../../functions/adapters/memory/class-flow-policies.js";
import { ManualClock } from "../../functions/adapters/memory/clock.js";
import { MemoryDebugBundles } from "../../functions/adapters/memory/debug-bundles.js";
import { MemoryEventOutbox } from "../../functions/adapters/memory/event-outbox.js";
import { MemoryEventSink } from "../../functions/adapters/memory/event-sink.js";
import { MemoryFlowCatalog } from "../../functions/adapters/memory/flow-catalog.js";
import { MemoryHotState } from "../../functions/adapters/memory/hot-state.js";
import { SequentialIds } from "../../functions/adapters/memory/id-generator.js";
import { MemoryManifestStore } from "../../functions/adapters/memory/manifest-store.js";
import { MemoryOperationResults } from "../../functions/adapters/memory/operation-results.js";
import { MemoryOperationStore } from "../../functions/adapters/memory/operation-store.js";
import { MemoryParameterStore } from "../../functions/adapters/memory/parameter-store.js";
import { MemoryRevocationList } from "../../functions/adapters/memory/revocation-list.js";
import { makeClassLabelSources } from "../../functions/core/agent-requests/class-label-sources.js";
import { makeRecordAck } from "../../functions/core/agent-requests/record-ack.js";
import { makeRecordHeartbeat } from "../../functions/core/agent-requests/record-heartbeat.js";
import { clearingStaged } from "../../functions/core/events/publishing.js";
import { makeManifestRegistration } from "../../functions/core/manifests/registration.js";
import { makeOperationLifecycle } from "../../functions/core/operations/lifecycle.js";
import type { ValuesOverClassOf } from "../../functions/core/parameters/over-class.js";
import { makeFlowRenderings } from "../../functions/core/parameters/rendered-flow-ids.js";
import { valuesOverClassIn, valuesOverClassOfEachIn } from "./group-values.js";

export const CHECKPOINT_MS = 10 * 60_000;
export const DESCRIBE_RETRY_MS = 5 * 60_000;
export const ACK_TIMEOUT_MS = 5 * 60_000;
export const MAX_OPERATIONS_PER_REPLY = 3;
export const CATCH_UP_RETRY_MS = 30 * 60_000;
export const AGENT_API_URL = "https://agents.beacon.test:8443";
export const RESULT_RETENTION_MS = 7 * 24 * 3_600_000;

/**
 * Core use cases wired over in-memory ports. `events` is the stream; the use cases publish through the outbox's
 * clearing, as the functions do, so `outbox` holds what a failed publish left staged.
 */
export function coreHarness() {
  const outbox = new MemoryEventOutbox();
  const ports = {
    registry: new MemoryAgentRegistry(),
    revocations: new MemoryRevocationList(),
    certificates: new MemoryCertificateStore(),
    classes: new MemoryAgentClassRegistry(),
    classFlows: new MemoryClassFlowPolicies(),
    flows: new MemoryFlowCatalog(),
    parameters: new MemoryParameterStore(),
    manifestStore: new MemoryManifestStore(),
    operationStore: new MemoryOperationStore(outbox),
    results: new MemoryOperationResults(),
    debugBundles: new MemoryDebugBundles(),
    hotState: new MemoryHotState(),
    events: new MemoryEventSink(),
    clock: new ManualClock(),
    ids: new SequentialIds(),
  };
  const readValuesOverClass = valuesOverClassIn(ports);
  /** What each read of an agent's values over its class was asked with, in order. */
  const valuesReads: Parameters<ValuesOverClassOf>[] = [];
  const valuesOverClass: ValuesOverClassOf = (...read) => {
    valuesReads.push(read);
    return readValuesOverClass(...read);
  };
  const manifests = makeManifestRegistration({ store: ports.manifestStore, cache: ports.hotState });
  const operations = makeOperationLifecycle({
    operations: ports.operationStore,
    clock: ports.clock,
    ids: ports.ids,
    settings: { ackTimeoutMs: ACK_TIMEOUT_MS },
  });
  const published = clearingStaged(ports.events, outbox, (error) => {
    throw error;
  });
  const labelSources = makeClassLabelSources();
  const recordHeartbeat = makeRecordHeartbeat({
    ...ports,
    labelSources,
    valuesOverClass,
    renderings: makeFlowRenderings({ ...ports, valuesOverClassOfEach: valuesOverClassOfEachIn(ports) }),
    events: published,
    manifests,
    operations,
    settings: {
      checkpointIntervalMs: CHECKPOINT_MS,
      describeRetryMs: DESCRIBE_RETRY_MS,
      maxOperationsPerReply: MAX_OPERATIONS_PER_REPLY,
      catchUpRetryMs: CATCH_UP_RETRY_MS,
      agentApiUrl: AGENT_API_URL,
    },
  });
  const recordAck = makeRecordAck({
    ...ports,
    labelSources,
    events: published,
    manifests,
    operations,
    resultRetentionMs: RESULT_RETENTION_MS,
  });
  const backendCalls = () => ({
    registry: ports.registry.calls,
    classes: ports.classes.calls,
    classFlows: ports.classFlows.calls,
    manifests: ports.manifestStore.calls,
    operations: ports.operationStore.calls,
    cache: ports.hotState.roundTrips,
    events: ports.events.events.length,
  });
  return { ...ports, outbox, operations, recordHeartbeat, recordAck, backendCalls, valuesReads };
}
