import { expect, it } from "vitest";
import type { HotState } from "../../core/agents/ports.js";
import type { PresenceState } from "../../core/agents/presence.js";
import { contract } from "./contract.js";

const T0 = Date.UTC(2030, 0, 1, 12);
const MINUTE = 60_000;

/** The offline sweep's side of the cache, and the heartbeat's, which schedules each agent's allowance. */
export interface PresenceSubject {
  presence: PresenceState;
  hotState: HotState;
  /** The cache's copy of the class's flow policy and period is gone, as when it expires. */
  forgetClassFlow(tenant: string, className: string): Promise<void>;
  /** The agent is in its class's index of agents by last seen, as a Beacon that did not schedule agents left it. */
  seenUnscheduled(tenant: string, agentId: string, className: string, lastSeen: number): Promise<void>;
}

/**
 * Finding agents that went silent: each heartbeat schedules its agent to be overdue three of its heartbeat
 * periods later (its own, else its class's, else the one it was held to, else a minute); the sweep marks the
 * overdue ones once each, earliest first, a bounded number a call, and a heartbeat clears the mark. An agent
 * restarting for an operation is overdue only three periods after its restart should be over.
 */
export const presenceContract = contract<PresenceSubject>("the presence state", (the) => {
  async function beat(agentId: string, now: number, agentClass = "pumps", manifestHash?: string) {
    const { hotState } = the.subject;
    await hotState.rememberRevocations(the.tenant, []);
    const outcome = await hotState.recordSighting({
      tenant: the.tenant,
      agentId,
      agentClass,
      manifestHash,
      serialNumber: "01",
      now,
      checkpointIntervalMs: 10 * MINUTE,
      catchUpRetryMs: 30 * MINUTE,
    });
    if (!outcome.recorded) throw new Error(`the sighting was refused: ${outcome.revocation}`);
    return outcome.sighting;
  }
  const look = (now: number, limit = 10) => the.subject.presence.markOverdue(the.tenant, now, limit);
  const idsOf = (marked: { marked: { agentId: string }[] }) => marked.marked.map(({ agentId }) => agentId);

  it("marks the agents overdue before now once each, earliest first, a bounded number a call", async () => {
    for (const [index, agentId] of ["p1", "p2", "p3", "p4"].entries()) await beat(agentId, T0 + index);
    await beat("fresh", T0 + 100);
    const now = T0 + 3 * MINUTE + 50;
    expect(await look(now, 2)).toEqual({
      marked: [
        { agentId: "p1", agentClass: "pumps", lastSeen: T0, heartbeatPeriodMs: MINUTE },
        { agentId: "p2", agentClass: "pumps", lastSeen: T0 + 1, heartbeatPeriodMs: MINUTE },
      ],
      more: true,
    });
    expect(idsOf(await look(now, 2))).toEqual(["p3", "p4"]);
    expect(await look(now, 2)).toEqual({ marked: [], more: false });
    // Overdue at exactly now is not overdue yet.
    expect(await look(T0 + 3 * MINUTE + 100)).toEqual({ marked: [], more: false });
    expect(idsOf(await look(T0 + 3 * MINUTE + 101))).toEqual(["fresh"]);
    expect(await the.subject.presence.markOverdue(`${the.tenant}-other`, T0 + 3_600_000, 10)).toEqual({
      marked: [],
      more: false,
    });
  });

  it("goes past many agents silent since the same millisecond without skipping or repeating one", async () => {
    const agents = Array.from({ length: 7 }, (_, index) => `v${index}`);
    for (const agentId of agents) await beat(agentId, T0);
    const marked: string[] = [];
    for (let call = 0; call < 4; call++) marked.push(...idsOf(await look(T0 + 3 * MINUTE + 1, 2)));
    expect(marked.sort()).toEqual(agents);
  });

  it("holds an agent to its manifest's period, else its class's, else the one it was held to, else a minute", async () => {
    const { hotState } = the.subject;
    await hotState.rememberClassFlow(the.tenant, "sensors", undefined, 5_000);
    await beat("own", T0, "sensors", "m-own");
    await beat("class", T0, "sensors", "m-class");
    await hotState.rememberClassFlow(the.tenant, "meters", undefined, 10 * MINUTE);
    await beat("kept", T0, "meters");
    await beat("default", T0, "valves");
    const known = { manifestId: "binary-1", supportedOperations: { DESCRIBE: ["MANIFEST"] } };
    await hotState.rememberAgentManifest(the.tenant, "own", {
      ...known,
      hash: "m-own",
      heartbeatPeriodMs: 2_000,
    });
    await hotState.rememberAgentManifest(the.tenant, "class", { ...known, hash: "m-class" });
    // The cache lost the class's copy: the agent keeps the period it was held to, not a shorter default.
    await the.subject.forgetClassFlow(the.tenant, "meters");
    await beat("kept", T0 + 1, "meters");

    expect(await look(T0 + 6_001)).toEqual({
      marked: [{ agentId: "own", agentClass: "sensors", lastSeen: T0, heartbeatPeriodMs: 2_000 }],
      more: false,
    });
    expect(await look(T0 + 15_001)).toEqual({
      marked: [{ agentId: "class", agentClass: "sensors", lastSeen: T0, heartbeatPeriodMs: 5_000 }],
      more: false,
    });
    expect(idsOf(await look(T0 + 3 * MINUTE + 1))).toEqual(["default"]);
    expect(await look(T0 + 30 * MINUTE + 2)).toEqual({
      marked: [{ agentId: "kept", agentClass: "meters", lastSeen: T0 + 1, heartbeatPeriodMs: 10 * MINUTE }],
      more: false,
    });
  });

  it("holds an agent to its manifest's period only while it reports that manifest", async () => {
    const { hotState } = the.subject;
    await hotState.rememberClassFlow(the.tenant, "sensors", undefined, 5_000);
    await beat("a1", T0, "sensors", "m-1");
    const known = { manifestId: "binary-1", supportedOperations: {}, heartbeatPeriodMs: 20_000 };
    // Learned for another manifest than the one reported: the agent's allowance stays its class's.
    await hotState.rememberAgentManifest(the.tenant, "a1", { ...known, hash: "m-0" });
    expect(idsOf(await look(T0 + 15_001))).toEqual(["a1"]);
    await beat("a1", T0 + 20_000, "sensors", "m-0");
    await beat("a1", T0 + 40_000, "sensors", "m-0");
    expect(idsOf(await look(T0 + 90_000))).toEqual([]);
    await beat("a1", T0 + 60_000, "sensors", "m-2");
    expect(await look(T0 + 75_001)).toMatchObject({ marked: [{ agentId: "a1", heartbeatPeriodMs: 5_000 }] });
  });

  it("leaves an agent that heartbeat again to be marked anew when it next goes silent", async () => {
    await beat("b1", T0);
    expect(idsOf(await look(T0 + 3 * MINUTE + 1))).toEqual(["b1"]);
    const back = await beat("b1", T0 + 5 * MINUTE);
    expect(back.offlineLastSeen).toBe(T0);
    const steady = await beat("b1", T0 + 6 * MINUTE);
    expect(steady.offlineLastSeen).toBeUndefined();
    expect(await look(T0 + 9 * MINUTE)).toEqual({ marked: [], more: false });
    expect(await look(T0 + 9 * MINUTE + 1)).toEqual({
      marked: [{ agentId: "b1", agentClass: "pumps", lastSeen: T0 + 6 * MINUTE, heartbeatPeriodMs: MINUTE }],
      more: false,
    });
  });

  it("marks a restarting agent once three periods past its restart's deadline, though looks went past it", async () => {
    await beat("r1", T0);
    await beat("quiet", T0 + 1);
    await the.subject.hotState.rememberRestart(the.tenant, "r1", T0 + 5 * MINUTE);
    expect(idsOf(await look(T0 + 4 * MINUTE))).toEqual(["quiet"]);
    expect(await look(T0 + 8 * MINUTE)).toEqual({ marked: [], more: false });
    expect(await look(T0 + 8 * MINUTE + 1)).toEqual({
      marked: [{ agentId: "r1", agentClass: "pumps", lastSeen: T0, heartbeatPeriodMs: MINUTE }],
      more: false,
    });
    expect(await look(T0 + 60 * MINUTE)).toEqual({ marked: [], more: false });
  });

  it("never marks a restarting agent that came back, and holds one sent another restart for the later one", async () => {
    const { hotState } = the.subject;
    await beat("back", T0);
    await beat("again", T0);
    await hotState.rememberRestart(the.tenant, "back", T0 + MINUTE);
    await hotState.rememberRestart(the.tenant, "again", T0 + MINUTE);
    expect(idsOf(await look(T0 + 3 * MINUTE + 1))).toEqual([]);
    await beat("back", T0 + 2 * MINUTE);
    await beat("again", T0 + 2 * MINUTE);
    await hotState.rememberRestart(the.tenant, "again", T0 + 6 * MINUTE);
    await beat("back", T0 + 4 * MINUTE);
    expect(idsOf(await look(T0 + 7 * MINUTE))).toEqual([]);
    // The one that came back is announced as any agent is, once silent for three periods.
    expect(await look(T0 + 9 * MINUTE + 1)).toEqual({
      marked: [
        { agentId: "back", agentClass: "pumps", lastSeen: T0 + 4 * MINUTE, heartbeatPeriodMs: MINUTE },
        { agentId: "again", agentClass: "pumps", lastSeen: T0 + 2 * MINUTE, heartbeatPeriodMs: MINUTE },
      ],
      more: false,
    });
  });

  it("counts the restarting agents it schedules anew against its limit", async () => {
    for (const [index, agentId] of ["a", "b", "c", "d"].entries()) await beat(agentId, T0 + index);
    for (const agentId of ["a", "b", "c"])
      await the.subject.hotState.rememberRestart(the.tenant, agentId, T0 + MINUTE);
    expect(await look(T0 + 3 * MINUTE + 10, 2)).toEqual({ marked: [], more: true });
    expect(idsOf(await look(T0 + 3 * MINUTE + 10, 2))).toEqual(["d"]);
    expect(idsOf(await look(T0 + 4 * MINUTE + 1, 2))).toEqual(["a", "b"]);
  });

  it("schedules the agents silent since before scheduling with their class's period, once, a bounded number a call", async () => {
    const { presence } = the.subject;
    for (const [index, agentId] of ["o1", "o2", "o3"].entries())
      await the.subject.seenUnscheduled(the.tenant, agentId, "pumps", T0 + index);
    await beat("h1", T0 + 5);
    expect(await presence.allScheduled(the.tenant)).toBe(false);
    expect(await presence.scheduleSilent(the.tenant, "pumps", 5_000, 2)).toEqual({ read: 2, done: false });
    // The agent a heartbeat scheduled keeps its own schedule.
    expect(await presence.scheduleSilent(the.tenant, "pumps", 5_000, 2)).toEqual({ read: 2, done: false });
    expect(await presence.scheduleSilent(the.tenant, "pumps", 5_000, 2)).toEqual({ read: 0, done: true });
    expect(await presence.scheduleSilent(the.tenant, "valves", 5_000, 2)).toEqual({ read: 0, done: true });
    expect(await look(T0 + 15_003)).toEqual({
      marked: ["o1", "o2", "o3"].map((agentId, index) => ({
        agentId,
        agentClass: "pumps",
        lastSeen: T0 + index,
        heartbeatPeriodMs: 5_000,
      })),
      more: false,
    });
    expect(idsOf(await look(T0 + 3 * MINUTE + 6))).toEqual(["h1"]);
    await presence.markAllScheduled(the.tenant, ["pumps"]);
    expect(await presence.allScheduled(the.tenant)).toBe(true);
    expect(await presence.allScheduled(`${the.tenant}-other`)).toBe(false);
  });
});
