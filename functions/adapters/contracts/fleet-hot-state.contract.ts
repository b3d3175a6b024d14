import { expect, it } from "vitest";
import type { HotSighting } from "../../core/agents/ports.js";
import type { AttentionPosition } from "../../core/fleet/attention-pages.js";
import type { FleetHotState, HotAgentState } from "../../core/fleet/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);
const MINUTE = 60_000;

/** A heartbeat's state as the agent API leaves it in the cache: when it was seen, and what it reported. */
export type Sighting = Omit<HotAgentState, "lastSeen"> & { lastSeen: number } & Pick<
    HotSighting,
    "errorBulletinsUntil" | "backPressured"
  >;

/**
 * The console's view of the hot state, with what fills it (the agent API's sightings) and whether an
 * agent's pending-operation marker is set (what its next heartbeat reads).
 */
export interface FleetHotStateSubject {
  hotState: FleetHotState;
  sight(tenant: string, agentId: string, sighting: Sighting): Promise<void>;
  pendingMarked(tenant: string, agentId: string): Promise<boolean>;
}

export const fleetHotStateContract = contract<FleetHotStateSubject>("the fleet hot state", (the) => {
  const full: Sighting = {
    lastSeen: START,
    agentClass: "pumps",
    manifestHash: "manifest-1",
    flowId: "flow-1",
    runStatus: "RUNNING",
    status: { uptime: 3_600_000, queuedFlowFiles: 3 },
    device: { hostname: "pump-7", vCores: 4 },
    repositories: [{ name: "flowfile", size: 10, maxSize: 100 }],
    queues: [{ id: "q-1", name: "success", size: 3, sizeMax: 10_000 }],
    bulletins: [{ level: "WARN", message: "slow", timestamp: START }],
  };

  it("reads agents' hot state as their heartbeats left it, and nothing of agents it does not hold", async () => {
    const { hotState, sight } = the.subject;
    await sight(the.tenant, "agent-1", full);
    await sight(the.tenant, "agent-2", { lastSeen: START, agentClass: "valves" });
    // A minimized heartbeat leaves what it does not report as it was.
    await sight(the.tenant, "agent-1", { lastSeen: START + MINUTE, runStatus: "STOPPED" });

    const states = await hotState.agents(the.tenant, ["agent-1", "agent-2", "agent-3"]);
    expect([...states.keys()]).toEqual(["agent-1", "agent-2"]);
    expect(states.get("agent-1")).toEqual({ ...full, lastSeen: START + MINUTE, runStatus: "STOPPED" });
    expect(states.get("agent-2")).toEqual({ lastSeen: START, agentClass: "valves" });
    const queues = structuredClone(full.queues);
    states.get("agent-1")?.queues?.push({ id: "changed by its reader" });
    expect((await hotState.agents(the.tenant, ["agent-1"])).get("agent-1")?.queues).toEqual(queues);
    expect(await hotState.agents(`${the.tenant}-other`, ["agent-1"])).toEqual(new Map());
  });

  it("counts a class's agents, and those seen since a time, following an agent that changes class", async () => {
    const { hotState, sight } = the.subject;
    await sight(the.tenant, "agent-1", { lastSeen: START, agentClass: "pumps" });
    await sight(the.tenant, "agent-2", { lastSeen: START + MINUTE, agentClass: "pumps" });
    await sight(the.tenant, "agent-3", { lastSeen: START, agentClass: "valves" });
    const counts = () =>
      hotState.classCounts(the.tenant, [
        { name: "pumps", onlineSince: START + 1 },
        { name: "valves", onlineSince: START },
        { name: "drains", onlineSince: 0 },
      ]);
    expect(await counts()).toEqual(
      new Map([
        ["pumps", { total: 2, online: 1 }],
        ["valves", { total: 1, online: 1 }],
        ["drains", { total: 0, online: 0 }],
      ]),
    );
    await sight(the.tenant, "agent-3", { lastSeen: START + MINUTE, agentClass: "pumps" });
    expect(await counts()).toEqual(
      new Map([
        ["pumps", { total: 3, online: 2 }],
        ["valves", { total: 0, online: 0 }],
        ["drains", { total: 0, online: 0 }],
      ]),
    );
  });

  it("counts the heartbeats of each minute", async () => {
    const { hotState, sight } = the.subject;
    const minute = Math.floor(START / MINUTE);
    await sight(the.tenant, "agent-1", { lastSeen: START, agentClass: "pumps" });
    await sight(the.tenant, "agent-2", { lastSeen: START + 1_000, agentClass: "pumps" });
    await sight(the.tenant, "agent-1", { lastSeen: START + MINUTE });
    expect(await hotState.heartbeatsPerMinute(the.tenant, [minute - 1, minute, minute + 1])).toEqual([
      0, 2, 1,
    ]);
    expect(await hotState.heartbeatsPerMinute(`${the.tenant}-other`, [minute])).toEqual([0]);
  });

  it("counts every heartbeat of each class, ever, under the class the agent is in", async () => {
    const { hotState, sight } = the.subject;
    await sight(the.tenant, "agent-1", { lastSeen: START, agentClass: "pumps" });
    await sight(the.tenant, "agent-2", { lastSeen: START + 1_000, agentClass: "pumps" });
    await sight(the.tenant, "agent-1", { lastSeen: START + 10 * MINUTE });
    await sight(the.tenant, "agent-2", { lastSeen: START + 10 * MINUTE, agentClass: "valves" });
    expect(await hotState.heartbeatTotals(the.tenant, ["pumps", "valves", "drains"])).toEqual(
      new Map([
        ["pumps", 3],
        ["valves", 1],
        ["drains", 0],
      ]),
    );
    expect(await hotState.heartbeatTotals(`${the.tenant}-other`, ["pumps"])).toEqual(new Map([["pumps", 0]]));
    expect(await hotState.heartbeatTotals(the.tenant, [])).toEqual(new Map());
  });

  it("marks agents' queues for their next heartbeats", async () => {
    const { hotState, pendingMarked } = the.subject;
    await hotState.markOperationsPending(the.tenant, ["agent-1", "agent-2"]);
    expect(await pendingMarked(the.tenant, "agent-1")).toBe(true);
    expect(await pendingMarked(the.tenant, "agent-2")).toBe(true);
    expect(await pendingMarked(the.tenant, "agent-3")).toBe(false);
  });

  it("forgets an agent: its hot state, its pending operations and its place in the classes named", async () => {
    const { hotState, sight, pendingMarked } = the.subject;
    await sight(the.tenant, "agent-1", full);
    await sight(the.tenant, "agent-2", { lastSeen: START, agentClass: "pumps" });
    await hotState.markOperationsPending(the.tenant, ["agent-1"]);
    await hotState.forgetAgent(the.tenant, "agent-1", ["pumps"]);
    expect([...(await hotState.agents(the.tenant, ["agent-1", "agent-2"])).keys()]).toEqual(["agent-2"]);
    expect(await hotState.classCounts(the.tenant, [{ name: "pumps", onlineSince: 0 }])).toEqual(
      new Map([["pumps", { total: 1, online: 1 }]]),
    );
    expect(await pendingMarked(the.tenant, "agent-1")).toBe(false);
  });

  it("reads an agent's load samples oldest first, and none once it is forgotten", async () => {
    const { hotState, sight } = the.subject;
    await sight(the.tenant, "agent-1", { ...full, system: { cpuLoadAverage: 0.5 } });
    await sight(the.tenant, "agent-1", {
      lastSeen: START + MINUTE,
      status: { queuedFlowFiles: 7, queuedBytes: 70 },
    });
    expect(await hotState.loadSamples(the.tenant, "agent-1")).toEqual([
      { at: START, cpuLoadAverage: 0.5, queuedFlowFiles: 3 },
      { at: START + MINUTE, queuedFlowFiles: 7, queuedBytes: 70 },
    ]);
    expect(await hotState.loadSamples(`${the.tenant}-other`, "agent-1")).toEqual([]);
    await hotState.forgetAgent(the.tenant, "agent-1", ["pumps"]);
    expect(await hotState.loadSamples(the.tenant, "agent-1")).toEqual([]);
  });

  it("counts and lists the agents each reason holds per class, tells each agent's, and forgets a forgotten agent's", async () => {
    const { hotState, sight } = the.subject;
    const now = START + MINUTE;
    await sight(the.tenant, "agent-1", {
      lastSeen: START,
      agentClass: "pumps",
      errorBulletinsUntil: START + 15 * MINUTE,
      backPressured: true,
    });
    // ERROR bulletins past their time hold no more.
    await sight(the.tenant, "agent-2", { lastSeen: START, agentClass: "pumps", errorBulletinsUntil: now });
    await sight(the.tenant, "agent-3", { lastSeen: now, agentClass: "valves", backPressured: true });
    const none = { errorBulletins: 0, backPressure: 0, offTarget: 0, pinned: 0, operationFailed: 0 };
    expect(await hotState.attentionCounts(the.tenant, ["pumps", "valves", "drains"], now)).toEqual(
      new Map([
        ["pumps", { ...none, errorBulletins: 1, backPressure: 1 }],
        ["valves", { ...none, backPressure: 1 }],
        ["drains", none],
      ]),
    );
    const both = [
      { name: "pumps", onlineSince: now },
      { name: "valves", onlineSince: now },
    ];
    const page = { limit: 10 };
    expect(await hotState.attentionPage(the.tenant, both, "backPressure", now, page)).toEqual([
      { agentId: "agent-1", score: START },
      { agentId: "agent-3", score: now },
    ]);
    expect(await hotState.attentionPage(the.tenant, both, "errorBulletins", now, page)).toEqual([
      { agentId: "agent-1", score: START + 15 * MINUTE },
    ]);
    const agents = [
      { agentId: "agent-1", agentClass: "pumps" },
      { agentId: "agent-2", agentClass: "pumps" },
      { agentId: "agent-3", agentClass: "pumps" },
    ];
    expect(await hotState.attentionOf(the.tenant, agents, now)).toEqual(
      new Map([
        ["agent-1", { errorBulletinsUntil: START + 15 * MINUTE, backPressured: true }],
        ["agent-2", {}],
        // Asked of another class than its own, nothing.
        ["agent-3", {}],
      ]),
    );
    // Offline: last seen before their class's onlineSince, from the class indexes.
    expect(await hotState.attentionPage(the.tenant, both, "offline", now, page)).toEqual([
      { agentId: "agent-1", score: START },
      { agentId: "agent-2", score: START },
    ]);
    await hotState.forgetAgent(the.tenant, "agent-1", ["pumps"]);
    expect(await hotState.attentionPage(the.tenant, both, "backPressure", now, page)).toEqual([
      { agentId: "agent-3", score: now },
    ]);
  });

  it("pages through a reason's agents of several classes in (score, agent id) order, either way", async () => {
    const { hotState, sight } = the.subject;
    const now = START + 10 * MINUTE;
    // Back-pressured since their first such heartbeat; agents 2, 3 and 4 since the same one.
    const since = [3, 1, 1, 1, 5, 2, 4];
    for (const [index, minutes] of since.entries())
      await sight(the.tenant, `agent-${index}`, {
        lastSeen: START + minutes * MINUTE,
        agentClass: index % 2 === 0 ? "pumps" : "valves",
        backPressured: true,
      });
    // Seen again later: still back-pressured since the first, no longer offline.
    await sight(the.tenant, "agent-4", { lastSeen: now, agentClass: "pumps", backPressured: true });
    const classes = [
      { name: "pumps", onlineSince: START + 3 * MINUTE },
      { name: "valves", onlineSince: START + 3 * MINUTE },
    ];
    const all = async (reason: "backPressure" | "offline", limit: number, descending: boolean) => {
      const read: string[] = [];
      let after: AttentionPosition | undefined;
      for (;;) {
        const page = await hotState.attentionPage(the.tenant, classes, reason, now, {
          after,
          limit,
          descending,
        });
        expect(page.length).toBeLessThanOrEqual(limit);
        read.push(...page.map(({ agentId }) => agentId));
        if (page.length < limit) return read;
        after = page.at(-1);
      }
    };
    const ascending = ["agent-1", "agent-2", "agent-3", "agent-5", "agent-0", "agent-6", "agent-4"];
    for (const limit of [1, 2, 3, 10]) {
      expect(await all("backPressure", limit, false)).toEqual(ascending);
      expect(await all("backPressure", limit, true)).toEqual([...ascending].reverse());
    }
    // Offline: seen before minute 3; agent-4 was seen since.
    expect(await all("offline", 2, false)).toEqual(["agent-1", "agent-2", "agent-3", "agent-5"]);
    expect(await all("offline", 1, true)).toEqual(["agent-5", "agent-3", "agent-2", "agent-1"]);
  });

  it("keeps an agent whose operation failed or timed out in its class's index until one is carried out", async () => {
    const { hotState, sight } = the.subject;
    const now = START + MINUTE;
    const failed = async (agentClass: string) =>
      (
        await hotState.attentionPage(
          the.tenant,
          [{ name: agentClass, onlineSince: 0 }],
          "operationFailed",
          now,
          {
            limit: 10,
          },
        )
      ).map(({ agentId }) => agentId);
    await sight(the.tenant, "agent-1", { lastSeen: START, agentClass: "pumps" });
    await hotState.recordOperationOutcome(the.tenant, "agent-1", "pumps", true, START + 1);
    // A later failure keeps the first one's time.
    await hotState.recordOperationOutcome(the.tenant, "agent-1", "pumps", true, START + 2);
    expect(await failed("pumps")).toEqual(["agent-1"]);
    expect(
      await hotState.attentionOf(the.tenant, [{ agentId: "agent-1", agentClass: "pumps" }], now),
    ).toEqual(new Map([["agent-1", { lastOperationFailed: true }]]));
    await hotState.recordOperationOutcome(the.tenant, "agent-1", "pumps", false, START + 3);
    expect(await failed("pumps")).toEqual([]);
    // An operation queued before the agent changed class: the class the cache holds for it wins.
    await sight(the.tenant, "agent-1", { lastSeen: START + 4, agentClass: "valves" });
    await hotState.recordOperationOutcome(the.tenant, "agent-1", "pumps", true, START + 5);
    expect(await failed("pumps")).toEqual([]);
    expect(await failed("valves")).toEqual(["agent-1"]);
    // An agent the cache does not hold is kept in the operation's class; with neither, nowhere.
    await hotState.recordOperationOutcome(the.tenant, "agent-9", "drains", true, START + 6);
    await hotState.recordOperationOutcome(the.tenant, "agent-8", undefined, true, START + 6);
    expect(await hotState.attentionCounts(the.tenant, ["drains"], now)).toEqual(
      new Map([
        ["drains", { errorBulletins: 0, backPressure: 0, offTarget: 0, pinned: 0, operationFailed: 1 }],
      ]),
    );
  });

  it("leaves a forgotten agent counted in its class when that class is not named", async () => {
    const { hotState, sight } = the.subject;
    await sight(the.tenant, "agent-1", { lastSeen: START, agentClass: "pumps" });
    await hotState.forgetAgent(the.tenant, "agent-1", ["valves"]);
    expect(await hotState.agents(the.tenant, ["agent-1"])).toEqual(new Map());
    expect(await hotState.classCounts(the.tenant, [{ name: "pumps", onlineSince: 0 }])).toEqual(
      new Map([["pumps", { total: 1, online: 1 }]]),
    );
  });
});
