import {
  ManualClock,
  MemoryAgentClassRegistry,
  MemoryAgentRegistry,
  MemoryEventSink,
  MemoryHotState,
  MemoryManifestStore,
  MemoryRevocationList,
  SequentialIds,
} from "../../adapters/memory/index.js";
import { makeManifestRegistration } from "../manifest-registration.js";
import { makeRecordAck } from "../record-ack.js";
import { makeRecordHeartbeat } from "../record-heartbeat.js";

export const CHECKPOINT_MS = 10 * 60_000;
export const DESCRIBE_RETRY_MS = 5 * 60_000;

/** Core use cases wired over in-memory ports. */
export function coreHarness() {
  const ports = {
    registry: new MemoryAgentRegistry(),
    revocations: new MemoryRevocationList(),
    classes: new MemoryAgentClassRegistry(),
    manifestStore: new MemoryManifestStore(),
    hotState: new MemoryHotState(),
    events: new MemoryEventSink(),
    clock: new ManualClock(),
    ids: new SequentialIds(),
  };
  const manifests = makeManifestRegistration(ports.manifestStore);
  const recordHeartbeat = makeRecordHeartbeat({
    ...ports,
    manifests,
    settings: { checkpointIntervalMs: CHECKPOINT_MS, describeRetryMs: DESCRIBE_RETRY_MS },
  });
  const recordAck = makeRecordAck({ ...ports, manifests });
  const backendCalls = () => ({
    registry: ports.registry.calls,
    classes: ports.classes.calls,
    manifests: ports.manifestStore.calls,
    cache: ports.hotState.roundTrips,
    events: ports.events.events.length,
  });
  return { ...ports, recordHeartbeat, recordAck, backendCalls };
}
