import { describe, expect, it, vi } from "vitest";
import { cppAgentOf, cppHeartbeatOf, example } from "../../../scripts/common/c2-examples.js";
import {
  AGENT_API_URL,
  CATCH_UP_RETRY_MS,
  CHECKPOINT_MS,
  coreHarness,
  DESCRIBE_RETRY_MS,
} from "../../../scripts/test-support/core-harness.js";
import { checkpointIntervalOf } from "../agents/checkpoint-interval.js";
import { summarizeManifest } from "../c2/manifest.js";
import { BeaconError } from "../errors.js";
import { PublishNotAwaited } from "../events/publishing.js";
import type { ClassFlowPolicy } from "../flows/policy.js";
import type { AgentCredential } from "../identity/credentials.js";
import type { JsonObject } from "../json.js";
import { binaryOf } from "../manifests/canonical.js";
import { CATCH_UP_CREATOR } from "../operations/delivery.js";
import type { OperationRecord } from "../operations/model.js";
import { LABEL_SOURCES_KEPT_MS } from "./class-label-sources.js";

const fleet: AgentCredential = { kind: "fleet", tenant: "acme", fleetName: "acme-fleet", serialNumber: "01" };
const javaAgent: AgentCredential = {
  kind: "agent",
  tenant: "acme",
  agentId: "probe-agent-1",
  serialNumber: "02",
};

const javaHeartbeat = () => example("java-2.3.0/heartbeat-light.json");
const javaAck = (operationId: string): JsonObject => ({
  ...example("java-2.3.0/ack-describe-manifest.json"),
  operationId,
});

describe("recordHeartbeat", () => {
  it("registers an unknown agent and asks it to describe its manifest once", async () => {
    const core = coreHarness();
    const first = await core.recordHeartbeat(javaAgent, javaHeartbeat());

    expect(first.firstSight).toBe(true);
    expect(first.reply.requestedOperations).toEqual([
      { identifier: expect.stringMatching(/^describe-/), operation: "DESCRIBE", operand: "MANIFEST" },
    ]);
    const record = core.registry.records.get("acme/probe-agent-1");
    expect(record).toMatchObject({ agentClass: "probe-class", firstSeen: core.clock.time });
    expect(core.classes.classes.has("acme/probe-class")).toBe(true);

    core.clock.advance(1_000);
    const second = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    expect(second.reply.requestedOperations).toEqual([]);
    expect(second.firstSight).toBe(false);
  });

  it("registers a new agent that brings its manifest with one conditional write, and reads the registry only for an agent it holds", async () => {
    const core = coreHarness();
    const agent = cppAgentOf("gw-herd-1", "gateways");
    const first = await core.recordHeartbeat(fleet, agent.full());
    expect(first.firstSight).toBe(true);
    // The registration's conditional put, no read before it.
    expect(core.registry.calls).toBe(1);
    const registered = structuredClone(core.registry.records.get("acme/gw-herd-1"));
    expect(registered).toMatchObject({ agentClass: "gateways", manifest: { hash: agent.manifestHash } });

    // The cache lost the agent, which restarts with its manifest: the put finds it, and its entry is read.
    core.hotState.agents.clear();
    core.clock.advance(1_000);
    const before = core.registry.calls;
    const again = await core.recordHeartbeat(fleet, agent.full());
    expect(again.firstSight).toBe(false);
    expect(core.registry.calls - before).toBeGreaterThanOrEqual(2);
    expect(core.registry.records.get("acme/gw-herd-1")).toMatchObject({
      firstSeen: registered?.firstSeen,
      agentClass: "gateways",
    });
  });

  it("reads no values of its own for an agent new to the registry, and reads them for one it held", async () => {
    const core = coreHarness();
    const list = vi.spyOn(core.parameters, "list");
    const ownReads = () => list.mock.calls.filter(([, scope]) => scope.layer === "agent").length;
    const agent = cppAgentOf("gw-new-1", "gateways");
    expect((await core.recordHeartbeat(fleet, agent.full())).firstSight).toBe(true);
    expect(ownReads()).toBe(0);

    // Held by the registry (the cache lost it), the agent may have values of its own, set through its entry.
    await core.parameters.put(
      "acme",
      { layer: "agent", agentId: "gw-new-1" },
      {
        name: "site",
        value: { value: "north" },
        updatedAt: 0,
        updatedBy: "ops",
      },
    );
    core.hotState.agents.clear();
    core.clock.advance(1_000);
    await core.recordHeartbeat(fleet, agent.full());
    expect(ownReads()).toBe(1);
    expect(core.hotState.agents.get("acme/gw-new-1")?.ownValues).toEqual(
      new Map([["site", { value: "north" }]]),
    );

    // Decommissioned and back, its entry replaced: its values, kept, are read as well.
    core.hotState.agents.clear();
    core.registry.records.clear();
    vi.spyOn(core.registry, "register").mockResolvedValueOnce("returned");
    const back = await core.recordHeartbeat(fleet, agent.full());
    expect(back.firstSight).toBe(true);
    expect(ownReads()).toBe(2);
    expect(core.hotState.agents.get("acme/gw-new-1")?.ownValues).toEqual(
      new Map([["site", { value: "north" }]]),
    );
  });

  it("reads a new agent's values at the cache's version of the groups, and says when the cache did not answer", async () => {
    const core = coreHarness();
    const hintsOfLastRead = () => core.valuesReads.at(-1)?.[3];
    await core.recordHeartbeat(fleet, cppAgentOf("gw-new-1", "gateways").full());
    expect(hintsOfLastRead()).toMatchObject({ groupsVersion: expect.any(String), cacheUnanswered: false });

    core.hotState.down = true;
    await core.recordHeartbeat(fleet, cppAgentOf("gw-new-2", "gateways").full());
    expect(hintsOfLastRead()).toMatchObject({ groupsVersion: undefined, cacheUnanswered: true });
  });

  it("asks the registry about a DESCRIBE the cache lost track of only once a window", async () => {
    const core = coreHarness();
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    core.hotState.agents.clear();
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    const before = core.registry.calls;
    const next = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    expect(next.reply.requestedOperations).toEqual([]);
    expect(core.registry.calls).toBe(before);
  });

  it("asks again once an unanswered DESCRIBE has expired", async () => {
    const core = coreHarness();
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    core.clock.advance(DESCRIBE_RETRY_MS + 1);
    const later = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    expect(later.reply.requestedOperations.map((operation) => operation.operation)).toEqual(["DESCRIBE"]);
  });

  it("takes the manifest from the ack, then sends nothing more", async () => {
    const core = coreHarness();
    const first = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    const operationId = first.reply.requestedOperations[0]?.identifier as string;

    const ack = await core.recordAck(javaAgent, javaAck(operationId));
    expect(ack).toMatchObject({ matched: true, manifestStored: true });
    const manifest = (javaAck(operationId).agentInfo as JsonObject).agentManifest as JsonObject;
    const { manifestId, canonicalJson } = binaryOf(manifest);
    expect(await core.manifestStore.read("acme", manifestId)).toBe(canonicalJson);
    expect(core.registry.records.get("acme/probe-agent-1")?.manifest).toEqual({
      hash: (javaHeartbeat().agentInfo as JsonObject).agentManifestHash,
      manifestId,
      supportedOperations: manifest.supportedOperations,
    });

    const next = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    expect(next.reply.requestedOperations).toEqual([]);
    expect(core.registry.records.get("acme/probe-agent-1")?.pendingDescribe).toBeUndefined();
  });

  it("records a tenant CA's certificate when an agent first presents it, once, however often it calls", async () => {
    const core = coreHarness();
    const validity = vi.fn(() => ({ notBefore: 1_000, notAfter: 2_000 }));
    const customer: AgentCredential = {
      kind: "fleet",
      tenant: "acme",
      fleetName: "*",
      serialNumber: "0123456789ABCDEF.2A",
      tenantCa: { caId: "0123456789ABCDEF", subjectDN: "CN=gw-7,O=Acme Corp", validity },
    };
    const first = await core.recordHeartbeat(customer, javaHeartbeat());
    await core.recordAck(customer, javaAck(first.reply.requestedOperations[0]?.identifier as string));
    expect([...core.certificates.records.values()]).toEqual([
      {
        tenant: "acme",
        serial: "0123456789ABCDEF.2A",
        kind: "fleet",
        fleetName: "*",
        subjectDN: "CN=gw-7,O=Acme Corp",
        notBefore: 1_000,
        notAfter: 2_000,
        issuedAt: core.clock.time,
        issuedBy: "tenant-ca:0123456789ABCDEF",
      },
    ]);
    await core.recordHeartbeat(customer, javaHeartbeat());

    const before = core.backendCalls();
    core.clock.advance(5_000);
    await core.recordHeartbeat(customer, javaHeartbeat());
    const after = core.backendCalls();
    expect({ registry: after.registry - before.registry, cache: after.cache - before.cache }).toEqual({
      registry: 0,
      cache: 1,
    });
    expect(validity).toHaveBeenCalledTimes(1);
    // Another agent the same certificate speaks for: recorded for it too, the store's record unchanged.
    const other = javaHeartbeat();
    other.agentInfo = { ...(other.agentInfo as JsonObject), identifier: "probe-agent-2" };
    await core.recordHeartbeat(customer, other);
    expect(validity).toHaveBeenCalledTimes(2);
    expect(core.certificates.records.size).toBe(1);
  });

  it("records nothing of Beacon's own certificates, nor of a tenant CA's while the cache is down", async () => {
    const core = coreHarness();
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    const validity = vi.fn(() => ({ notBefore: 1_000, notAfter: 2_000 }));
    core.hotState.down = true;
    const customer: AgentCredential = {
      ...javaAgent,
      serialNumber: "0123456789ABCDEF.2A",
      tenantCa: { caId: "0123456789ABCDEF", subjectDN: "CN=probe-agent-1", validity },
    };
    await core.recordHeartbeat(customer, javaHeartbeat());
    expect(validity).not.toHaveBeenCalled();
    expect(core.certificates.records.size).toBe(0);
  });

  it("costs a steady heartbeat one cache round trip, one event and no registry or manifest call", async () => {
    const core = coreHarness();
    const first = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    await core.recordAck(javaAgent, javaAck(first.reply.requestedOperations[0]?.identifier as string));
    await core.recordHeartbeat(javaAgent, javaHeartbeat());

    const before = core.backendCalls();
    core.clock.advance(5_000);
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    const after = core.backendCalls();
    expect({
      registry: after.registry - before.registry,
      classes: after.classes - before.classes,
      manifests: after.manifests - before.manifests,
      cache: after.cache - before.cache,
      events: after.events - before.events,
    }).toEqual({ registry: 0, classes: 0, manifests: 0, cache: 1, events: 1 });
  });

  it("checkpoints last-seen alone to the registry once per the agent's own interval", async () => {
    const core = coreHarness();
    await core.recordHeartbeat(fleet, example("cpp/heartbeat-full.json"));
    const registryCalls = () => core.registry.calls;
    const profileWrites = vi.spyOn(core.registry, "checkpoint");
    const ownInterval = checkpointIntervalOf("9628acfe-b9fe-11ef-a0c0-10f60a596f64", CHECKPOINT_MS);
    expect(ownInterval).not.toBe(CHECKPOINT_MS);

    core.clock.advance(ownInterval - 1);
    let before = registryCalls();
    await core.recordHeartbeat(fleet, example("cpp/heartbeat-light.json"));
    expect(registryCalls() - before).toBe(0);

    core.clock.advance(1);
    before = registryCalls();
    await core.recordHeartbeat(fleet, example("cpp/heartbeat-light.json"));
    expect(registryCalls() - before).toBe(1);
    expect(profileWrites).not.toHaveBeenCalled();
    expect(core.registry.records.get("acme/9628acfe-b9fe-11ef-a0c0-10f60a596f64")?.lastSeen).toBe(
      core.clock.time,
    );
  });

  it("writes a changed device to the profile at the agent's next checkpoint, however often it changed", async () => {
    const core = coreHarness();
    const cpp = example("cpp/heartbeat-light.json");
    const agentId = "9628acfe-b9fe-11ef-a0c0-10f60a596f64";
    await core.recordHeartbeat(fleet, cpp);
    const profileWrites = vi.spyOn(core.registry, "checkpoint");
    const seenWrites = vi.spyOn(core.registry, "recordSeen");
    const withAddress = (ipAddress: string) => {
      const moved = structuredClone(cpp);
      ((moved.deviceInfo as JsonObject).networkInfo as JsonObject).ipAddress = ipAddress;
      return moved;
    };
    // An address that flaps at every heartbeat costs no registry write until the checkpoint is due.
    for (const ipAddress of ["192.0.2.11", "192.0.2.12", "192.0.2.11", "192.0.2.12"]) {
      core.clock.advance(60_000);
      await core.recordHeartbeat(fleet, withAddress(ipAddress));
    }
    expect(profileWrites).not.toHaveBeenCalled();
    core.clock.advance(checkpointIntervalOf(agentId, CHECKPOINT_MS));
    await core.recordHeartbeat(fleet, withAddress("192.0.2.12"));
    expect(profileWrites).toHaveBeenCalledTimes(1);
    expect(seenWrites).not.toHaveBeenCalled();
    expect(core.registry.records.get(`acme/${agentId}`)?.device?.ipAddress).toBe("192.0.2.12");

    // Unchanged since, the next checkpoint writes the last-seen time alone.
    core.clock.advance(checkpointIntervalOf(agentId, CHECKPOINT_MS));
    await core.recordHeartbeat(fleet, withAddress("192.0.2.12"));
    expect(profileWrites).toHaveBeenCalledTimes(1);
    expect(seenWrites).toHaveBeenCalledTimes(1);
  });

  it("writes a changed flow id at once", async () => {
    const core = coreHarness();
    const cpp = example("cpp/heartbeat-light.json");
    await core.recordHeartbeat(fleet, cpp);
    const moved = structuredClone(cpp);
    (moved.flowInfo as JsonObject).flowId = "flow-2";
    core.clock.advance(1_000);
    await core.recordHeartbeat(fleet, moved);
    expect(core.registry.records.get("acme/9628acfe-b9fe-11ef-a0c0-10f60a596f64")?.flowId).toBe("flow-2");
  });

  it("registers a C++ full heartbeat's manifest in the same request, without DESCRIBE", async () => {
    const core = coreHarness();
    const outcome = await core.recordHeartbeat(fleet, example("cpp/heartbeat-full.json"));
    expect(outcome).toMatchObject({ firstSight: true, manifestStored: true, describeSent: false });
    expect(outcome.reply.requestedOperations).toEqual([]);
    expect(core.manifestStore.manifests.size).toBe(1);
  });

  it("keeps the last known class when a minimized C++ heartbeat omits it", async () => {
    const core = coreHarness();
    await core.recordHeartbeat(fleet, example("cpp/heartbeat-light.json"));
    const minimized = example("cpp/heartbeat-light.json");
    const agentInfo = minimized.agentInfo as JsonObject;
    delete agentInfo.agentClass;
    delete minimized.flowInfo;
    delete minimized.deviceInfo;
    const outcome = await core.recordHeartbeat(fleet, minimized);
    expect(outcome.agentClass).toBe("gateways");
  });

  it.each([
    ["a path", "plant/pumps"],
    ["a parent directory", ".."],
    ["a NUL", "pumps\u0000"],
    ["a space", "edge gateways"],
    ["129 characters", "c".repeat(129)],
  ])(
    "ignores a reported class with %s: a new agent joins the default class, a known one keeps its own",
    async (_label, reported) => {
      const core = coreHarness();
      const withClass = (agentClass: string) => {
        const heartbeat = example("cpp/heartbeat-light.json");
        (heartbeat.agentInfo as JsonObject).agentClass = agentClass;
        return heartbeat;
      };
      const newcomer = await core.recordHeartbeat(fleet, withClass(reported));
      expect(newcomer).toMatchObject({ agentClass: "default", refusedAgentClass: reported });
      expect([...core.classes.classes.keys()]).toEqual(["acme/default"]);

      const known = coreHarness();
      await known.recordHeartbeat(fleet, withClass("gateways"));
      const outcome = await known.recordHeartbeat(fleet, withClass(reported));
      expect(outcome).toMatchObject({ agentClass: "gateways", refusedAgentClass: reported });
      expect(known.registry.records.get(`acme/${outcome.agentId}`)?.agentClass).toBe("gateways");
    },
  );

  it("keeps every valid class name as reported", async () => {
    const core = coreHarness();
    for (const agentClass of ["gateways", "edge.gw_2-a", "0", "A".repeat(128)]) {
      const heartbeat = example("cpp/heartbeat-light.json");
      (heartbeat.agentInfo as JsonObject).agentClass = agentClass;
      const outcome = await core.recordHeartbeat(fleet, heartbeat);
      expect(outcome.agentClass).toBe(agentClass);
      expect(outcome.refusedAgentClass).toBeUndefined();
    }
  });

  it("refuses a heartbeat for another agent than the certificate names, recording nothing", async () => {
    const core = coreHarness();
    const other: AgentCredential = {
      kind: "agent",
      tenant: "acme",
      agentId: "someone-else",
      serialNumber: "03",
    };
    await expect(core.recordHeartbeat(other, javaHeartbeat())).rejects.toMatchObject({
      code: "identity_mismatch",
    });
    expect(core.backendCalls()).toEqual({
      registry: 0,
      classes: 0,
      classFlows: 0,
      manifests: 0,
      operations: 0,
      cache: 0,
      events: 0,
    });
  });

  it("refuses a heartbeat that names no agent under a fleet certificate", async () => {
    const core = coreHarness();
    const anonymous = javaHeartbeat();
    delete (anonymous.agentInfo as JsonObject).identifier;
    delete anonymous.agentId;
    await expect(core.recordHeartbeat(fleet, anonymous)).rejects.toBeInstanceOf(BeaconError);
    expect(core.events.events).toEqual([]);
  });

  it("writes a class's registry entry at a later heartbeat when the first write of it failed", async () => {
    const core = coreHarness();
    const write = vi.spyOn(core.classes, "ensure").mockRejectedValueOnce(new Error("the registry is down"));
    await expect(core.recordHeartbeat(javaAgent, javaHeartbeat())).rejects.toThrow("the registry is down");
    expect(core.classes.classes.has("acme/probe-class")).toBe(false);

    core.clock.advance(1_000);
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    expect(core.classes.classes.has("acme/probe-class")).toBe(true);
    expect(write).toHaveBeenCalledTimes(2);
  });

  it("writes the entry of a class an agent moved to at a later heartbeat when the first write of it failed", async () => {
    const core = coreHarness();
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    const moved = () => {
      const heartbeat = javaHeartbeat();
      (heartbeat.agentInfo as JsonObject).agentClass = "probe-class-2";
      return heartbeat;
    };
    core.clock.advance(1_000);
    vi.spyOn(core.classes, "ensure").mockRejectedValueOnce(new Error("the registry is down"));
    await expect(core.recordHeartbeat(javaAgent, moved())).rejects.toThrow("the registry is down");
    expect(core.classes.classes.has("acme/probe-class-2")).toBe(false);

    core.clock.advance(1_000);
    await core.recordHeartbeat(javaAgent, moved());
    expect(core.classes.classes.has("acme/probe-class-2")).toBe(true);
  });

  it("answers correctly from the registry while the cache is down, and uses the cache again after", async () => {
    const core = coreHarness();
    const first = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    await core.recordAck(javaAgent, javaAck(first.reply.requestedOperations[0]?.identifier as string));

    core.hotState.down = true;
    const during = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    expect(during.cacheError).toBeDefined();
    expect(during.reply.requestedOperations).toEqual([]);

    core.hotState.down = false;
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    const before = core.backendCalls();
    const after = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    expect(after.cacheError).toBeUndefined();
    expect(core.backendCalls().registry - before.registry).toBe(0);
  });

  it("asks a new agent to DESCRIBE while the cache is down, and only once", async () => {
    const core = coreHarness();
    core.hotState.down = true;
    const first = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    const second = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    expect(first.reply.requestedOperations).toHaveLength(1);
    expect(second.reply.requestedOperations).toHaveLength(0);
  });

  it("still replies when the stream is down, reporting the failure", async () => {
    const core = coreHarness();
    core.events.failing = true;
    const outcome = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    expect(outcome.streamError).toBeDefined();
    expect(outcome.reply.requestedOperations).toHaveLength(1);
  });

  it("puts the event of a heartbeat whose work failed, with what the heartbeat says, and fails it", async () => {
    const core = coreHarness();
    core.hotState.down = true;
    const registryDown = new Error("DynamoDB out of the request's share");
    core.registry.get = () => Promise.reject(registryDown);
    await expect(core.recordHeartbeat(fleet, example("cpp/heartbeat-full.json"))).rejects.toBe(registryDown);
    expect(core.events.events).toEqual([
      expect.objectContaining({
        type: "heartbeat",
        tenant: "acme",
        agentClass: "gateways",
        firstSight: false,
      }),
    ]);
  });

  it("puts one compact event per heartbeat, never the manifest", async () => {
    const core = coreHarness();
    await core.recordHeartbeat(fleet, example("cpp/heartbeat-full.json"));
    const [event] = core.events.events;
    expect(event).toMatchObject({
      type: "heartbeat",
      tenant: "acme",
      agentClass: "gateways",
      firstSight: true,
    });
    expect(JSON.stringify(event).length).toBeLessThan(2_000);
    expect(event?.type === "heartbeat" && event.status).toMatchObject({ errorBulletins: 1, queueCount: 1 });
    expect(event).toMatchObject({ newErrorBulletins: 1 });
  });

  it("counts as new only the ERROR bulletins an agent had not listed before, all of them after a restart", async () => {
    const core = coreHarness();
    const listing = (ids: number[]) => {
      const heartbeat = example("cpp/heartbeat-full.json");
      const [bulletin] = (heartbeat.flowInfo as { processorBulletins: object[] }).processorBulletins;
      (heartbeat.flowInfo as { processorBulletins: object[] }).processorBulletins = ids.map((id) => ({
        ...bulletin,
        id,
      }));
      return heartbeat;
    };
    for (const ids of [[1], [1], [1, 2, 3], [3], [1]]) await core.recordHeartbeat(fleet, listing(ids));
    const counted = core.events.events.flatMap((event) =>
      event.type === "heartbeat" ? [[event.status?.errorBulletins, event.newErrorBulletins]] : [],
    );
    expect(counted).toEqual([
      [1, 1],
      [1, 0],
      [3, 2],
      [1, 0],
      // Lower than the highest id listed before: the agent restarted and numbers them from 1 again.
      [1, 1],
    ]);
  });

  it("numbers an agent's heartbeat events from the cache's round trip, and leaves unnumbered those the registry answered", async () => {
    const core = coreHarness();
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    core.hotState.down = true;
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    core.hotState.down = false;
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    const sequences = core.events.events
      .filter((event) => event.type === "heartbeat")
      .map((event) => event.sequence);
    expect(sequences).toEqual([1, 2, undefined, 3]);
  });
});

describe("manifests by the binary they describe", () => {
  const registered = (core: ReturnType<typeof coreHarness>, agentId: string) =>
    core.registry.records.get(`acme/${agentId}`);

  it("stores one content for agents of one build, keeping each agent's own hash and operations with it", async () => {
    const core = coreHarness();
    const [first, second] = [cppAgentOf("gw-1", "gateways"), cppAgentOf("gw-2", "gateways")];
    expect(await core.recordHeartbeat(fleet, first.full())).toMatchObject({ manifestStored: true });
    const before = core.backendCalls();
    const outcome = await core.recordHeartbeat(fleet, second.full());
    expect(outcome).toMatchObject({ firstSight: true, manifestStored: false, describeSent: false });
    // The cache knew the binary's content to be stored: no manifest store request.
    expect(core.backendCalls().manifests - before.manifests).toBe(0);
    expect(core.manifestStore.manifests.size).toBe(1);

    const { manifestId } = binaryOf((first.full().agentInfo as JsonObject).agentManifest as JsonObject);
    for (const agent of [first, second]) {
      const manifest = ((agent.full().agentInfo as JsonObject).agentManifest as JsonObject)
        .supportedOperations;
      expect(registered(core, agent.agentId)).toMatchObject({
        manifestHash: agent.manifestHash,
        manifest: { hash: agent.manifestHash, manifestId, supportedOperations: manifest },
      });
    }
    expect(core.events.events.at(-1)).toMatchObject({ manifestHash: second.manifestHash, manifestId });
  });

  it("asks once for the manifest of a hash a changed flow brings, and stores no new content", async () => {
    const core = coreHarness();
    const agent = cppAgentOf("gw-1", "gateways");
    await core.recordHeartbeat(fleet, agent.full());
    const changed = () => {
      const light = agent.light();
      (light.agentInfo as JsonObject).agentManifestHash = "HASH-OF-THE-NEW-FLOW";
      return light;
    };
    const asked = await core.recordHeartbeat(fleet, changed());
    expect(asked.describeSent).toBe(true);
    expect((await core.recordHeartbeat(fleet, changed())).reply.requestedOperations).toEqual([]);
    expect(registered(core, agent.agentId)?.manifestHash).toBe("HASH-OF-THE-NEW-FLOW");

    const ack = agent.describeAck(asked.reply.requestedOperations[0]?.identifier as string);
    (ack.agentInfo as JsonObject).agentManifestHash = "HASH-OF-THE-NEW-FLOW";
    expect(await core.recordAck(fleet, ack)).toMatchObject({ matched: true, manifestStored: false });
    expect(core.manifestStore.manifests.size).toBe(1);
    expect(registered(core, agent.agentId)?.manifest?.hash).toBe("HASH-OF-THE-NEW-FLOW");

    const before = core.backendCalls();
    expect((await core.recordHeartbeat(fleet, changed())).reply.requestedOperations).toEqual([]);
    expect(core.backendCalls().registry - before.registry).toBe(0);
  });

  it("takes the agent's manifest from the registry when the cache lost it, without asking the agent", async () => {
    const core = coreHarness();
    const agent = cppAgentOf("gw-1", "gateways");
    await core.recordHeartbeat(fleet, agent.full());
    core.hotState.agents.clear();

    let before = core.backendCalls();
    const outcome = await core.recordHeartbeat(fleet, agent.light());
    expect(outcome.describeSent).toBe(false);
    expect(core.backendCalls().registry - before.registry).toBe(1);
    before = core.backendCalls();
    await core.recordHeartbeat(fleet, agent.light());
    expect(core.backendCalls().registry - before.registry).toBe(0);
  });

  it("tells the cache the tenant's class again when it lost everything, so that the sweeper looks at the tenant", async () => {
    const core = coreHarness();
    const agent = cppAgentOf("gw-1", "gateways");
    await core.recordHeartbeat(fleet, agent.full());
    core.hotState.agents.clear();
    core.hotState.classes.clear();
    expect(await core.hotState.tenants()).toEqual([]);
    await core.recordHeartbeat(fleet, agent.light());
    expect(await core.hotState.tenants()).toEqual(["acme"]);
    expect(core.hotState.classes.has("acme/gateways")).toBe(true);
  });

  it("asks the manifest store whether it holds a binary neither the cache nor this container knows, and writes nothing it has", async () => {
    const core = coreHarness();
    const first = cppAgentOf("gw-1", "gateways").full();
    const manifest = (first.agentInfo as JsonObject).agentManifest as JsonObject;
    const { manifestId, canonicalJson } = binaryOf(manifest);
    // Another container stored the binary, and the cache has lost that it did.
    await core.manifestStore.store("acme", manifestId, canonicalJson, summarizeManifest(manifest));
    const writes = core.manifestStore.writes;
    const outcome = await core.recordHeartbeat(fleet, first);
    expect(outcome.manifestStored).toBe(false);
    expect(core.manifestStore.writes).toBe(writes);
    expect(core.hotState.storedManifests.get("acme")?.size).toBe(1);
    // Known stored now, the binary costs the next agent of it no store call, even once the cache lost it again.
    core.hotState.storedManifests.clear();
    const calls = core.manifestStore.calls;
    expect((await core.recordHeartbeat(fleet, cppAgentOf("gw-2", "gateways").full())).manifestStored).toBe(
      false,
    );
    expect(core.manifestStore.calls).toBe(calls);
  });
});

describe("reported labels", () => {
  const sources = [
    { label: "agent", from: "property:nifi.c2.agent.identifier" },
    { label: "host", from: "device:hostname" },
    { label: "kind", from: "agent:agentType" },
    { label: "build", from: "agent:version" },
    { label: "site", from: "property:nifi.c2.site" },
  ];
  const withSources = () => {
    const core = coreHarness();
    core.classFlows.labelSources.set("acme/gateways", sources);
    return core;
  };

  it("reads the class's sources from the manifest a new agent brings, with the class's one read its flow shares", async () => {
    const core = withSources();
    const agent = cppAgentOf("gw-1", "gateways");
    await core.recordHeartbeat(fleet, agent.full());
    expect(core.registry.records.get("acme/gw-1")?.reportedLabels).toEqual({
      agent: "gw-1",
      host: "edge-gw-0001",
      kind: "cpp",
      build: "1.0.0",
    });
    expect(core.classFlows.calls).toBe(1);

    // Steady heartbeats, full or light, learn no manifest: nothing is read again, nothing written.
    const before = core.backendCalls();
    await core.recordHeartbeat(fleet, agent.light());
    await core.recordHeartbeat(fleet, agent.full());
    expect(core.backendCalls().classFlows - before.classFlows).toBe(0);
    expect(core.backendCalls().registry - before.registry).toBe(0);
  });

  it("reads them anew from a changed manifest, with the class's sources as the container last read them", async () => {
    const core = withSources();
    const agent = cppAgentOf("gw-1", "gateways");
    await core.recordHeartbeat(fleet, agent.full());
    core.classFlows.labelSources.set("acme/gateways", [{ label: "site", from: "property:nifi.c2.site" }]);

    const changed = agent.full();
    const info = changed.agentInfo as JsonObject;
    const manifest = structuredClone(info.agentManifest) as JsonObject;
    const update = (manifest.supportedOperations as JsonObject[]).find((entry) => entry.type === "update");
    const properties = (((update as JsonObject).properties as JsonObject).properties as JsonObject)
      .availableProperties as JsonObject[];
    properties.push({ propertyName: "nifi.c2.site", validator: "VALID", propertyValue: "plant-7" });
    info.agentManifest = manifest;
    info.agentManifestHash = "HASH-WITH-A-SITE";
    core.clock.advance(1_000);
    await core.recordHeartbeat(fleet, changed);
    // The container read the class's sources a second ago: it uses them for a minute.
    expect(core.registry.records.get("acme/gw-1")?.reportedLabels).toMatchObject({
      agent: "gw-1",
      site: "plant-7",
    });
    expect(core.classFlows.calls).toBe(1);

    (info as JsonObject).agentManifestHash = "HASH-WITH-A-SITE-AGAIN";
    core.clock.advance(LABEL_SOURCES_KEPT_MS);
    await core.recordHeartbeat(fleet, changed);
    expect(core.registry.records.get("acme/gw-1")?.reportedLabels).toEqual({ site: "plant-7" });
  });

  it("reads them from a Java agent's DESCRIBE answer, with the device its heartbeats reported", async () => {
    const core = coreHarness();
    core.classFlows.labelSources.set("acme/probe-class", [
      { label: "os", from: "device:operatingSystem" },
      { label: "build", from: "agent:version" },
      { label: "kind", from: "agent:agentType" },
    ]);
    const first = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    expect(core.registry.records.get("acme/probe-agent-1")?.reportedLabels).toBeUndefined();
    await core.recordAck(javaAgent, javaAck(first.reply.requestedOperations[0]?.identifier as string));
    expect(core.registry.records.get("acme/probe-agent-1")?.reportedLabels).toEqual({
      os: "Linux",
      build: "2.3.0",
      kind: "minifi-java",
    });
    // The heartbeat read the class's settings for its flow: the answer's labels cost no second read.
    expect(core.classFlows.calls).toBe(1);
  });

  it("reads none for a class without sources, and then writes an empty set", async () => {
    const core = coreHarness();
    await core.recordHeartbeat(fleet, cppAgentOf("gw-1", "gateways").full());
    expect(core.registry.records.get("acme/gw-1")?.reportedLabels).toEqual({});
  });
});

describe("catch-up", () => {
  const target = "5e".repeat(32);
  const cppAgent = "cpp-gateway-1";
  /** What the C++ example heartbeat reports as its flow. */
  const exampleFlow = (example("cpp/heartbeat-light.json").flowInfo as JsonObject).flowId as string;
  const classAckTimeoutMs = 90_000;
  const download = `${AGENT_API_URL}/c2/api/flows/${target}/content`;

  /** A C++ agent of class gateways, whose class's policy (in the registry) is to run `target`. */
  function gatewaysFleet(policy: Partial<ClassFlowPolicy> = {}) {
    const core = coreHarness();
    core.classFlows.policies.set("acme/gateways", {
      target,
      accepted: [target],
      ackTimeoutMs: classAckTimeoutMs,
      ...policy,
    });
    /** One heartbeat a second later, replayed from the C++ examples: full (with the manifest) or light. */
    const heartbeat = async (options: { full?: boolean; flowId?: string } = {}) => {
      core.clock.advance(1_000);
      const body = cppHeartbeatOf(cppAgent, "gateways", options.full);
      if (options.flowId) (body.flowInfo as JsonObject).flowId = options.flowId;
      return (await core.recordHeartbeat(fleet, body)).reply.requestedOperations;
    };
    const ack = (operationId: string, state: string) =>
      core.recordAck(fleet, {
        operation: "acknowledge",
        operationId,
        operationState: { state, details: "" },
        agentInfo: { identifier: cppAgent },
      });
    const updates = () =>
      [...core.operationStore.records.values()].filter(
        (record) => record.operation === "UPDATE" && record.operand === "CONFIGURATION",
      );
    return { core, heartbeat, ack, updates };
  }

  it("loads the class's policy, then sends a C++ agent (operations in lower case) the target flow once", async () => {
    const { core, heartbeat, ack, updates } = gatewaysFleet();
    // The cache had no copy of the policy: loaded now, acted on from the next heartbeat.
    expect(await heartbeat({ full: true })).toEqual([]);
    expect(core.classFlows.calls).toBe(1);

    const [update] = await heartbeat();
    expect(update).toEqual({
      identifier: expect.stringMatching(/^op-/),
      operation: "UPDATE",
      operand: "CONFIGURATION",
      args: { location: download, flowId: target, persist: "true" },
    });
    const operationId = update?.identifier as string;
    expect(core.operationStore.records.get(`acme/${cppAgent}/${operationId}`)).toMatchObject({
      state: "delivered",
      createdBy: CATCH_UP_CREATOR,
      ackTimeoutMs: classAckTimeoutMs,
      timeoutAt: core.clock.now() + classAckTimeoutMs,
    });
    // Each of its events names the agent's class, in whose fleet history the operation counts.
    expect(
      core.events.events
        .filter((event) => event.type === "operation")
        .map((event) => [event.state, event.agentClass]),
    ).toEqual([
      ["queued", "gateways"],
      ["delivered", "gateways"],
    ]);

    expect(await heartbeat()).toEqual([]);
    expect((await ack(operationId, "FULLY_APPLIED")).matched).toBe(true);
    expect(await heartbeat({ flowId: target })).toEqual([]);
    core.clock.advance(CATCH_UP_RETRY_MS);
    expect(await heartbeat({ flowId: target })).toEqual([]);
    expect(updates()).toHaveLength(1);
    expect(core.classFlows.calls).toBe(1);
  });

  it("creates nothing while the agent has an UPDATE CONFIGURATION open, such as a rollout's", async () => {
    const { core, heartbeat, updates } = gatewaysFleet();
    await heartbeat({ full: true });
    const rollouts: OperationRecord = {
      tenant: "acme",
      agentId: cppAgent,
      operationId: "op-rollout",
      operation: "UPDATE",
      operand: "CONFIGURATION",
      args: { location: download, flowId: target },
      state: "queued",
      createdAt: core.clock.now(),
      createdBy: "beacon:rollout",
      rolloutId: "rollout-1",
    };
    await core.operations.create([rollouts]);
    core.hotState.markOperationsPending("acme", cppAgent);

    expect((await heartbeat()).map((operation) => operation.identifier)).toEqual(["op-rollout"]);
    // The delivered one is still open when the catch-up's retry window has passed.
    core.clock.advance(CATCH_UP_RETRY_MS);
    expect(await heartbeat()).toEqual([]);
    expect(updates().map((record) => record.operationId)).toEqual(["op-rollout"]);
  });

  it("sends a failed catch-up again only once the retry window has passed", async () => {
    const { core, heartbeat, ack, updates } = gatewaysFleet();
    await heartbeat({ full: true });
    const [first] = await heartbeat();
    await ack(first?.identifier as string, "NOT_APPLIED");

    // Each heartbeat comes a second after the one before: this one a second before the window ends.
    core.clock.advance(CATCH_UP_RETRY_MS - 2_000);
    expect(await heartbeat()).toEqual([]);
    const [again] = await heartbeat();
    expect(again).toMatchObject({ operation: "UPDATE", operand: "CONFIGURATION", args: { flowId: target } });
    expect(updates().map((record) => [record.operationId, record.state])).toEqual([
      [first?.identifier, "failed"],
      [again?.identifier, "delivered"],
    ]);
  });

  it("keeps an agent whose operation failed in its class's attention index until one is carried out", async () => {
    const { core, heartbeat, ack } = gatewaysFleet();
    await heartbeat({ full: true });
    const [first] = await heartbeat();
    const failedAt = core.clock.now();
    await ack(first?.identifier as string, "NOT_APPLIED");
    expect(core.hotState.attentionIndex("acme", "gateways", "operationFailed")).toEqual(
      new Map([[cppAgent, failedAt]]),
    );
    core.clock.advance(CATCH_UP_RETRY_MS);
    const [again] = await heartbeat();
    await ack(again?.identifier as string, "FULLY_APPLIED");
    expect(core.hotState.attentionIndex("acme", "gateways", "operationFailed")).toEqual(new Map());
  });

  it("sends nothing to an agent whose manifest does not list UPDATE CONFIGURATION", async () => {
    const core = coreHarness();
    core.classFlows.policies.set("acme/probe-class", { target, accepted: [target] });
    const first = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    await core.recordAck(javaAgent, javaAck(first.reply.requestedOperations[0]?.identifier as string));

    const next = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    expect(next.reply.requestedOperations).toEqual([]);
    // The cache claimed the catch-up (it knows the manifest); Beacon, reading the manifest, queued nothing.
    expect(core.hotState.catchUps.has("acme/probe-agent-1")).toBe(true);
    expect(core.operationStore.records.size).toBe(0);
  });

  it("costs an agent on an accepted flow one cache round trip and no registry, policy or queue call", async () => {
    const { core, heartbeat } = gatewaysFleet({ accepted: [target, exampleFlow] });
    await heartbeat({ full: true });
    await heartbeat();

    const before = core.backendCalls();
    expect(await heartbeat()).toEqual([]);
    const after = core.backendCalls();
    expect({
      registry: after.registry - before.registry,
      classFlows: after.classFlows - before.classFlows,
      operations: after.operations - before.operations,
      cache: after.cache - before.cache,
    }).toEqual({ registry: 0, classFlows: 0, operations: 0, cache: 1 });
    expect(core.hotState.catchUps.size).toBe(0);
  });

  it("remembers that a class has no policy, asking the registry once", async () => {
    const { core, heartbeat } = gatewaysFleet();
    core.classFlows.policies.clear();
    await heartbeat({ full: true });
    for (let index = 0; index < 3; index++) expect(await heartbeat()).toEqual([]);
    expect(core.classFlows.calls).toBe(1);
  });

  it("sends nothing, whatever flow an agent reports, until the class has a version", async () => {
    const { core, heartbeat, updates } = gatewaysFleet();
    core.classFlows.policies.clear();
    await heartbeat({ full: true });
    for (const flowId of ["incumbent-flow-a", "incumbent-flow-b", exampleFlow])
      expect(await heartbeat({ flowId })).toEqual([]);
    expect(updates()).toHaveLength(0);
  });

  it("counts an agent reporting an adopted version's flow id as on that version, and moves only the others", async () => {
    const { core, heartbeat, updates } = gatewaysFleet({ accepted: [target, "incumbent-flow-a"] });
    await heartbeat({ full: true, flowId: "incumbent-flow-a" });
    core.clock.advance(CATCH_UP_RETRY_MS);
    expect(await heartbeat({ flowId: "incumbent-flow-a" })).toEqual([]);
    expect(updates()).toHaveLength(0);
    expect(await heartbeat({ flowId: "incumbent-flow-b" })).toEqual([
      expect.objectContaining({
        operation: "UPDATE",
        operand: "CONFIGURATION",
        args: expect.objectContaining({ flowId: target }),
      }),
    ]);
  });

  it("catches no agent up while the cache is down, and does once it is back", async () => {
    const { core, heartbeat } = gatewaysFleet();
    await heartbeat({ full: true });
    core.hotState.down = true;
    expect(await heartbeat()).toEqual([]);
    core.hotState.down = false;
    expect(await heartbeat()).toEqual([
      expect.objectContaining({ operation: "UPDATE", operand: "CONFIGURATION" }),
    ]);
  });
});

describe("recordAck", () => {
  it("accepts an ack for an unknown operation, records it and changes nothing else", async () => {
    const core = coreHarness();
    await core.recordHeartbeat(javaAgent, javaHeartbeat());
    const before = structuredClone(core.registry.records.get("acme/probe-agent-1"));
    const outcome = await core.recordAck(javaAgent, javaAck("no-such-operation"));
    expect(outcome).toMatchObject({ matched: false, manifestStored: false });
    expect(core.registry.records.get("acme/probe-agent-1")).toEqual(before);
    expect(core.manifestStore.manifests.size).toBe(0);
    expect(core.events.events.at(-1)).toMatchObject({
      type: "ack",
      operationId: "no-such-operation",
      matched: false,
    });
  });

  it("treats a repeated ack as harmless", async () => {
    const core = coreHarness();
    const first = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    const operationId = first.reply.requestedOperations[0]?.identifier as string;
    await core.recordAck(javaAgent, javaAck(operationId));
    const again = await core.recordAck(javaAgent, javaAck(operationId));
    expect(again).toMatchObject({ matched: false, manifestStored: false });
    expect(core.manifestStore.manifests.size).toBe(1);
  });

  it("keeps a DESCRIBE outstanding when the agent could not apply it", async () => {
    const core = coreHarness();
    const first = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    const operationId = first.reply.requestedOperations[0]?.identifier as string;
    const failed = javaAck(operationId);
    failed.operationState = { state: "NOT_APPLIED", details: "no manifest" };
    await core.recordAck(javaAgent, failed);
    expect(core.registry.records.get("acme/probe-agent-1")?.pendingDescribe?.operationId).toBe(operationId);
    expect(core.manifestStore.manifests.size).toBe(0);
  });

  it("accepts an ack whose change is saved when the stream stays unavailable, handing its events back", async () => {
    const core = coreHarness();
    const first = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    core.events.failing = true;
    const operationId = first.reply.requestedOperations[0]?.identifier as string;
    const outcome = await core.recordAck(javaAgent, javaAck(operationId));
    // Agents never send an ack twice: refusing it now would lose it, and its change is saved.
    expect(outcome).toMatchObject({ matched: true, manifestStored: true, streamError: expect.any(Error) });
    expect(outcome.unpublished).toEqual([
      expect.objectContaining({ type: "ack", operationId, agentId: "probe-agent-1", matched: true }),
    ]);
    expect(core.manifestStore.manifests.size).toBe(1);
    expect(core.registry.records.get("acme/probe-agent-1")?.pendingDescribe).toBeUndefined();
  });

  it("answers an ack whose change is saved by the time it is due, when the stream has not taken its events", async () => {
    const core = coreHarness();
    const first = await core.recordHeartbeat(javaAgent, javaHeartbeat());
    core.events.stalled = true;
    const operationId = first.reply.requestedOperations[0]?.identifier as string;
    const outcome = await core.recordAck(javaAgent, javaAck(operationId), core.clock.now());
    expect(outcome).toMatchObject({ matched: true, streamError: expect.any(PublishNotAwaited) });
    expect(outcome.unpublished).toEqual([expect.objectContaining({ type: "ack", operationId })]);
    expect(core.registry.records.get("acme/probe-agent-1")?.pendingDescribe).toBeUndefined();
  });

  it("finds a DESCRIBE by its id alone, as from an ack that names no agent under a fleet certificate", async () => {
    const core = coreHarness();
    const first = await core.recordHeartbeat(fleet, javaHeartbeat());
    const operationId = first.reply.requestedOperations[0]?.identifier as string;
    expect(operationId).toMatch(/^describe-.+~probe-agent-1$/);
    const { agentInfo, ...anonymous } = javaAck(operationId);
    const outcome = await core.recordAck(fleet, {
      ...anonymous,
      agentInfo: { ...(agentInfo as JsonObject), identifier: undefined },
    });
    expect(outcome).toMatchObject({ matched: true, manifestStored: true, agentId: "probe-agent-1" });
  });

  it("refuses with 403 and records nothing when the ack or the certificate names another agent than the operation's", async () => {
    const core = coreHarness();
    const first = await core.recordHeartbeat(fleet, javaHeartbeat());
    const operationId = first.reply.requestedOperations[0]?.identifier as string;
    const otherAgent: AgentCredential = { ...javaAgent, agentId: "someone-else" };
    const before = { events: core.events.events.length, calls: core.backendCalls() };
    await expect(core.recordAck(otherAgent, javaAck(operationId))).rejects.toMatchObject({
      code: "identity_mismatch",
    });
    const namingAnother = javaAck(operationId);
    (namingAnother.agentInfo as JsonObject).identifier = "someone-else";
    await expect(core.recordAck(fleet, namingAnother)).rejects.toMatchObject({ code: "identity_mismatch" });
    expect(core.events.events.length).toBe(before.events);
    expect(core.backendCalls()).toEqual(before.calls);
    expect(core.registry.records.get("acme/probe-agent-1")?.pendingDescribe?.operationId).toBe(operationId);
  });

  it("stores the C++ DESCRIBE ack's manifest", async () => {
    const core = coreHarness();
    const light = example("cpp/heartbeat-light.json");
    const first = await core.recordHeartbeat(fleet, light);
    const operationId = first.reply.requestedOperations[0]?.identifier as string;
    const ack = { ...example("cpp/ack-describe-manifest.json"), operationId, identifier: operationId };
    const outcome = await core.recordAck(fleet, ack);
    expect(outcome).toMatchObject({
      matched: true,
      manifestStored: true,
      agentId: "9628acfe-b9fe-11ef-a0c0-10f60a596f64",
    });
  });

  it("refuses an ack that is not one", async () => {
    const core = coreHarness();
    await expect(core.recordAck(javaAgent, { operationId: "x" })).rejects.toMatchObject({
      code: "invalid_payload",
    });
  });
});
