import { describe, expect, it } from "vitest";
import { checkpointIntervalOf } from "../agents/checkpoint-interval.js";
import type { AgentRecord, HotSightingResult } from "../agents/ports.js";
import type { C2Operation, Heartbeat } from "../c2/model.js";
import { NO_OPERATIONS_REPLY } from "../c2/operations.js";
import type { AgentCredential } from "../identity/credentials.js";
import { CATCH_UP_CREATOR } from "../operations/delivery.js";
import {
  type AgentView,
  attributed,
  catchUpOf,
  describeDue,
  heartbeatEvent,
  looksForOperations,
  registryChange,
  seenEffectsOf,
  sightingOf,
  viewOfRecord,
  viewOfSighting,
  withRegistryEntry,
} from "./sighting.js";

const NOW = 1_700_000_000_000;
const CHECKPOINT_MS = 600_000;
/** Agent a-1's own checkpoint interval, the configured one with its jitter. */
const OWN_CHECKPOINT_MS = checkpointIntervalOf("a-1", CHECKPOINT_MS);
const fleet: AgentCredential = { kind: "fleet", tenant: "acme", fleetName: "f", serialNumber: "01" };
const agentCertificate: AgentCredential = {
  kind: "agent",
  tenant: "acme",
  agentId: "a-1",
  serialNumber: "02",
};
const heartbeat: Heartbeat = { agentId: "a-1", agentClass: "pumps", manifestHash: "m-2", flowId: "f-2" };
const record: AgentRecord = {
  tenant: "acme",
  agentId: "a-1",
  agentClass: "pumps",
  manifestHash: "m-1",
  flowId: "f-1",
  firstSeen: NOW - 86_400_000,
  lastSeen: NOW - 60_000,
};
const steady: AgentView = {
  registered: true,
  agentClass: "pumps",
  manifestHash: "m-1",
  flowId: "f-1",
  previous: { agentClass: "pumps", manifestHash: "m-1", flowId: "f-1" },
  checkpointDue: false,
};
const canUpdate = { UPDATE: ["CONFIGURATION"] };
const oneId = { newId: () => "id-1" };

describe("the agent a heartbeat speaks for", () => {
  it("is the one it names, or the agent certificate's own; a fleet certificate must be told", () => {
    expect(attributed({ agentClass: "pumps" }, agentCertificate).agentId).toBe("a-1");
    expect(attributed({ agentId: "a-2" }, fleet).agentId).toBe("a-2");
    expect(() => attributed({}, fleet)).toThrow(expect.objectContaining({ code: "invalid_payload" }));
    expect(() => attributed({ agentId: "a-2" }, agentCertificate)).toThrow(
      expect.objectContaining({ code: "identity_mismatch" }),
    );
  });
});

describe("the view of the agent", () => {
  it("takes the values before the heartbeat from the cache only for an agent the cache knows registered", () => {
    const sighting: HotSightingResult = {
      registered: false,
      sequence: 1,
      agentClass: "pumps",
      previous: { agentClass: "valves" },
      checkpointDue: false,
    };
    expect(viewOfSighting(sighting).previous).toBeUndefined();
    expect(viewOfSighting({ ...sighting, registered: true }).previous).toEqual({ agentClass: "valves" });
  });

  it("is the registry's entry under the heartbeat's values when the cache could not answer", () => {
    expect(viewOfRecord(undefined, heartbeat, NOW, CHECKPOINT_MS)).toEqual({
      registered: false,
      agentClass: "pumps",
      manifestHash: "m-2",
      flowId: "f-2",
      checkpointDue: false,
      knownAbsent: true,
    });
    const view = viewOfRecord(
      { ...record, pendingDescribe: { operationId: "describe-1", expiresAt: NOW + 1 } },
      { agentId: "a-1" },
      NOW,
      CHECKPOINT_MS,
    );
    expect(view).toMatchObject({ registered: true, manifestHash: "m-1", describePendingUntil: NOW + 1 });
    expect(view.checkpointDue).toBe(false);
    const dueAt = record.lastSeen + OWN_CHECKPOINT_MS;
    expect(viewOfRecord(record, heartbeat, dueAt - 1, CHECKPOINT_MS).checkpointDue).toBe(false);
    expect(viewOfRecord(record, heartbeat, dueAt, CHECKPOINT_MS).checkpointDue).toBe(true);
  });

  it("tells the cache the agent's own checkpoint interval, within a fifth of the configured one", () => {
    const intervals = { checkpointIntervalMs: CHECKPOINT_MS, catchUpRetryMs: 1 };
    expect(OWN_CHECKPOINT_MS).not.toBe(CHECKPOINT_MS);
    expect(Math.abs(OWN_CHECKPOINT_MS - CHECKPOINT_MS)).toBeLessThanOrEqual(CHECKPOINT_MS / 5);
    expect(sightingOf("acme", fleet, heartbeat, NOW, intervals).checkpointIntervalMs).toBe(OWN_CHECKPOINT_MS);
    expect(sightingOf("acme", fleet, { agentId: "a-2" }, NOW, intervals).checkpointIntervalMs).toBe(
      checkpointIntervalOf("a-2", CHECKPOINT_MS),
    );
  });

  it("writes a device other than the registry's, field by field, at a due checkpoint only when the cache is down", () => {
    const held = { ...record, device: { hostname: "pump-7", vCores: 4 } };
    const dueAt = record.lastSeen + OWN_CHECKPOINT_MS;
    const changedBy = (device: Heartbeat["device"], now = dueAt) =>
      viewOfRecord(held, { ...heartbeat, device }, now, CHECKPOINT_MS).deviceChanged;
    expect(changedBy(undefined)).toBe(false);
    expect(changedBy({ vCores: 4, hostname: "pump-7" })).toBe(false);
    expect(changedBy({ hostname: "pump-8", vCores: 4 })).toBe(true);
    expect(changedBy({ hostname: "pump-7" })).toBe(true);
    expect(changedBy({ hostname: "pump-7", vCores: 4, ipAddress: "10.0.0.7" })).toBe(true);
    // Before the checkpoint is due the change waits: every heartbeat reads the registry while the cache is down.
    expect(changedBy({ hostname: "pump-8", vCores: 4 }, dueAt - 1)).toBe(false);
    expect(
      viewOfRecord(record, { ...heartbeat, device: { hostname: "pump-7" } }, dueAt, CHECKPOINT_MS),
    ).toMatchObject({ deviceChanged: true });
    expect(
      viewOfSighting({
        registered: true,
        previous: {},
        checkpointDue: false,
        deviceChanged: true,
        sequence: 2,
      }).deviceChanged,
    ).toBe(true);
  });

  it("of an agent the cache lost is completed from its registry entry, the heartbeat's values first", () => {
    const lost: AgentView = { registered: false, manifestHash: "m-2", checkpointDue: false };
    const known = withRegistryEntry(
      { ...lost, deviceChanged: true },
      { ...record, pendingDescribe: { operationId: "describe-1", expiresAt: NOW + 1 } },
      heartbeat,
      NOW,
      CHECKPOINT_MS,
    );
    expect(known).toEqual({
      registered: false,
      agentClass: "pumps",
      manifestHash: "m-2",
      flowId: "f-1",
      previous: { agentClass: "pumps", manifestHash: "m-1", flowId: "f-1" },
      checkpointDue: false,
      // The cache that lost the agent compared the device with none: the registry's entry says.
      deviceChanged: false,
      describePendingUntil: NOW + 1,
    });
    expect(
      withRegistryEntry({ ...lost, describePendingUntil: NOW + 5 }, record, heartbeat, NOW, CHECKPOINT_MS),
    ).toMatchObject({ describePendingUntil: NOW + 5 });
    const dueAt = record.lastSeen + OWN_CHECKPOINT_MS;
    expect(withRegistryEntry(lost, record, heartbeat, dueAt - 1, CHECKPOINT_MS).checkpointDue).toBe(false);
    expect(withRegistryEntry(lost, record, heartbeat, dueAt, CHECKPOINT_MS).checkpointDue).toBe(true);
    // At once: the cache had lost the agent, and will compare the next heartbeats' device with this one.
    expect(
      withRegistryEntry(lost, record, { ...heartbeat, device: { hostname: "pump-8" } }, NOW, CHECKPOINT_MS),
    ).toMatchObject({ checkpointDue: false, deviceChanged: true });
  });
});

describe("what a known agent's heartbeat writes to the registry", () => {
  it("is nothing while the agent is steady and no checkpoint is due", () => {
    expect(registryChange(steady, heartbeat, "pumps", NOW, undefined)).toEqual({ classChanged: false });
  });

  it("is the last-seen time alone when a checkpoint is due and nothing changed", () => {
    expect(registryChange({ ...steady, checkpointDue: true }, heartbeat, "pumps", NOW, undefined)).toEqual({
      classChanged: false,
      lastSeen: NOW,
    });
  });

  it("is the profile at once when the manifest, the flow, the class or the device changed", () => {
    const checkpoint = { lastSeen: NOW, agentClass: "pumps", manifestHash: "m-1", flowId: "f-1" };
    const device = { hostname: "pump-8" };
    expect(
      registryChange({ ...steady, deviceChanged: true }, { ...heartbeat, device }, "pumps", NOW, undefined),
    ).toEqual({ classChanged: false, checkpoint: { ...checkpoint, device } });
    // A change due at a checkpoint writes the profile, with the last-seen time, and nothing else.
    expect(
      registryChange({ ...steady, flowId: "f-2", checkpointDue: true }, heartbeat, "pumps", NOW, undefined),
    ).toEqual({ classChanged: false, checkpoint: { ...checkpoint, flowId: "f-2" } });
    expect(
      registryChange({ ...steady, flowId: "f-2" }, heartbeat, "pumps", NOW, undefined).checkpoint,
    ).toEqual({
      ...checkpoint,
      flowId: "f-2",
    });
    expect(registryChange(steady, heartbeat, "valves", NOW, undefined)).toEqual({
      classChanged: true,
      checkpoint: { ...checkpoint, agentClass: "valves" },
    });
    expect(
      registryChange({ ...steady, previous: undefined }, heartbeat, "pumps", NOW, undefined).checkpoint,
    ).toEqual(checkpoint);
  });
  it("is a checkpoint at once with a manifest the heartbeat brought, on a hash the agent reported before", () => {
    const manifest = { hash: "m-1", manifestId: "b".repeat(64), supportedOperations: [{ type: "describe" }] };
    expect(registryChange(steady, heartbeat, "pumps", NOW, manifest).checkpoint).toMatchObject({
      manifestHash: "m-1",
      manifest,
    });
  });
});

describe("a DESCRIBE MANIFEST", () => {
  it("is due once the one outstanding expired", () => {
    expect(describeDue(steady, NOW)).toBe(true);
    expect(describeDue({ ...steady, describePendingUntil: NOW + 1 }, NOW)).toBe(false);
    expect(describeDue({ ...steady, describePendingUntil: NOW }, NOW)).toBe(true);
  });
});

describe("a catch-up", () => {
  const request = {
    tenant: "acme",
    agentId: "a-1",
    agentApiUrl: "https://agents.test",
    now: NOW,
    ids: oneId,
  };

  it("is an UPDATE CONFIGURATION to the class's flow, with the class's acknowledgement timeout", () => {
    const claimed = { ...steady, catchUp: { hash: "f-9", flowId: "f-9", ackTimeoutMs: 45_000 } };
    expect(catchUpOf(claimed, canUpdate, request)).toEqual({
      tenant: "acme",
      agentId: "a-1",
      operationId: `op-${NOW}-id-1~a-1`,
      operation: "UPDATE",
      operand: "CONFIGURATION",
      args: { location: "https://agents.test/c2/api/flows/f-9/content", flowId: "f-9", persist: "true" },
      state: "queued",
      createdAt: NOW,
      createdBy: CATCH_UP_CREATOR,
      agentClass: "pumps",
      ackTimeoutMs: 45_000,
    });
  });

  it("sends a version that declares parameters to the agent's own rendering, by the rendering's flow id", () => {
    const claimed = { ...steady, catchUp: { hash: "f-9", flowId: "r-3" } };
    expect(catchUpOf(claimed, canUpdate, request)?.args).toEqual({
      location: "https://agents.test/c2/api/agents/a-1/flows/f-9/content",
      flowId: "r-3",
      persist: "true",
    });
  });

  it("is none unless the cache claimed one and the agent's manifest lists UPDATE CONFIGURATION", () => {
    const claimed = { ...steady, catchUp: { hash: "f-9", flowId: "f-9" } };
    expect(catchUpOf(steady, canUpdate, request)).toBeUndefined();
    expect(catchUpOf(claimed, undefined, request)).toBeUndefined();
    expect(catchUpOf(claimed, { UPDATE: ["PROPERTIES"] }, request)).toBeUndefined();
  });
});

describe("the agent's queue", () => {
  const none = { catchUp: undefined, markerUnknown: false, firstSight: false, seen: {} };

  it("is read for a catch-up, for a pending marker, or when the cache could not tell of a known agent", () => {
    expect(looksForOperations(steady, none)).toBe(false);
    expect(looksForOperations({ ...steady, operationsPending: "3" }, none)).toBe(true);
    expect(looksForOperations(steady, { ...none, markerUnknown: true })).toBe(true);
    expect(looksForOperations(steady, { ...none, markerUnknown: true, firstSight: true })).toBe(false);
    const catchUp = catchUpOf({ ...steady, catchUp: { hash: "f-9", flowId: "f-9" } }, canUpdate, {
      tenant: "acme",
      agentId: "a-1",
      agentApiUrl: "https://agents.test",
      now: NOW,
      ids: oneId,
    });
    expect(looksForOperations(steady, { ...none, catchUp })).toBe(true);
  });

  it("is read when the heartbeat reports a new flow, which may prove an UPDATE CONFIGURATION", () => {
    const changed = { ...steady, flowId: "f-2", previous: { ...steady.previous, flowId: "f-1" } };
    const seen = seenEffectsOf(changed, { agentId: "a-1", flowId: "f-2" });
    expect(seen.newFlowId).toBe("f-2");
    expect(looksForOperations(changed, { ...none, seen })).toBe(true);
    expect(seenEffectsOf(steady, { agentId: "a-1" }).newFlowId).toBeUndefined();
  });
});

describe("the heartbeat's event", () => {
  const recorded = { eventId: "e-1", tenant: "acme", at: NOW, agentClass: "pumps", firstSight: false };

  it("carries the view's manifest and flow, the device's id and hostname only, what was sent, and its sequence", () => {
    const reply: { requestedOperations: C2Operation[] } = {
      requestedOperations: [{ identifier: "op-1", operation: "DESCRIBE", operand: "MANIFEST" }],
    };
    const event = heartbeatEvent(
      { ...heartbeat, runStatus: "RUNNING", device: { deviceId: "d-1", hostname: "h-1", vCores: 4 } },
      { ...steady, sequence: 7 },
      recorded,
      reply,
      812,
    );
    expect(event).toEqual({
      type: "heartbeat",
      version: 1,
      eventId: "e-1",
      tenant: "acme",
      agentId: "a-1",
      at: NOW,
      sequence: 7,
      agentClass: "pumps",
      manifestHash: "m-1",
      flowId: "f-1",
      runStatus: "RUNNING",
      status: undefined,
      device: { deviceId: "d-1", hostname: "h-1" },
      bytesIn: 812,
      bytesOut: JSON.stringify(reply).length,
      firstSight: false,
      operationsSent: ["op-1"],
    });
  });

  it("measures the reply's body in UTF-8 bytes, as it goes over the wire", () => {
    const reply: { requestedOperations: C2Operation[] } = {
      requestedOperations: [{ identifier: "é-1", operation: "DESCRIBE" }],
    };
    const event = heartbeatEvent(heartbeat, steady, recorded, reply, undefined);
    expect(event.bytesOut).toBe(Buffer.byteLength(JSON.stringify(reply), "utf8"));
    expect(event.bytesOut).toBe(JSON.stringify(reply).length + 1);
  });

  it("counts the processors by run status instead of listing them", () => {
    const processors = [
      { id: "p-1", runStatus: "RUNNING" },
      { id: "p-2", runStatus: "STOPPED" },
      { id: "p-3", runStatus: "RUNNING" },
      { id: "p-4" },
    ];
    const event = heartbeatEvent(
      { ...heartbeat, processors, resourceHash: null },
      steady,
      recorded,
      NO_OPERATIONS_REPLY,
      0,
    );
    expect(event).toMatchObject({
      processorsByRunStatus: { RUNNING: 2, STOPPED: 1, UNKNOWN: 1 },
      resourceHash: null,
    });
    expect(event).not.toHaveProperty("processors");
  });
});
