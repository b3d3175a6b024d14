import { describe, expect, it } from "vitest";
import { cppDescribeAckOf, example } from "../../../scripts/common/c2-examples.js";
import {
  ACK_TIMEOUT_MS,
  coreHarness,
  MAX_OPERATIONS_PER_REPLY,
  RESULT_RETENTION_MS,
} from "../../../scripts/test-support/core-harness.js";
import type { AgentRecord } from "../agents/ports.js";
import type { SupportedOperations } from "../c2/manifest.js";
import type { BeaconEvent, OperationEvent } from "../events/model.js";
import { OperationStates } from "../events/model.js";
import { relayStaged } from "../events/publishing.js";
import type { AgentCredential } from "../identity/credentials.js";
import type { JsonObject } from "../json.js";
import { operationsOfAgent } from "../manifests/agent-manifest.js";
import { binaryOf } from "../manifests/canonical.js";
import { CATCH_UP_CREATOR } from "./delivery.js";
import { stateAfterAck } from "./effects.js";
import { newOperationId } from "./ids.js";
import { canTransition, type OperationRecord, OperationTransitions } from "./model.js";
import { REDACTED } from "./redaction.js";

const cppFleet: AgentCredential = { kind: "fleet", tenant: "acme", fleetName: "f", serialNumber: "01" };
const agentId = "cpp-1";
const cppHeartbeat = (file: "cpp/heartbeat-full.json" | "cpp/heartbeat-light.json"): JsonObject => {
  const heartbeat = example(file);
  (heartbeat.agentInfo as JsonObject).identifier = agentId;
  return heartbeat;
};
const ack = (operationId: string, state: string, extra: JsonObject = {}): JsonObject => ({
  operation: "acknowledge",
  operationId,
  operationState: { state, ...extra },
  agentInfo: { identifier: agentId },
});

/** A C++ agent Beacon knows, with its manifest (which lists its operations in lower case). */
async function knownCppAgent() {
  const core = coreHarness();
  core.hotState.rememberRevocations("acme", []);
  await core.recordHeartbeat(cppFleet, cppHeartbeat("cpp/heartbeat-full.json"));
  let created = 0;
  const queue = async (operation: string, operand?: string, more: Partial<OperationRecord> = {}) => {
    const record: OperationRecord = {
      tenant: "acme",
      agentId,
      operationId: newOperationId(core.clock.now() + created++, core.ids, agentId),
      operation,
      operand,
      state: "queued",
      createdAt: core.clock.now(),
      createdBy: "tester",
      ...more,
    };
    await core.operations.create([record]);
    core.hotState.markOperationsPending("acme", agentId);
    return record.operationId;
  };
  const heartbeat = async () => {
    core.clock.advance(1_000);
    return (await core.recordHeartbeat(cppFleet, cppHeartbeat("cpp/heartbeat-light.json"))).reply
      .requestedOperations;
  };
  const stateOf = (operationId: string) =>
    core.operationStore.records.get(`acme/${agentId}/${operationId}`)?.state;
  const operationEvents = () =>
    core.events.events.filter((event): event is OperationEvent => event.type === "operation");
  return { core, queue, heartbeat, stateOf, operationEvents };
}

describe("the operation state machine", () => {
  it("allows only queued → delivered → (awaiting_effect →) done | failed | timed_out, and cancelling or timing out a queued one", () => {
    const allowed = OperationStates.flatMap((from) =>
      OperationStates.filter((to) => canTransition(from, to)).map((to) => `${from}→${to}`),
    );
    expect(allowed).toEqual([
      "queued→delivered",
      "queued→timed_out",
      "queued→cancelled",
      "delivered→awaiting_effect",
      "delivered→done",
      "delivered→failed",
      "delivered→timed_out",
      "awaiting_effect→done",
      "awaiting_effect→timed_out",
    ]);
    for (const final of ["done", "failed", "timed_out", "cancelled"] as const)
      expect(OperationTransitions[final]).toEqual([]);
  });

  it("maps acknowledgement states, and awaits the effect of a C++ START or STOP it cannot take the agent's word for", () => {
    const restart = { operation: "RESTART" } as OperationRecord;
    const stopComponent = {
      operation: "STOP",
      operand: "4FE2D51D-076A-49B0-88DE-5CF5ADF52B8F",
    } as OperationRecord;
    const startFlow = { operation: "START", operand: "FLOW" } as OperationRecord;
    const stopAgent = { operation: "STOP", operand: "C2" } as OperationRecord;
    for (const dialect of ["cpp", "java"] as const) {
      expect(stateAfterAck(restart, { state: "FULLY_APPLIED", dialect })).toBe("done");
      expect(stateAfterAck(restart, { state: "NO_OPERATION", dialect })).toBe("done");
      expect(stateAfterAck(restart, { state: "PARTIALLY_APPLIED", dialect })).toBe("done");
      expect(stateAfterAck(restart, { state: "NOT_APPLIED", dialect })).toBe("failed");
      expect(stateAfterAck(restart, { state: "OPERATION_NOT_UNDERSTOOD", dialect })).toBe("failed");
      expect(stateAfterAck(stopComponent, { state: "NOT_APPLIED", dialect })).toBe("failed");
      expect(stateAfterAck(stopAgent, { state: "FULLY_APPLIED", dialect })).toBe("done");
    }
    const syncResources = { operation: "SYNC", operand: "RESOURCE" } as OperationRecord;
    expect(stateAfterAck(syncResources, { state: "FULLY_APPLIED", dialect: "java" })).toBe("done");
    expect(stateAfterAck(syncResources, { state: "PARTIALLY_APPLIED", dialect: "java" })).toBe("failed");
    expect(stateAfterAck(stopComponent, { state: "FULLY_APPLIED", dialect: "cpp" })).toBe("awaiting_effect");
    expect(stateAfterAck(startFlow, { state: "FULLY_APPLIED", dialect: "cpp" })).toBe("awaiting_effect");
    expect(stateAfterAck(startFlow, { state: "FULLY_APPLIED", dialect: "java" })).toBe("done");
  });
});

describe("delivery on heartbeat", () => {
  it("costs a heartbeat with nothing pending no operation store call", async () => {
    const { core, heartbeat } = await knownCppAgent();
    await heartbeat();
    const before = core.backendCalls();
    expect(await heartbeat()).toEqual([]);
    expect(core.backendCalls().operations - before.operations).toBe(0);
    expect(core.backendCalls().cache - before.cache).toBe(1);
  });

  it("delivers at most K per reply in creation order, upper-case, then clears the marker", async () => {
    const { core, queue, heartbeat, stateOf } = await knownCppAgent();
    const ids = [
      await queue("RESTART"),
      await queue("CLEAR", "CONNECTION", { args: { connection: "c-1" } }),
      await queue("STOP", "C2"),
      await queue("START", "C2"),
    ];
    const before = core.backendCalls();
    const first = await heartbeat();
    expect(first.map((operation) => operation.identifier)).toEqual(ids.slice(0, MAX_OPERATIONS_PER_REPLY));
    expect(first[1]).toEqual({
      identifier: ids[1],
      operation: "CLEAR",
      operand: "CONNECTION",
      args: { connection: "c-1" },
    });
    // One read of the queue, one conditional write per delivered operation.
    expect(core.backendCalls().operations - before.operations).toBe(1 + MAX_OPERATIONS_PER_REPLY);
    expect(stateOf(ids[0] as string)).toBe("delivered");
    expect(core.operationStore.records.get(`acme/${agentId}/${ids[0]}`)?.timeoutAt).toBe(
      core.clock.now() + ACK_TIMEOUT_MS,
    );
    expect(core.hotState.pendingOperations.has(`acme/${agentId}`)).toBe(true);

    expect((await heartbeat()).map((operation) => operation.identifier)).toEqual([ids[3]]);
    expect(core.hotState.pendingOperations.has(`acme/${agentId}`)).toBe(false);
    const quiet = core.backendCalls();
    expect(await heartbeat()).toEqual([]);
    expect(core.backendCalls().operations).toBe(quiet.operations);
  });

  it("keeps the marker when an operation was queued while the heartbeat read the queue", async () => {
    const { core, queue, heartbeat } = await knownCppAgent();
    await queue("RESTART");
    const version = core.hotState.pendingOperations.get(`acme/${agentId}`);
    core.hotState.markOperationsPending("acme", agentId);
    await core.hotState.clearOperationsPending("acme", agentId, String(version));
    expect(core.hotState.pendingOperations.has(`acme/${agentId}`)).toBe(true);
    expect(await heartbeat()).toHaveLength(1);
  });

  it("remembers, until the agent's next heartbeat, that a reply restarts it, with when the restart should be over", async () => {
    const { core, queue, heartbeat } = await knownCppAgent();
    const key = `acme/${agentId}`;
    await queue("UPDATE", "CONFIGURATION", { args: { flowId: "f-2" } });
    expect(await heartbeat()).toHaveLength(1);
    expect(core.hotState.restarts.has(key)).toBe(false);

    await queue("RESTART", undefined, { ackTimeoutMs: 60_000 });
    await queue("UPDATE", "PROPERTIES", { args: { "nifi.log.level": "DEBUG" } });
    expect(await heartbeat()).toHaveLength(2);
    expect(core.hotState.restarts.get(key)).toBe(core.clock.now() + ACK_TIMEOUT_MS);
    await heartbeat();
    expect(core.hotState.restarts.has(key)).toBe(false);
  });

  it("delivers a restart while the cache is down, leaving its silence to be announced as any other", async () => {
    const { core, queue, heartbeat, stateOf } = await knownCppAgent();
    const restart = await queue("RESTART");
    core.hotState.down = true;
    expect(await heartbeat()).toEqual([{ identifier: restart, operation: "RESTART" }]);
    expect(stateOf(restart)).toBe("delivered");
    core.hotState.down = false;
    expect(core.hotState.restarts.size).toBe(0);
  });

  it("marks PAUSE and RESUME done on delivery: agents never acknowledge them", async () => {
    const { queue, heartbeat, stateOf, operationEvents } = await knownCppAgent();
    const pause = await queue("PAUSE");
    expect(await heartbeat()).toEqual([{ identifier: pause, operation: "PAUSE" }]);
    expect(stateOf(pause)).toBe("done");
    expect(operationEvents().map((event) => `${event.from}→${event.state}`)).toEqual([
      "queued→delivered",
      "delivered→done",
    ]);
  });

  it("never delivers what the manifest does not list, and cancels it with the reason", async () => {
    const { queue, heartbeat, stateOf, core } = await knownCppAgent();
    const unlisted = await queue("START", "FLOW");
    expect(await heartbeat()).toEqual([]);
    expect(stateOf(unlisted)).toBe("cancelled");
    expect(core.operationStore.records.get(`acme/${agentId}/${unlisted}`)?.reason).toMatch(/no longer lists/);
  });

  it("holds an operation until the one it depends on is done, and cancels it when that one fails", async () => {
    const { core, queue, heartbeat, stateOf } = await knownCppAgent();
    const first = await queue("STOP", "C2");
    const second = await queue("START", "C2", { dependsOn: [first] });
    expect((await heartbeat()).map((operation) => operation.identifier)).toEqual([first]);
    expect(await heartbeat()).toEqual([]);
    await core.recordAck(cppFleet, ack(first, "FULLY_APPLIED"));
    expect((await heartbeat()).map((operation) => operation.identifier)).toEqual([second]);

    const third = await queue("STOP", "C2");
    const fourth = await queue("START", "C2", { dependsOn: [third] });
    const fifth = await queue("RESTART", undefined, { dependsOn: [fourth] });
    await heartbeat();
    await core.recordAck(cppFleet, ack(third, "NOT_APPLIED", { failureCause: "no" }));
    expect([stateOf(third), stateOf(fourth), stateOf(fifth)]).toEqual(["failed", "cancelled", "cancelled"]);
  });
});

describe("a DESCRIBE MANIFEST asked through the console", () => {
  /** The C++ agent's answer: the manifest of a hash new to Beacon, of a build the tenant does not hold. */
  function describeAck(operationId: string) {
    const ack: JsonObject = {
      ...example("cpp/ack-describe-manifest.json"),
      operationId,
      identifier: operationId,
    };
    const agentInfo = ack.agentInfo as JsonObject;
    const manifest = agentInfo.agentManifest as JsonObject;
    manifest.buildInfo = { ...(manifest.buildInfo as JsonObject), revision: "0".repeat(40) };
    Object.assign(agentInfo, { identifier: agentId, agentManifestHash: "NEW-BUILD-HASH" });
    return { ack, manifestId: binaryOf(manifest).manifestId };
  }

  it("keeps the manifest its ack brings before closing it; one that cannot be stored refuses the ack, changing nothing", async () => {
    const { core, queue, heartbeat, stateOf } = await knownCppAgent();
    const operationId = await queue("DESCRIBE", "MANIFEST");
    expect((await heartbeat()).map((operation) => operation.identifier)).toEqual([operationId]);
    const { ack: answer, manifestId } = describeAck(operationId);

    core.manifestStore.failing = true;
    const before = {
      agent: structuredClone(core.registry.records.get(`acme/${agentId}`)),
      events: core.events.events.length,
    };
    await expect(core.recordAck(cppFleet, answer)).rejects.toThrow("manifest store unavailable");
    expect(stateOf(operationId)).toBe("delivered");
    expect(core.registry.records.get(`acme/${agentId}`)).toEqual(before.agent);
    expect(core.events.events.length).toBe(before.events);

    core.manifestStore.failing = false;
    expect(await core.recordAck(cppFleet, answer)).toMatchObject({ matched: true, manifestStored: true });
    expect(stateOf(operationId)).toBe("done");
    expect(core.manifestStore.manifests.has(`acme/${manifestId}`)).toBe(true);
    expect(core.registry.records.get(`acme/${agentId}`)?.manifest).toMatchObject({
      hash: "NEW-BUILD-HASH",
      manifestId,
    });
  });
});

describe("the answer of a DESCRIBE asked through the console", () => {
  const kept = (core: ReturnType<typeof coreHarness>, operationId: string) => {
    const bytes = core.results.objects.get(`acme/${operationId}`);
    return bytes && (JSON.parse(new TextDecoder().decode(bytes)) as JsonObject);
  };

  it("is kept, redacted, before the acknowledgement closes the operation, which records its size and expiry; the stream never carries it", async () => {
    const { core, queue, heartbeat, stateOf } = await knownCppAgent();
    const operationId = await queue("DESCRIBE", "CONFIGURATION");
    expect((await heartbeat()).map((operation) => operation.identifier)).toEqual([operationId]);
    const statesAtPut: (string | undefined)[] = [];
    const put = core.results.put.bind(core.results);
    core.results.put = (tenant, id, bytes) => {
      statesAtPut.push(stateOf(id));
      return put(tenant, id, bytes);
    };

    const outcome = await core.recordAck(cppFleet, cppDescribeAckOf(agentId, operationId, "CONFIGURATION"));
    const answer = kept(core, operationId) as JsonObject;
    expect(statesAtPut).toEqual(["delivered"]);
    expect(answer.configuration_options).toMatchObject({
      "nifi.c2.agent.class": "pumps",
      "nifi.c2.rest.api.token": REDACTED,
    });
    expect(answer).not.toHaveProperty("agentInfo");
    const bytes = core.results.objects.get(`acme/${operationId}`)?.length;
    expect(outcome).toMatchObject({ matched: true, resultBytes: bytes });
    expect(outcome.resultError).toBeUndefined();
    const record = core.operationStore.records.get(`acme/${agentId}/${operationId}`);
    expect(record).toMatchObject({
      state: "done",
      result: { bytes, storedAt: core.clock.now(), expiresAt: core.clock.now() + RESULT_RETENTION_MS },
    });
    const onStream = JSON.stringify(core.events.events);
    expect(onStream).toContain(operationId);
    expect(onStream).not.toContain("configuration_options");
    expect(onStream).not.toContain("nifi.c2.agent.class");
  });

  it("that cannot be kept does not refuse the acknowledgement: the operation closes, its result marked lost", async () => {
    const { core, queue, heartbeat, stateOf } = await knownCppAgent();
    const operationId = await queue("DESCRIBE", "JSTACK");
    await heartbeat();
    core.results.failing = new Error("bucket unreachable");

    const outcome = await core.recordAck(cppFleet, cppDescribeAckOf(agentId, operationId, "JSTACK"));
    expect(outcome).toMatchObject({ matched: true, resultError: core.results.failing });
    expect(outcome.resultBytes).toBeUndefined();
    expect(stateOf(operationId)).toBe("done");
    const record = core.operationStore.records.get(`acme/${agentId}/${operationId}`);
    expect(record?.resultLost).toBe(true);
    expect(record?.result).toBeUndefined();
  });

  it("is not kept from a failed, a duplicate or an unknown operation's acknowledgement", async () => {
    const { core, queue, heartbeat, stateOf } = await knownCppAgent();
    const failed = await queue("DESCRIBE", "METRICS");
    const answered = await queue("DESCRIBE", "CORECOMPONENTSTATE");
    await heartbeat();
    const notApplied = {
      ...cppDescribeAckOf(agentId, failed, "METRICS"),
      operationState: { state: "NOT_APPLIED" },
    };
    await core.recordAck(cppFleet, notApplied);
    expect(stateOf(failed)).toBe("failed");
    expect(kept(core, failed)).toBeUndefined();

    await core.recordAck(cppFleet, cppDescribeAckOf(agentId, answered, "CORECOMPONENTSTATE"));
    const puts = core.results.calls;
    const duplicate = await core.recordAck(
      cppFleet,
      cppDescribeAckOf(agentId, answered, "CORECOMPONENTSTATE"),
    );
    const unknown = newOperationId(core.clock.now(), core.ids, agentId);
    await core.recordAck(cppFleet, cppDescribeAckOf(agentId, unknown, "CORECOMPONENTSTATE"));
    expect(duplicate).toMatchObject({ matched: false });
    expect(duplicate.resultBytes).toBeUndefined();
    expect(core.results.calls).toBe(puts);
    expect(kept(core, unknown)).toBeUndefined();
  });
});

describe("a TRANSFER DEBUG", () => {
  /** Delivered to the C++ agent, whose manifest lists TRANSFER DEBUG. */
  async function delivered() {
    const agent = await knownCppAgent();
    const operationId = await agent.queue("TRANSFER", "DEBUG", {
      args: { target: `https://bundles.beacon.test/c2/debug-bundles/x` },
    });
    expect((await agent.heartbeat()).map((operation) => operation.identifier)).toEqual([operationId]);
    return { ...agent, operationId };
  }

  it("is done when its agent acknowledges it and its bundle is stored, confirmed by both", async () => {
    const { core, operationId, stateOf, operationEvents } = await delivered();
    const now = core.clock.now();
    await core.debugBundles.create({
      tenant: "acme",
      agentId,
      operationId,
      uploadId: "u-1",
      bytes: 2048,
      storedAt: now,
      expiresAt: now + 86_400_000,
    });
    await core.recordAck(cppFleet, ack(operationId, "FULLY_APPLIED"));
    expect(stateOf(operationId)).toBe("done");
    expect(core.operationStore.records.get(`acme/${agentId}/${operationId}`)).toMatchObject({
      confirmedBy: "bundle",
      bundle: { bytes: 2048, storedAt: now, expiresAt: now + 86_400_000 },
    });
    expect(operationEvents().at(-1)).toMatchObject({ state: "done", confirmedBy: "bundle" });
  });

  it("acknowledged as applied without a stored bundle fails, saying so", async () => {
    const { core, operationId, stateOf, operationEvents } = await delivered();
    await core.recordAck(cppFleet, ack(operationId, "FULLY_APPLIED"));
    expect(stateOf(operationId)).toBe("failed");
    expect(operationEvents().at(-1)).toMatchObject({
      state: "failed",
      ackState: "FULLY_APPLIED",
      reason: "The agent acknowledged TRANSFER DEBUG as applied, but no debug bundle of it was stored",
    });
  });

  it("fails as its agent says when the upload failed (a bundle over the limit)", async () => {
    const { core, operationId, stateOf } = await delivered();
    await core.recordAck(cppFleet, ack(operationId, "NOT_APPLIED", { details: "HTTP 413" }));
    expect(stateOf(operationId)).toBe("failed");
    expect(core.operationStore.records.get(`acme/${agentId}/${operationId}`)).toMatchObject({
      details: "HTTP 413",
    });
    expect(core.operationStore.records.get(`acme/${agentId}/${operationId}`)?.reason).toBeUndefined();
  });
});

describe("an operation the heartbeat ensures", () => {
  /** An UPDATE CONFIGURATION as catch-up makes it, and the agent's supported operations to deliver it by. */
  async function catchUpOf(core: Awaited<ReturnType<typeof knownCppAgent>>["core"], flowId: string) {
    const supported = operationsOfAgent(
      (await core.registry.get("acme", agentId)) as AgentRecord,
    ) as SupportedOperations;
    const record: OperationRecord = {
      tenant: "acme",
      agentId,
      operationId: newOperationId(core.clock.now(), core.ids, agentId),
      operation: "UPDATE",
      operand: "CONFIGURATION",
      args: { location: `https://agents.test/c2/api/flows/${flowId}/content`, flowId },
      state: "queued",
      createdAt: core.clock.now(),
      createdBy: "beacon:catch-up",
    };
    return { record, supported };
  }

  it("is created with its event and delivered, in the one read of the queue", async () => {
    const { core, stateOf } = await knownCppAgent();
    const { record, supported } = await catchUpOf(core, "flow-1");
    const before = core.backendCalls().operations;

    const delivery = await core.operations.deliver("acme", agentId, supported, 5, { ensure: record });
    expect(delivery.operations).toEqual([
      { identifier: record.operationId, operation: "UPDATE", operand: "CONFIGURATION", args: record.args },
    ]);
    expect(delivery.events.map((event) => `${event.from ?? "-"}→${event.state}`)).toEqual([
      "-→queued",
      "queued→delivered",
    ]);
    // The read of the queue, the creation and the delivery.
    expect(core.backendCalls().operations - before).toBe(3);
    expect(stateOf(record.operationId)).toBe("delivered");
  });

  it("is not created while one of the same operation and operand is queued or delivered", async () => {
    const { core, queue, stateOf } = await knownCppAgent();
    const queued = await queue("UPDATE", "CONFIGURATION", { args: { location: "l", flowId: "flow-0" } });
    await queue("UPDATE", "PROPERTIES", { args: { "nifi.log.level": "DEBUG" } });
    const first = await catchUpOf(core, "flow-1");
    const delivery = await core.operations.deliver("acme", agentId, first.supported, 5, {
      ensure: first.record,
    });
    expect(delivery.operations.map((operation) => operation.identifier)).toHaveLength(2);
    expect(delivery.operations[0]?.identifier).toBe(queued);
    expect(stateOf(first.record.operationId)).toBeUndefined();

    const second = await catchUpOf(core, "flow-1");
    expect(
      await core.operations.deliver("acme", agentId, second.supported, 5, { ensure: second.record }),
    ).toEqual({
      operations: [],
      events: [],
      remaining: false,
    });
    expect(stateOf(second.record.operationId)).toBeUndefined();
  });
});

describe("UPDATE CONFIGURATION, one in flight at a time", () => {
  const flowUpdate = (flowId: string, createdBy: string): Partial<OperationRecord> => ({
    args: { location: `https://agents.test/c2/api/flows/${flowId}/content`, flowId },
    createdBy,
  });

  it("sends a rollout's update and cancels the catch-up queued beside it, whichever came first", async () => {
    const { queue, heartbeat, stateOf, operationEvents } = await knownCppAgent();
    const catchUp = await queue("UPDATE", "CONFIGURATION", flowUpdate("previous", CATCH_UP_CREATOR));
    const rollout = await queue("UPDATE", "CONFIGURATION", flowUpdate("next", "beacon:rollout:r-1"));
    const lateCatchUp = await queue("UPDATE", "CONFIGURATION", flowUpdate("previous", CATCH_UP_CREATOR));
    expect((await heartbeat()).map((operation) => operation.identifier)).toEqual([rollout]);
    expect([stateOf(catchUp), stateOf(rollout), stateOf(lateCatchUp)]).toEqual([
      "cancelled",
      "delivered",
      "cancelled",
    ]);
    const cancelled = operationEvents().filter((event) => event.state === "cancelled");
    expect(cancelled.map((event) => [event.operationId, event.reason])).toEqual([
      [catchUp, `A newer UPDATE CONFIGURATION replaced it: ${rollout}`],
      [lateCatchUp, `A newer UPDATE CONFIGURATION replaced it: ${rollout}`],
    ]);
    expect(await heartbeat()).toEqual([]);
  });

  it("holds a queued update while one delivered before is open, and sends it once that one closes", async () => {
    const { core, queue, heartbeat, stateOf } = await knownCppAgent();
    const first = await queue("UPDATE", "CONFIGURATION", flowUpdate("previous", CATCH_UP_CREATOR));
    expect((await heartbeat()).map((operation) => operation.identifier)).toEqual([first]);
    const second = await queue("UPDATE", "CONFIGURATION", flowUpdate("next", "beacon:rollout:r-1"));
    const restart = await queue("RESTART");
    expect((await heartbeat()).map((operation) => operation.identifier)).toEqual([restart]);
    expect(stateOf(second)).toBe("queued");
    expect(await heartbeat()).toEqual([]);
    await core.recordAck(cppFleet, ack(first, "FULLY_APPLIED"));
    expect((await heartbeat()).map((operation) => operation.identifier)).toEqual([second]);
  });
});

describe("acknowledgement timeouts", () => {
  it("run from delivery for the operation's own time when it carries one, else the service's", async () => {
    const { core, queue, heartbeat } = await knownCppAgent();
    const own = await queue("RESTART", undefined, { ackTimeoutMs: 45_000 });
    const service = await queue("STOP", "C2");
    await heartbeat();
    const recordOf = (operationId: string) =>
      core.operationStore.records.get(`acme/${agentId}/${operationId}`);
    expect(recordOf(own)).toMatchObject({
      timeoutAt: core.clock.now() + 45_000,
      dueAt: core.clock.now() + 45_000,
    });
    expect(recordOf(service)?.timeoutAt).toBe(core.clock.now() + ACK_TIMEOUT_MS);
  });
});

describe("acknowledgements", () => {
  it("close a delivered operation once; duplicate, late and unknown ones change nothing", async () => {
    const { core, queue, heartbeat, stateOf, operationEvents } = await knownCppAgent();
    const partial = await queue("CLEAR", "CONNECTION", { args: { connection: "c-1" } });
    const failing = await queue("RESTART");
    await heartbeat();

    const outcome = await core.recordAck(cppFleet, ack(partial, "PARTIALLY_APPLIED", { details: "half" }));
    expect(outcome.matched).toBe(true);
    expect(core.operationStore.records.get(`acme/${agentId}/${partial}`)).toMatchObject({
      state: "done",
      ackState: "PARTIALLY_APPLIED",
      details: "half",
    });
    await core.recordAck(
      cppFleet,
      ack(failing, "OPERATION_NOT_UNDERSTOOD", { details: "what?", failureCause: "unknown" }),
    );
    expect(core.operationStore.records.get(`acme/${agentId}/${failing}`)).toMatchObject({
      state: "failed",
      details: "what?",
      failureCause: "unknown",
    });

    const events = operationEvents().length;
    expect((await core.recordAck(cppFleet, ack(partial, "NOT_APPLIED"))).matched).toBe(false);
    expect((await core.recordAck(cppFleet, ack("op-unknown", "FULLY_APPLIED"))).matched).toBe(false);
    const cancelled = await queue("RESTART");
    const record = core.operationStore.records.get(`acme/${agentId}/${cancelled}`) as OperationRecord;
    expect((await core.operations.cancel(record, "changed my mind")).cancelled).toBe(true);
    expect((await core.recordAck(cppFleet, ack(cancelled, "FULLY_APPLIED"))).matched).toBe(false);
    expect(stateOf(partial)).toBe("done");
    expect(stateOf(cancelled)).toBe("cancelled");
    // The acks that changed nothing put no operation event on the stream.
    expect(operationEvents().length).toBe(events);
  });

  it("keep an accepted ack's change and its event together through a stream outage: staged, relayed once", async () => {
    const { core, queue, heartbeat, stateOf, operationEvents } = await knownCppAgent();
    const restart = await queue("RESTART");
    const skipped = await queue("RESTART");
    await heartbeat();
    const doneEventsOf = (events: BeaconEvent[], operationId: string) =>
      events.filter(
        (event) => event.type === "operation" && event.operationId === operationId && event.state === "done",
      );
    const later = () => core.clock.now() + 1;

    // On the stream: the event is forgotten by the outbox at once.
    await core.recordAck(cppFleet, ack(skipped, "FULLY_APPLIED"));
    expect(doneEventsOf(await core.outbox.pending(later(), 100), skipped)).toEqual([]);

    core.events.failing = true;
    const outcome = await core.recordAck(cppFleet, ack(restart, "FULLY_APPLIED"));
    expect(outcome).toMatchObject({ matched: true, streamError: expect.any(Error) });
    expect(stateOf(restart)).toBe("done");
    expect(doneEventsOf(await core.outbox.pending(later(), 100), restart)).toHaveLength(1);

    core.events.failing = false;
    expect((await relayStaged(core.outbox, core.events, later(), 100)).relayed).toBeGreaterThan(0);
    expect(doneEventsOf(operationEvents(), restart)).toHaveLength(1);
    expect(await core.outbox.pending(later(), 100)).toEqual([]);
    await relayStaged(core.outbox, core.events, later(), 100);
    expect(doneEventsOf(operationEvents(), restart)).toHaveLength(1);
  });

  it("report dependents a failure cancelled even when a racing move closed the operation first", async () => {
    const { core, queue, heartbeat, stateOf, operationEvents } = await knownCppAgent();
    const stop = await queue("STOP", "C2");
    const start = await queue("START", "C2", { dependsOn: [stop] });
    await heartbeat();
    // The sweeper times the operation out between the ack reading it and moving it.
    const stored = core.operationStore.records.get(`acme/${agentId}/${stop}`) as OperationRecord;
    const stale = { ...stored };
    stored.state = "timed_out";
    const read = core.operationStore.get.bind(core.operationStore);
    core.operationStore.get = async (...args) =>
      (await read(...args))?.operationId === stop ? stale : read(...args);
    await core.recordAck(cppFleet, ack(stop, "NOT_APPLIED"));
    expect([stateOf(stop), stateOf(start)]).toEqual(["timed_out", "cancelled"]);
    expect(
      operationEvents()
        .filter((event) => event.operationId === start)
        .map((event) => event.state),
    ).toEqual(["cancelled"]);
  });

  it("cancel only while queued", async () => {
    const { core, queue, heartbeat } = await knownCppAgent();
    const restart = await queue("RESTART");
    await heartbeat();
    const record = core.operationStore.records.get(`acme/${agentId}/${restart}`) as OperationRecord;
    expect(await core.operations.cancel(record, "too late")).toEqual({ events: [], cancelled: false });
    expect(record.state).toBe("delivered");
  });
});

describe("done means the effect is seen", () => {
  /** The C++ example heartbeat with its one processor's run status, or its flow, as given. */
  const showing = (change: { processor?: string; flowId?: string; minimized?: boolean }): JsonObject => {
    const heartbeat = cppHeartbeat("cpp/heartbeat-light.json");
    const flowInfo = heartbeat.flowInfo as JsonObject;
    if (change.minimized) delete heartbeat.flowInfo;
    if (change.processor)
      (flowInfo.processorStatuses as JsonObject[])[0] = { id: PROCESSOR, runStatus: change.processor };
    if (change.flowId) {
      flowInfo.flowId = change.flowId;
      flowInfo.versionedFlowSnapshotURI = { bucketId: "default", flowId: change.flowId };
    }
    return heartbeat;
  };
  /** The processor of the example flow, which the C++ manifest lists as a START and STOP operand. */
  const PROCESSOR = "4fe2d51d-076a-49b0-88de-5cf5adf52b8f";

  async function agentWith(
    queueIt: (queue: Awaited<ReturnType<typeof knownCppAgent>>["queue"]) => Promise<string>,
  ) {
    const agent = await knownCppAgent();
    const operationId = await queueIt(agent.queue);
    await agent.heartbeat();
    const beat = async (heartbeat: JsonObject) => {
      agent.core.clock.advance(1_000);
      return (await agent.core.recordHeartbeat(cppFleet, heartbeat)).reply.requestedOperations;
    };
    const recordOf = () =>
      agent.core.operationStore.records.get(`acme/${agentId}/${operationId}`) as OperationRecord;
    return { ...agent, operationId, beat, recordOf };
  }

  it("holds a C++ STOP acknowledged FULLY_APPLIED until a heartbeat shows the processor stopped", async () => {
    const { core, operationId, beat, recordOf, operationEvents } = await agentWith((queue) =>
      queue("STOP", PROCESSOR.toUpperCase()),
    );
    expect((await core.recordAck(cppFleet, ack(operationId, "FULLY_APPLIED"))).matched).toBe(true);
    expect(recordOf()).toMatchObject({
      state: "awaiting_effect",
      ackState: "FULLY_APPLIED",
      timeoutAt: core.clock.now() + ACK_TIMEOUT_MS,
    });
    expect(recordOf().confirmedBy).toBeUndefined();
    expect(core.hotState.pendingOperations.has(`acme/${agentId}`)).toBe(true);

    // The agent claimed it, but its processor still runs.
    await beat(showing({ processor: "RUNNING" }));
    expect(recordOf().state).toBe("awaiting_effect");
    // C++ before 0.99.1 writes the run status in mixed case.
    await beat(showing({ processor: "Stopped" }));
    expect(recordOf()).toMatchObject({ state: "done", confirmedBy: "heartbeat", ackState: "FULLY_APPLIED" });
    expect(
      operationEvents()
        .filter((event) => event.operationId === operationId)
        .map((event) => event.state),
    ).toEqual(["delivered", "awaiting_effect", "done"]);
    expect(operationEvents().at(-1)).toMatchObject({ from: "awaiting_effect", confirmedBy: "heartbeat" });
    // Nothing awaits any more: the marker is gone and a steady heartbeat reads no operation.
    expect(core.hotState.pendingOperations.has(`acme/${agentId}`)).toBe(false);
    const before = core.backendCalls().operations;
    await beat(showing({ processor: "STOPPED" }));
    expect(core.backendCalls().operations).toBe(before);
  });

  it("keeps the agent marked when its heartbeat cleared the marker while the acknowledgement was being saved", async () => {
    const { core, operationId, recordOf } = await agentWith((queue) =>
      queue("STOP", PROCESSOR.toUpperCase()),
    );
    const acknowledge = core.operations.acknowledge.bind(core.operations);
    // The heartbeat in between still sees the operation delivered, takes nothing, and clears the marker.
    core.operations.acknowledge = async (...args) => {
      core.hotState.pendingOperations.delete(`acme/${agentId}`);
      return acknowledge(...args);
    };
    await core.recordAck(cppFleet, ack(operationId, "FULLY_APPLIED"));
    expect(recordOf().state).toBe("awaiting_effect");
    expect(core.hotState.pendingOperations.has(`acme/${agentId}`)).toBe(true);
  });

  it("takes the last known run status when a minimized C++ heartbeat leaves the flow out", async () => {
    const { core, operationId, beat, recordOf } = await agentWith(async (queue) => {
      const start = await queue("START", PROCESSOR);
      return start;
    });
    await core.recordAck(cppFleet, ack(operationId, "FULLY_APPLIED"));
    await beat(showing({ minimized: true }));
    // The full example heartbeat showed the processor running before the ack; nothing changed since.
    expect(recordOf()).toMatchObject({ state: "done", confirmedBy: "heartbeat" });
  });

  it("closes an UPDATE CONFIGURATION whose acknowledgement was lost once heartbeats report its flow", async () => {
    const { core, operationId, beat, recordOf, operationEvents } = await agentWith((queue) =>
      queue("UPDATE", "CONFIGURATION", {
        args: { location: "https://agents.test/c2/api/flows/flow-2/content", flowId: "flow-2" },
      }),
    );
    // A steady heartbeat of the old flow reads no operation, whatever is delivered.
    const steady = core.backendCalls().operations;
    await beat(showing({}));
    expect(core.backendCalls().operations).toBe(steady);
    expect(recordOf().state).toBe("delivered");

    const changed = core.backendCalls().operations;
    await beat(showing({ flowId: "flow-2" }));
    expect(recordOf()).toMatchObject({ state: "done", confirmedBy: "heartbeat" });
    expect(recordOf().ackState).toBeUndefined();
    // The heartbeat that reported the new flow read the agent's operations once and closed this one.
    expect(core.backendCalls().operations - changed).toBe(2);
    expect(operationEvents().at(-1)).toMatchObject({ operationId, from: "delivered", state: "done" });

    // The acknowledgement, arriving after all, changes nothing.
    expect((await core.recordAck(cppFleet, ack(operationId, "FULLY_APPLIED"))).matched).toBe(false);
    expect(recordOf().confirmedBy).toBe("heartbeat");
  });

  it("takes the C++ agent's word for what a heartbeat cannot show", async () => {
    const { core, operationId, recordOf } = await agentWith((queue) => queue("STOP", "C2"));
    await core.recordAck(cppFleet, ack(operationId, "FULLY_APPLIED"));
    expect(recordOf()).toMatchObject({ state: "done", confirmedBy: "ack" });
  });
});

describe("delivery", () => {
  it("never hands an operation out twice, however an agent's heartbeats race", async () => {
    const { core, queue, heartbeat, stateOf } = await knownCppAgent();
    const restart = await queue("RESTART");
    // Both heartbeats read the queue before either moves anything.
    const open = core.operationStore.open.bind(core.operationStore);
    let reads = 0;
    let bothRead: () => void = () => {};
    const barrier = new Promise<void>((resolve) => {
      bothRead = resolve;
    });
    core.operationStore.open = async (...args) => {
      const records = await open(...args);
      if (++reads === 2) bothRead();
      await barrier;
      return records;
    };
    const replies = await Promise.all([heartbeat(), heartbeat()]);
    expect(reads).toBe(2);
    expect(replies.flat().map((operation) => operation.identifier)).toEqual([restart]);
    expect(stateOf(restart)).toBe("delivered");
  });
});
