import { expect, it } from "vitest";
import type { CachedAttentionReason } from "../../core/agents/attention.js";
import { LOAD_SAMPLES_KEPT, type LoadSample } from "../../core/agents/load-samples.js";
import type {
  AssignmentCache,
  HotSighting,
  HotSightingResult,
  HotState,
  PinCache,
} from "../../core/agents/ports.js";
import type { SupportedOperations } from "../../core/c2/manifest.js";
import type { RenderedParameter } from "../../core/flows/policy.js";
import type { KnownManifest } from "../../core/manifests/agent-manifest.js";
import { renderedFlowIdOf } from "../../core/parameters/rendered-flow-ids.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);
const CHECKPOINT_MS = 600_000;
const SERIAL = "0A";
const supported: SupportedOperations = { DESCRIBE: ["MANIFEST"], UPDATE: ["CONFIGURATION"] };
/** The manifest of agent-1's hash "manifest-1", as the cache keeps it. */
const known: KnownManifest = { hash: "manifest-1", manifestId: "binary-1", supportedOperations: supported };

/** The agent API's hot state, and what the console tells it: an agent's queue marked, a serial revoked. */
export interface HotStateSubject {
  hotState: HotState;
  markOperationsPending(tenant: string, agentId: string): Promise<void>;
  revokeSerial(tenant: string, serial: string): Promise<void>;
  /** The console's write through of an agent's pin. */
  rememberPin: PinCache["rememberPin"];
  /** The rollout engine's write through of an agent's assignment. */
  rememberAssignment: AssignmentCache["rememberAssignment"];
  /** The class's attention index of a reason: agent id to its score. */
  attention(tenant: string, agentClass: string, reason: CachedAttentionReason): Promise<Map<string, number>>;
  /** The agent's load samples as the console reads them, oldest first. */
  loadSamples(tenant: string, agentId: string): Promise<LoadSample[]>;
  /** The console's change of a group holding values (FleetHotState.groupsChanged). */
  groupsChanged(tenant: string): Promise<void>;
}

/**
 * The heartbeat's one round trip and what feeds it: revocation first, then the sighting recorded and the
 * values in force, the registry checkpoint, the agent's manifest and the binaries stored, an outstanding
 * DESCRIBE, pending operations, and the class's flow policy with the catch-up it claims. Nothing here waits
 * for an expiry.
 */
export const hotStateContract = contract<HotStateSubject>("the hot state", (the) => {
  const sighting = (now: number, change: Partial<HotSighting> = {}): HotSighting => ({
    tenant: the.tenant,
    agentId: "agent-1",
    serialNumber: SERIAL,
    now,
    checkpointIntervalMs: CHECKPOINT_MS,
    catchUpRetryMs: 1_800_000,
    ...change,
  });

  /** Records a sighting that must be recorded, and returns what the heartbeat learns from it. */
  const sighted = async (now: number, change: Partial<HotSighting> = {}): Promise<HotSightingResult> => {
    const outcome = await the.subject.hotState.recordSighting(sighting(now, change));
    if (!outcome.recorded) throw new Error(`the sighting was refused: ${outcome.revocation}`);
    return outcome.sighting;
  };

  const reported = { agentClass: "pumps", manifestHash: "manifest-1", flowId: "flow-1" };

  it("records nothing until it holds the tenant's revocation list, an empty one included", async () => {
    const { hotState } = the.subject;
    expect(await hotState.revocationOf(the.tenant, SERIAL)).toBe("unknown");
    expect(await hotState.recordSighting(sighting(START, reported))).toEqual({
      recorded: false,
      revocation: "unknown",
    });
    await hotState.rememberRevocations(the.tenant, []);
    expect(await hotState.revocationOf(the.tenant, SERIAL)).toBe("clear");
    expect(await hotState.revocationOf(`${the.tenant}-other`, SERIAL)).toBe("unknown");
    // The refused sighting left nothing behind: this is the agent's first.
    expect(await sighted(START + 1, reported)).toMatchObject({
      registered: false,
      previous: { agentClass: undefined, flowId: undefined },
    });
  });

  it("tells whether the calling certificate is the one recorded for the agent, in the same round trip", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    expect((await sighted(START, reported)).certificateRecorded).toBeUndefined();
    await hotState.rememberCertificate(the.tenant, "agent-1", SERIAL);
    expect((await sighted(START + 1)).certificateRecorded).toBe(true);
    // A certificate renewed: the new serial is not the one recorded.
    expect(
      (await sighted(START + 2, { serialNumber: "0123456789ABCDEF.0A" })).certificateRecorded,
    ).toBeUndefined();
    expect((await sighted(START + 3, { agentId: "agent-2" })).certificateRecorded).toBeUndefined();
  });

  it("hands back the highest bulletin id the agent listed before, kept while heartbeats list none", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    expect(await sighted(START, { ...reported, bulletinsThrough: 7 })).toMatchObject({
      previousBulletinsThrough: undefined,
    });
    expect(await sighted(START + 1)).toMatchObject({ previousBulletinsThrough: 7 });
    expect(await sighted(START + 2, { bulletinsThrough: 9 })).toMatchObject({ previousBulletinsThrough: 7 });
    expect(await sighted(START + 3, { bulletinsThrough: 2 })).toMatchObject({ previousBulletinsThrough: 9 });
    expect(await sighted(START + 4)).toMatchObject({ previousBulletinsThrough: 2 });
  });

  it("hands back the resource hash the agent reported before, none for null, as proof a SYNC RESOURCE was applied", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    expect(await sighted(START, { ...reported, resourceHash: null })).toMatchObject({
      previous: { resourceHash: undefined },
    });
    expect(await sighted(START + 1, { resourceHash: "digest-1" })).toMatchObject({
      previous: { resourceHash: undefined },
    });
    // A heartbeat that leaves it out keeps the last one.
    expect(await sighted(START + 2)).toMatchObject({ previous: { resourceHash: "digest-1" } });
    expect(await sighted(START + 3, { resourceHash: "digest-2" })).toMatchObject({
      previous: { resourceHash: "digest-1" },
    });
  });

  it("refuses a revoked certificate before recording anything, and replaces the list it is given", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, ["1A", "2B"]);
    expect(await hotState.revocationOf(the.tenant, "1A")).toBe("revoked");
    expect(await hotState.revocationOf(the.tenant, SERIAL)).toBe("clear");
    await sighted(START, reported);
    expect(
      await hotState.recordSighting(sighting(START + 1, { serialNumber: "2B", flowId: "flow-9" })),
    ).toEqual({ recorded: false, revocation: "revoked" });
    expect(await sighted(START + 2)).toMatchObject({ flowId: "flow-1", previous: { flowId: "flow-1" } });

    await hotState.rememberRevocations(the.tenant, ["3C"]);
    expect(await hotState.revocationOf(the.tenant, "1A")).toBe("clear");
    expect(await hotState.revocationOf(the.tenant, "3C")).toBe("revoked");
  });

  it("refuses a serial the console revokes at once, and holds no list the console's revocation made up", async () => {
    const { hotState, revokeSerial } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    await revokeSerial(the.tenant, SERIAL);
    expect(await hotState.recordSighting(sighting(START, reported))).toEqual({
      recorded: false,
      revocation: "revoked",
    });
    // Without the tenant's list the registry, where the serial already is, stays the one to ask.
    await revokeSerial(`${the.tenant}-other`, SERIAL);
    expect(await hotState.revocationOf(`${the.tenant}-other`, SERIAL)).toBe("unknown");
  });

  it("tells a first sight, then fills in what a minimized heartbeat leaves out", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    expect(await sighted(START, reported)).toEqual({
      registered: false,
      ...reported,
      previous: {},
      checkpointDue: false,
      deviceChanged: false,
      sequence: 1,
      // The class is known, its flow policy not yet.
      classFlowUnknown: true,
      groupsVersion: expect.any(String),
    });
    expect(await sighted(START + 30_000, { runStatus: "RUNNING" })).toEqual({
      registered: false,
      ...reported,
      previous: { agentClass: "pumps", manifestHash: "manifest-1", flowId: "flow-1" },
      checkpointDue: false,
      deviceChanged: false,
      sequence: 2,
      classFlowUnknown: true,
      groupsVersion: expect.any(String),
    });
    expect(await sighted(START + 60_000, { agentClass: "valves", flowId: "flow-2" })).toMatchObject({
      agentClass: "valves",
      manifestHash: "manifest-1",
      flowId: "flow-2",
      previous: { agentClass: "pumps", flowId: "flow-1" },
    });
  });

  it("asks nothing of the class's flow policy for an agent that reports no class", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    expect(await sighted(START, { flowId: "flow-1" })).toEqual({
      registered: false,
      flowId: "flow-1",
      previous: {},
      checkpointDue: false,
      deviceChanged: false,
      sequence: 1,
      classFlowUnknown: false,
      groupsVersion: expect.any(String),
    });
  });

  it("numbers an agent's recorded sightings from 1, and counts none it refused", async () => {
    const { hotState } = the.subject;
    expect(await hotState.recordSighting(sighting(START))).toEqual({
      recorded: false,
      revocation: "unknown",
    });
    await hotState.rememberRevocations(the.tenant, []);
    expect(await sighted(START, reported)).toMatchObject({ sequence: 1 });
    expect(await sighted(START + 1)).toMatchObject({ sequence: 2 });
    expect(await sighted(START + 1, { agentId: "agent-2" })).toMatchObject({ sequence: 1 });
    await the.subject.revokeSerial(the.tenant, "0B");
    const refused = await hotState.recordSighting(sighting(START + 2, { serialNumber: "0B" }));
    expect(refused).toEqual({ recorded: false, revocation: "revoked" });
    expect(await sighted(START + 3)).toMatchObject({ sequence: 3 });
  });

  it("answers an agent about to register the tenant's groups' version, kept until a group holding values changes", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    const first = (await sighted(START, reported)).groupsVersion;
    expect(first).toEqual(expect.any(String));
    expect((await sighted(START + 1, { ...reported, agentId: "agent-2" })).groupsVersion).toBe(first);
    await hotState.markRegistered(the.tenant, "agent-1", {
      now: START,
      ownValues: new Map(),
      agentClass: "pumps",
    });
    // A steady heartbeat is told none: it registers nothing.
    expect((await sighted(START + 2)).groupsVersion).toBeUndefined();
    await the.subject.groupsChanged(the.tenant);
    const changed = (await sighted(START + 3, { ...reported, agentId: "agent-3" })).groupsVersion;
    expect(changed).toEqual(expect.any(String));
    expect(changed).not.toBe(first);
    expect((await sighted(START + 4, { ...reported, agentId: "agent-3" })).groupsVersion).toBe(changed);
  });

  it("claims the registry checkpoint of a registered agent once per interval", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    expect(await sighted(START, reported)).toMatchObject({ registered: false, checkpointDue: false });
    await hotState.markRegistered(the.tenant, "agent-1", {
      now: START,
      ownValues: new Map(),
      agentClass: "pumps",
    });
    const dueAt = async (now: number) => (await sighted(now)).checkpointDue;
    expect(await sighted(START + 1)).toMatchObject({ registered: true, checkpointDue: false });
    expect(await dueAt(START + CHECKPOINT_MS - 1)).toBe(false);
    expect(await dueAt(START + CHECKPOINT_MS)).toBe(true);
    expect(await dueAt(START + CHECKPOINT_MS + 1)).toBe(false);
    expect(await dueAt(START + 2 * CHECKPOINT_MS)).toBe(true);
  });

  it("tells at a registered agent's checkpoint whether it reported another device since the last one", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    const device = { deviceId: "d-1", hostname: "pump-7.plant.example", vCores: 4 };
    const moved = { ...device, hostname: "pump-8.plant.example" };
    const at = async (now: number, change: Partial<HotSighting> = {}) => {
      const { checkpointDue, deviceChanged } = await sighted(now, { ...reported, ...change });
      return { checkpointDue, deviceChanged };
    };
    expect(await at(START, { device })).toEqual({ checkpointDue: false, deviceChanged: false });
    await hotState.markRegistered(the.tenant, "agent-1", {
      now: START,
      ownValues: new Map(),
      agentClass: "pumps",
    });
    // Changed, back, and again: told once, at the checkpoint, even by a heartbeat that reports no device.
    expect(await at(START + 1, { device: moved })).toEqual({ checkpointDue: false, deviceChanged: false });
    expect(await at(START + 2, { device })).toEqual({ checkpointDue: false, deviceChanged: false });
    expect(await at(START + 3, { device: moved })).toEqual({ checkpointDue: false, deviceChanged: false });
    expect(await at(START + CHECKPOINT_MS)).toEqual({ checkpointDue: true, deviceChanged: true });
    expect(await at(START + 2 * CHECKPOINT_MS, { device: moved })).toEqual({
      checkpointDue: true,
      deviceChanged: false,
    });
  });

  it("answers with the agent's binary and operations for the hash its manifest was reported with", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    expect(await sighted(START, reported)).toMatchObject({
      manifestId: undefined,
      supportedOperations: undefined,
    });
    await hotState.rememberAgentManifest(the.tenant, "agent-1", known);
    expect(await sighted(START + 1)).toMatchObject({
      manifestId: "binary-1",
      supportedOperations: supported,
    });
    // A new hash is a manifest to learn, even of the same binary; another agent's or tenant's is not this one's.
    expect(await sighted(START + 2, { manifestHash: "manifest-2" })).toMatchObject({
      manifestId: undefined,
      supportedOperations: undefined,
    });
    await hotState.rememberAgentManifest(the.tenant, "agent-2", { ...known, hash: "manifest-2" });
    await hotState.rememberAgentManifest(`${the.tenant}-other`, "agent-1", { ...known, hash: "manifest-2" });
    expect((await sighted(START + 3)).supportedOperations).toBeUndefined();
    await hotState.rememberAgentManifest(the.tenant, "agent-1", { ...known, hash: "manifest-2" });
    expect((await sighted(START + 4)).supportedOperations).toEqual(supported);
  });

  it("remembers which binaries' content the tenant's manifest store holds", async () => {
    const { hotState } = the.subject;
    expect(await hotState.isManifestStored(the.tenant, "binary-1")).toBe(false);
    await hotState.rememberManifestStored(the.tenant, "binary-1");
    await hotState.rememberManifestStored(the.tenant, "binary-1");
    expect(await hotState.isManifestStored(the.tenant, "binary-1")).toBe(true);
    expect(await hotState.isManifestStored(the.tenant, "binary-2")).toBe(false);
    expect(await hotState.isManifestStored(`${the.tenant}-other`, "binary-1")).toBe(false);
  });

  it("tells of an outstanding DESCRIBE until it is cleared, even one noted before the agent's first sighting", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    await hotState.rememberDescribe(the.tenant, "agent-1", START + 300_000);
    expect((await sighted(START, reported)).describePendingUntil).toBe(START + 300_000);
    await hotState.rememberDescribe(the.tenant, "agent-1", START + 600_000);
    expect((await sighted(START + 1)).describePendingUntil).toBe(START + 600_000);
    await hotState.rememberDescribe(the.tenant, "agent-1", undefined);
    expect((await sighted(START + 2)).describePendingUntil).toBeUndefined();
  });

  it("tells of operations queued since the queue was last found empty, cleared only with the version read", async () => {
    const { hotState, markOperationsPending } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    expect((await sighted(START, reported)).operationsPending).toBeUndefined();
    await markOperationsPending(the.tenant, "agent-1");
    const first = (await sighted(START + 1)).operationsPending as string;
    expect(first).toEqual(expect.any(String));

    // Queued again while the heartbeat looked: its version is stale, and the marker stays.
    await markOperationsPending(the.tenant, "agent-1");
    await hotState.clearOperationsPending(the.tenant, "agent-1", first);
    const second = (await sighted(START + 2)).operationsPending as string;
    expect(second).toEqual(expect.any(String));
    expect(second).not.toBe(first);
    await hotState.clearOperationsPending(the.tenant, "agent-1", second);
    expect((await sighted(START + 3)).operationsPending).toBeUndefined();
  });

  it("remembers each class of a tenant once", async () => {
    const { hotState } = the.subject;
    expect(await hotState.rememberClass(the.tenant, "pumps")).toBe(true);
    expect(await hotState.rememberClass(the.tenant, "pumps")).toBe(false);
    expect(await hotState.rememberClass(the.tenant, "valves")).toBe(true);
    expect(await hotState.rememberClass(`${the.tenant}-other`, "pumps")).toBe(true);
  });

  it("keeps with an agent's registration its class, and the manifest it registered with when it brought one", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    const registered = { now: START, ownValues: new Map(), agentClass: "pumps" };
    expect(await sighted(START, reported)).toMatchObject({
      registered: false,
      supportedOperations: undefined,
    });
    expect(await hotState.markRegistered(the.tenant, "agent-1", { ...registered, manifest: known })).toBe(
      true,
    );
    expect(await sighted(START + 1)).toMatchObject({
      registered: true,
      manifestId: "binary-1",
      supportedOperations: supported,
    });
    const other = { ...reported, agentId: "agent-2" };
    await sighted(START + 2, other);
    expect(await hotState.markRegistered(the.tenant, "agent-2", registered)).toBe(false);
    expect(await sighted(START + 3, other)).toMatchObject({
      registered: true,
      supportedOperations: undefined,
    });
    expect(await hotState.rememberClass(the.tenant, "pumps")).toBe(false);
    expect(await hotState.rememberClass(the.tenant, "valves")).toBe(true);
  });

  it("forgets an agent's registration and its class, as a flush would, and keeps its other agents'", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    const registered = { now: START, ownValues: new Map(), agentClass: "pumps" };
    const other = { ...reported, agentId: "agent-2" };
    await sighted(START, reported);
    await sighted(START, other);
    await hotState.markRegistered(the.tenant, "agent-1", registered);
    await hotState.markRegistered(the.tenant, "agent-2", registered);
    await hotState.rememberClass(`${the.tenant}-other`, "pumps");

    await hotState.forgetRegistration(the.tenant, "agent-1", "pumps");
    expect(await sighted(START + 1)).toMatchObject({ registered: false });
    expect(await sighted(START + 1, other)).toMatchObject({ registered: true });
    expect(await hotState.rememberClass(`${the.tenant}-other`, "pumps")).toBe(false);
    expect(await hotState.markRegistered(the.tenant, "agent-1", registered)).toBe(true);
    expect(await sighted(START + 2)).toMatchObject({ registered: true });
  });

  it("asks for a class's flow policy until it holds one, and a class without one claims no catch-up", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    await hotState.rememberAgentManifest(the.tenant, "agent-1", known);
    const policyAsked = async (now: number) => {
      const { classFlowUnknown, catchUp } = await sighted(now, reported);
      expect(catchUp).toBeUndefined();
      return classFlowUnknown;
    };
    expect(await policyAsked(START)).toBe(true);
    await hotState.rememberClassFlow(the.tenant, "pumps", undefined, 60_000);
    expect(await policyAsked(START + 1)).toBe(false);
    await hotState.rememberClassFlow(
      the.tenant,
      "pumps",
      { target: "flow-1", accepted: ["flow-1"], renderings: [] },
      60_000,
    );
    expect(await policyAsked(START + 2)).toBe(false);
  });

  it("claims catch-up once for an agent on a flow its class does not accept, when it knows the agent's manifest", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    await hotState.rememberClassFlow(
      the.tenant,
      "pumps",
      {
        target: "flow-2",
        accepted: ["flow-2", "flow-3"],
        ackTimeoutMs: 90_000,
        renderings: [],
      },
      60_000,
    );
    // Without its supported operations, nobody can tell whether the agent takes the update.
    expect((await sighted(START, reported)).catchUp).toBeUndefined();
    await hotState.rememberAgentManifest(the.tenant, "agent-1", known);
    expect((await sighted(START + 1)).catchUp).toEqual({
      hash: "flow-2",
      flowId: "flow-2",
      ackTimeoutMs: 90_000,
    });
    // The claim holds off the next catch-up to the same flow.
    expect((await sighted(START + 2)).catchUp).toBeUndefined();

    // A claim for another flow holds nothing off.
    await hotState.rememberClassFlow(
      the.tenant,
      "pumps",
      { target: "flow-4", accepted: ["flow-4"], renderings: [] },
      60_000,
    );
    expect((await sighted(START + 3)).catchUp).toEqual({ hash: "flow-4", flowId: "flow-4" });
    // An agent on an accepted flow is left alone.
    await hotState.rememberClassFlow(
      the.tenant,
      "pumps",
      {
        target: "flow-5",
        accepted: ["flow-1", "flow-5"],
        renderings: [],
      },
      60_000,
    );
    expect((await sighted(START + 4)).catchUp).toBeUndefined();
  });
  it("holds a pinned agent to its pin: never sent the class's flow, sent its pin again when it reports another", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    await hotState.rememberClassFlow(
      the.tenant,
      "pumps",
      { target: "flow-2", accepted: ["flow-2"], ackTimeoutMs: 90_000, renderings: [] },
      60_000,
    );
    await sighted(START, reported);
    await hotState.rememberAgentManifest(the.tenant, "agent-1", known);
    const pin = { flowHash: "flow-1", flowIds: ["flow-1", "adopted-1"], pinnedAt: START, pinnedBy: "ops" };
    // A pin told to an agent the cache does not hold as registered waits for its registry entry.
    await the.subject.rememberPin(the.tenant, "agent-1", pin);
    expect((await sighted(START + 1)).catchUp).toEqual({
      hash: "flow-2",
      flowId: "flow-2",
      ackTimeoutMs: 90_000,
    });
    // Registered with its pin, it is left on its pinned flow, under any of the flow ids it reports running it.
    await hotState.markRegistered(the.tenant, "agent-1", {
      now: START + 2,
      ownValues: new Map(),
      pin,
      agentClass: "pumps",
    });
    expect((await sighted(START + 3, { flowId: "flow-1" })).catchUp).toBeUndefined();
    expect((await sighted(START + 4, { flowId: "adopted-1" })).catchUp).toBeUndefined();
    // Reporting the class's flow, it is sent its pin, by the first of its flow ids, once per retry window.
    expect((await sighted(START + 5, { flowId: "flow-2" })).catchUp).toEqual({
      hash: "flow-1",
      flowId: "flow-1",
      ackTimeoutMs: 90_000,
    });
    expect((await sighted(START + 6, { flowId: "flow-2" })).catchUp).toBeUndefined();
    // Pinned anew by the console, to the class's flow: left there, and sent it after it drifted.
    const repinned = { ...pin, flowHash: "flow-2", flowIds: ["flow-2"] };
    await the.subject.rememberPin(the.tenant, "agent-1", repinned);
    expect((await sighted(START + 7, { flowId: "flow-2" })).catchUp).toBeUndefined();
    expect((await sighted(START + 8, { flowId: "flow-9" })).catchUp).toMatchObject({ hash: "flow-2" });
    // Unpinned, catch-up brings it to the class's target as any other agent.
    await the.subject.rememberPin(the.tenant, "agent-1", undefined);
    await hotState.rememberClassFlow(
      the.tenant,
      "pumps",
      { target: "flow-3", accepted: ["flow-3"], renderings: [] },
      60_000,
    );
    expect((await sighted(START + 9, { flowId: "flow-1" })).catchUp).toEqual({
      hash: "flow-3",
      flowId: "flow-3",
    });
  });
  it("keeps agents with ERROR bulletins by until when they hold, and back-pressured ones, in their class's indexes", async () => {
    const { hotState, attention } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    const errors = () => attention(the.tenant, "pumps", "errorBulletins");
    const backPressure = () => attention(the.tenant, "pumps", "backPressure");
    await sighted(START, { ...reported, errorBulletinsUntil: START + 900_000, backPressured: true });
    await sighted(START, { agentId: "agent-2", agentClass: "pumps", errorBulletinsUntil: START + 1_000 });
    expect(await errors()).toEqual(
      new Map([
        ["agent-1", START + 900_000],
        ["agent-2", START + 1_000],
      ]),
    );
    expect(await backPressure()).toEqual(new Map([["agent-1", START]]));
    // A heartbeat that says nothing of them leaves them; a later error moves its until on, never back.
    await sighted(START + 1);
    await sighted(START + 2, { errorBulletinsUntil: START + 800_000, backPressured: true });
    expect((await errors()).get("agent-1")).toBe(START + 900_000);
    expect(await backPressure()).toEqual(new Map([["agent-1", START]]));
    // Past its until an agent's errors are dropped at the next error recorded; queues below their limits clear it.
    await sighted(START + 2_000, { errorBulletinsUntil: START + 950_000, backPressured: false });
    expect(await errors()).toEqual(new Map([["agent-1", START + 950_000]]));
    expect(await backPressure()).toEqual(new Map());
    // Changing class, the agent takes its reasons along.
    await sighted(START + 3_000, { agentClass: "valves" });
    expect(await errors()).toEqual(new Map());
    expect(await attention(the.tenant, "valves", "errorBulletins")).toEqual(
      new Map([["agent-1", START + 950_000]]),
    );
  });

  it("keeps the outcome of an agent's last operation in the class the cache holds for it", async () => {
    const { hotState, attention } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    const failed = (agentClass: string) => attention(the.tenant, agentClass, "operationFailed");
    await sighted(START, reported);
    await hotState.recordOperationOutcome(the.tenant, "agent-1", "pumps", true, START + 1);
    await hotState.recordOperationOutcome(the.tenant, "agent-1", "pumps", true, START + 2);
    expect(await failed("pumps")).toEqual(new Map([["agent-1", START + 1]]));
    // Changing class, the agent takes it along; an operation queued before the change finds it there.
    await sighted(START + 3, { agentClass: "valves" });
    expect(await failed("valves")).toEqual(new Map([["agent-1", START + 1]]));
    await hotState.recordOperationOutcome(the.tenant, "agent-1", "pumps", false, START + 4);
    expect(await failed("valves")).toEqual(new Map());
    expect(await failed("pumps")).toEqual(new Map());
  });

  it("keeps agents off their class's target, and pinned ones apart, once it knows their manifest and class policy", async () => {
    const { hotState, attention } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    const members = async (reason: CachedAttentionReason) => [
      ...(await attention(the.tenant, "pumps", reason)).keys(),
    ];
    await hotState.rememberClassFlow(
      the.tenant,
      "pumps",
      { target: "flow-2", accepted: ["flow-2"], renderings: [] },
      60_000,
    );
    await sighted(START, reported);
    // Without its supported operations the agent's standing is not decided.
    expect(await members("offTarget")).toEqual([]);
    await hotState.rememberAgentManifest(the.tenant, "agent-1", known);
    await sighted(START + 1);
    expect(await attention(the.tenant, "pumps", "offTarget")).toEqual(new Map([["agent-1", START + 1]]));
    await sighted(START + 2, { flowId: "flow-2" });
    expect(await members("offTarget")).toEqual([]);
    // Pinned, it is pinned whatever it runs, and never off target.
    const pin = { flowHash: "flow-1", flowIds: ["flow-1"], pinnedAt: START, pinnedBy: "ops" };
    await hotState.markRegistered(the.tenant, "agent-1", {
      now: START + 3,
      ownValues: new Map(),
      pin,
      agentClass: "pumps",
    });
    await sighted(START + 4, { flowId: "flow-9" });
    expect(await members("pinned")).toEqual(["agent-1"]);
    expect(await members("offTarget")).toEqual([]);
    await the.subject.rememberPin(the.tenant, "agent-1", undefined);
    await sighted(START + 5, { flowId: "flow-9" });
    expect(await members("pinned")).toEqual([]);
    expect(await members("offTarget")).toEqual(["agent-1"]);
  });

  it("holds an assigned agent to its assignment while the class's target is the one it was assigned over", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    const classFlow = (target: string) =>
      hotState.rememberClassFlow(the.tenant, "pumps", { target, accepted: [target], renderings: [] }, 60_000);
    await classFlow("flow-1");
    await sighted(START, reported);
    await hotState.rememberAgentManifest(the.tenant, "agent-1", known);
    const assignment = {
      flow: "flow-5",
      flowIds: ["flow-5", "adopted-5"],
      over: "flow-1",
      rolloutId: "ro-1",
    };
    await hotState.markRegistered(the.tenant, "agent-1", {
      now: START + 1,
      ownValues: new Map(),
      assignment,
      agentClass: "pumps",
    });
    // Held on its assigned version, under any of its flow ids, and sent it when it reports the class's.
    expect((await sighted(START + 2, { flowId: "flow-5" })).catchUp).toBeUndefined();
    expect((await sighted(START + 3, { flowId: "adopted-5" })).catchUp).toBeUndefined();
    expect((await sighted(START + 4, { flowId: "flow-1" })).catchUp).toEqual({
      hash: "flow-5",
      flowId: "flow-5",
    });
    // A pin comes first.
    const pin = { flowHash: "flow-7", flowIds: ["flow-7"], pinnedAt: START, pinnedBy: "ops" };
    await the.subject.rememberPin(the.tenant, "agent-1", pin);
    expect((await sighted(START + 5, { flowId: "flow-5" })).catchUp).toEqual({
      hash: "flow-7",
      flowId: "flow-7",
    });
    await the.subject.rememberPin(the.tenant, "agent-1", undefined);
    // The class's next target makes it lapse, with nothing written to the agent: it is brought to the target.
    await classFlow("flow-9");
    expect((await sighted(START + 6, { flowId: "flow-5" })).catchUp).toEqual({
      hash: "flow-9",
      flowId: "flow-9",
    });
    // Assigned anew over that target, it holds again; dropped, the class's target counts.
    await the.subject.rememberAssignment(the.tenant, "agent-1", { ...assignment, over: "flow-9" });
    expect((await sighted(START + 7, { flowId: "flow-5" })).catchUp).toBeUndefined();
    expect((await sighted(START + 8, { flowId: "flow-9" })).catchUp).toEqual({
      hash: "flow-5",
      flowId: "flow-5",
    });
    await the.subject.rememberAssignment(the.tenant, "agent-1", undefined);
    expect((await sighted(START + 9, { flowId: "flow-5" })).catchUp).toEqual({
      hash: "flow-9",
      flowId: "flow-9",
    });
  });
  it("holds an agent assigned in a class without a target while the class has none", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    await hotState.rememberClassFlow(the.tenant, "pumps", undefined, 60_000);
    await sighted(START, reported);
    await hotState.rememberAgentManifest(the.tenant, "agent-1", known);
    await hotState.markRegistered(the.tenant, "agent-1", {
      now: START + 1,
      ownValues: new Map(),
      assignment: { flow: "flow-5", flowIds: ["flow-5"], rolloutId: "ro-1" },
      agentClass: "pumps",
    });
    expect((await sighted(START + 2)).catchUp).toEqual({ hash: "flow-5", flowId: "flow-5" });
    await hotState.rememberClassFlow(
      the.tenant,
      "pumps",
      { target: "flow-1", accepted: ["flow-1"], renderings: [] },
      60_000,
    );
    expect((await sighted(START + 3)).catchUp).toBeUndefined();
  });
  it("holds a pinned agent to its pin in a class that has no flow policy", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    await hotState.rememberClassFlow(the.tenant, "pumps", undefined, 60_000);
    await sighted(START, reported);
    await hotState.rememberAgentManifest(the.tenant, "agent-1", known);
    expect((await sighted(START + 1)).catchUp).toBeUndefined();
    await hotState.markRegistered(the.tenant, "agent-1", {
      now: START + 2,
      ownValues: new Map(),
      pin: { flowHash: "flow-7", flowIds: ["flow-7"], pinnedAt: START, pinnedBy: "ops" },
      agentClass: "pumps",
    });
    expect((await sighted(START + 3)).catchUp).toEqual({ hash: "flow-7", flowId: "flow-7" });
  });
  it("holds an agent with values of its own to its own rendering of a version that declares parameters", async () => {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    await hotState.rememberAgentManifest(the.tenant, "agent-1", known);
    const rendering = (hash: string, brokers: string) => {
      const parameters: RenderedParameter[] = [
        { name: "kafka.brokers", sensitive: false, value: { value: brokers } },
        { name: "kafka.password", sensitive: true, value: { secretRef: "ssm:/beacon/acme/kafka" } },
        { name: "site", sensitive: false },
      ];
      return { hash, parameters, flowId: renderedFlowIdOf({ hash, parameters }) };
    };
    const current = rendering("v-2", "class:9092");
    const previous = rendering("v-1", "class:9092");
    await hotState.rememberClassFlow(
      the.tenant,
      "pumps",
      {
        target: "v-2",
        accepted: [previous.flowId, current.flowId, "adopted-7"],
        renderings: [previous, current],
      },
      60_000,
    );
    // Its own values, a plain password among them, which a sensitive parameter passes over as rendering does.
    const own = new Map<string, { value: string } | { secretRef: string }>([
      ["site", { value: "plant 7 — ünïcode" }],
      ["kafka.password", { value: "plain" }],
      ["undeclared", { value: "x" }],
    ]);
    await sighted(START, { ...reported, flowId: current.flowId });
    await hotState.markRegistered(the.tenant, "agent-1", { now: START, ownValues: own, agentClass: "pumps" });
    const ownCurrent = renderedFlowIdOf(current, own);
    const ownPrevious = renderedFlowIdOf(previous, own);
    expect(ownCurrent).not.toBe(current.flowId);
    // The class's rendering is not the agent's: catch-up sends the version by its hash, to the agent's own id.
    expect((await sighted(START + 1, { flowId: current.flowId })).catchUp).toEqual({
      hash: "v-2",
      flowId: ownCurrent,
    });
    expect((await sighted(START + 2, { flowId: current.flowId })).catchUp).toBeUndefined();
    // Its own renderings of every accepted version count as current, and ids no rendering names stay as they are.
    for (const flowId of [ownCurrent, ownPrevious, "adopted-7"])
      expect((await sighted(START + 3, { flowId })).catchUp).toBeUndefined();
    // An agent with no values of its own runs the class's rendering.
    const other = { agentId: "agent-2" };
    await sighted(START + 4, { ...reported, ...other });
    await hotState.markRegistered(the.tenant, "agent-2", {
      now: START + 4,
      ownValues: new Map(),
      agentClass: "pumps",
      manifest: known,
    });
    expect((await sighted(START + 5, { ...other, flowId: current.flowId })).catchUp).toBeUndefined();
    expect((await sighted(START + 6, { ...other, flowId: ownCurrent })).catchUp).toEqual({
      hash: "v-2",
      flowId: current.flowId,
    });
    // A rollout of the class's staged values renders the target a second time: both count as current, and
    // catch-up still brings an agent with values of its own to its rendering of the values in force.
    const staged = rendering("v-2", "new:9092");
    await hotState.rememberClassFlow(
      the.tenant,
      "pumps",
      { target: "v-2", accepted: [current.flowId, staged.flowId], renderings: [current, staged] },
      60_000,
    );
    const third = { agentId: "agent-3" };
    await sighted(START + 7, { ...reported, ...third });
    await hotState.markRegistered(the.tenant, "agent-3", {
      now: START + 7,
      ownValues: own,
      agentClass: "pumps",
      manifest: known,
    });
    expect(
      (await sighted(START + 8, { ...third, flowId: renderedFlowIdOf(staged, own) })).catchUp,
    ).toBeUndefined();
    expect((await sighted(START + 9, { ...third, flowId: ownPrevious })).catchUp).toEqual({
      hash: "v-2",
      flowId: ownCurrent,
    });
  });
  it("keeps the load of an agent's latest heartbeats in the same round trip, newest kept, a minimized one adding none", async () => {
    const { hotState, loadSamples } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    // MiNiFi Java sends its load average only, MiNiFi C++ its CPU utilization and memory too.
    await sighted(START, {
      ...reported,
      system: { cpuLoadAverage: 0.5 },
      status: { queuedFlowFiles: 3, queuedBytes: 30 },
    });
    await sighted(START + 1_000, {
      system: { cpuUtilization: 0.06, cpuLoadAverage: 1.27, memoryUsage: 1_000 },
    });
    await sighted(START + 2_000, { runStatus: "RUNNING" });
    expect(await loadSamples(the.tenant, "agent-1")).toEqual([
      { at: START, cpuLoadAverage: 0.5, queuedFlowFiles: 3, queuedBytes: 30 },
      { at: START + 1_000, cpuUtilization: 0.06, cpuLoadAverage: 1.27, memoryUsage: 1_000 },
    ]);
    for (let beat = 1; beat <= LOAD_SAMPLES_KEPT; beat++)
      await sighted(START + 2_000 + beat, { status: { queuedFlowFiles: beat } });
    const kept = await loadSamples(the.tenant, "agent-1");
    expect(kept).toHaveLength(LOAD_SAMPLES_KEPT);
    expect(kept[0]).toEqual({ at: START + 2_001, queuedFlowFiles: 1 });
    expect(kept.at(-1)).toEqual({
      at: START + 2_000 + LOAD_SAMPLES_KEPT,
      queuedFlowFiles: LOAD_SAMPLES_KEPT,
    });
    expect(await loadSamples(the.tenant, "agent-2")).toEqual([]);
  });
});
