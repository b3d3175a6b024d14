/**
 * Pinned agents end to end on the local stack: C++ agents that heartbeat, download, apply and acknowledge
 * through the real mutual-TLS gateway, an operator who pins one of them through the console, and rollouts
 * moved on by the sweeper's own engine look by look, as in the rollouts' tests.
 */
import { describe, expect, it } from "vitest";
import type { ConsoleApiUnderTest } from "../../scripts/test-support/console-api-harness.js";
import {
  FACTORY_FLOW,
  onRolloutStack,
  operatorCalls,
  type PlayedAgent,
  playedAgents,
  publishFlow,
  type RolloutStack,
} from "../../scripts/test-support/rollout-stack.js";
import type { JsonObject } from "../core/json.js";

/** Every chosen agent in one canary, sent the version at once. */
const AT_ONCE = { canary: { count: 6 }, batchSize: 6, batchIntervalSeconds: 0, soakSeconds: 0 };

let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let operator: string;
let played: ReturnType<typeof playedAgents>;

let stack: RolloutStack;

onRolloutStack("pinning", (started) => {
  stack = started;
  ({ consoleApi, tenant, operator } = started);
  played = playedAgents(stack);
});

const call = operatorCalls(() => stack);

/** A version rolled out to the whole class and run by every agent: its hash, and the rollout as it ended. */
async function rollOut(className: string, name: string, agents: PlayedAgent[]) {
  const flowHash = await publishFlow(consoleApi, operator, className, name);
  const { rolloutId } = await call("POST", "/rollouts", { className, flowHash, plan: AT_ONCE });
  await played.rollToTheEnd(rolloutId as string, agents);
  return { flowHash, rollout: await call("GET", `/rollouts/${rolloutId}`) };
}

/** The agent's heartbeats, a few in a row, each carrying nothing. */
async function leftAlone(agent: PlayedAgent) {
  for (let beat = 0; beat < 3; beat++) expect(await played.turn(agent)).toEqual([]);
}

describe("an agent pinned to a flow version", () => {
  it("keeps its version through a rollout and the class's catch-up, and catches up once unpinned", async () => {
    const agents = await played.classOf("pin-gateways", 4);
    const [pinned, ...others] = agents as [PlayedAgent, ...PlayedAgent[]];
    const { flowHash: first } = await rollOut("pin-gateways", "v1", agents);

    // Pinned to the version it runs: nothing is sent it.
    const pin = await call("PUT", `/agents/${pinned.agentId}/pin`, {});
    expect(pin).toEqual({
      agentId: pinned.agentId,
      pinnedFlow: { flowHash: first, pinnedAt: expect.any(String), pinnedBy: `${tenant}-operator` },
    });
    expect((await call("GET", "/agents?class=pin-gateways&pinned=true")).items).toEqual([
      expect.objectContaining({ agentId: pinned.agentId, flowId: first, pinnedFlow: pin.pinnedFlow }),
    ]);
    expect((await call("GET", `/agents/${pinned.agentId}`)).pinnedFlow).toEqual(pin.pinnedFlow);

    // A rollout passes it over; the others move, and the class's target with them.
    const { flowHash: second, rollout } = await rollOut("pin-gateways", "v2", agents);
    expect(rollout).toMatchObject({
      state: "completed",
      counts: { selected: 3, healthy: 3, skipped: 1 },
    });
    expect(pinned.flowId).toBe(first);
    for (const agent of others) expect(agent.flowId).toBe(second);
    expect((await call("GET", "/classes/pin-gateways")).flow).toMatchObject({
      target: second,
      accepted: [second],
    });
    // Catch-up leaves it on its pin.
    await leftAlone(pinned);

    // Should it run another flow (a local change), catch-up sends it its pin again, once.
    pinned.flowId = FACTORY_FLOW;
    expect(await played.turn(pinned)).toEqual([
      expect.objectContaining({ args: expect.objectContaining({ flowId: first }) }),
    ]);
    expect(pinned.flowId).toBe(first);
    await leftAlone(pinned);

    // Unpinned, catch-up brings it to the class's target.
    expect(await call("DELETE", `/agents/${pinned.agentId}/pin`)).toEqual({ agentId: pinned.agentId });
    expect(await call("GET", `/agents/${pinned.agentId}`)).not.toHaveProperty("pinnedFlow");
    expect((await call("GET", "/agents?class=pin-gateways&pinned=true")).items).toEqual([]);
    expect(await played.turn(pinned)).toEqual([
      expect.objectContaining({ args: expect.objectContaining({ flowId: second }) }),
    ]);
    expect(pinned.flowId).toBe(second);
    await leftAlone(pinned);
  });

  it("pinned to another version than it runs, is sent exactly one UPDATE CONFIGURATION to it", async () => {
    const agents = await played.classOf("pin-pumps", 2);
    const [pinned] = agents as [PlayedAgent];
    const older = await publishFlow(consoleApi, operator, "pin-pumps", "v1");
    const { flowHash: target } = await rollOut("pin-pumps", "v2", agents);

    const pin = await call("PUT", `/agents/${pinned.agentId}/pin`, { flowHash: older });
    expect(pin).toMatchObject({
      pinnedFlow: { flowHash: older },
      operation: { agentId: pinned.agentId, operation: "UPDATE", operand: "CONFIGURATION", state: "queued" },
    });
    const operationId = (pin.operation as JsonObject).operationId;
    expect(await played.turn(pinned)).toEqual([
      expect.objectContaining({ identifier: operationId, args: expect.objectContaining({ flowId: older }) }),
    ]);
    expect(await call("GET", `/operations/${operationId}`)).toMatchObject({ state: "done" });
    expect(pinned.flowId).toBe(older);
    await leftAlone(pinned);
    expect((await call("GET", "/classes/pin-pumps")).flow).toMatchObject({ target });
  });
});

describe("a group's members pinned at once", () => {
  it("keep their version through a rollout and the class's catch-up while another agent moves, and catch up once unpinned", async () => {
    const agents = await played.classOf("pin-group-meters", 4);
    const [outsider, ...members] = agents as [PlayedAgent, ...PlayedAgent[]];
    for (const member of members)
      await call("POST", `/agents/${member.agentId}/labels`, { set: { ring: "a" } }, 200);
    await call("POST", "/groups", {
      name: "pin-group-ring-a",
      query: { classes: ["pin-group-meters"], labels: ["ring=a"] },
    });
    const { flowHash: first } = await rollOut("pin-group-meters", "v1", agents);

    expect(await call("POST", "/groups/pin-group-ring-a/pin", {}, 200)).toEqual({
      pinned: 3,
      skipped: [],
      skippedCount: 0,
    });
    expect((await call("GET", "/agents?class=pin-group-meters&pinned=true")).items).toEqual(
      members.map((member) =>
        expect.objectContaining({
          agentId: member.agentId,
          pinnedFlow: expect.objectContaining({ flowHash: first }),
        }),
      ),
    );

    // The class's target moves on: the rollout passes the members over, the outsider moves with it.
    const { flowHash: second, rollout } = await rollOut("pin-group-meters", "v2", agents);
    expect(rollout).toMatchObject({ state: "completed", counts: { selected: 1, healthy: 1, skipped: 3 } });
    expect(outsider.flowId).toBe(second);
    for (const member of members) {
      expect(member.flowId).toBe(first);
      await leftAlone(member);
    }

    expect(await call("POST", "/groups/pin-group-ring-a/unpin", undefined, 200)).toEqual({
      unpinned: 3,
      skipped: [],
      skippedCount: 0,
    });
    expect((await call("GET", "/agents?class=pin-group-meters&pinned=true")).items).toEqual([]);
    for (const member of members) {
      expect(await played.turn(member)).toEqual([
        expect.objectContaining({ args: expect.objectContaining({ flowId: second }) }),
      ]);
      expect(member.flowId).toBe(second);
    }
  });
});
