/**
 * A continuous rollout to a group end to end on the local stack: C++ agents of two binaries (the example's,
 * and one built without the Kafka extension) that heartbeat, download, apply and acknowledge through the
 * real mutual-TLS gateway, a group by what their binaries can run, and the sweeper's own engine moving the
 * rollout on look by look.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ConsoleApiUnderTest } from "../../scripts/test-support/console-api-harness.js";
import {
  type BuiltWithout,
  onRolloutStack,
  operatorCalls,
  type PlayedAgent,
  playedAgents,
  publishFlow,
  type RolloutStack,
} from "../../scripts/test-support/rollout-stack.js";
import type { JsonObject } from "../core/json.js";

/** A build of the example's C++ agent without its Kafka extension: a binary of its own. */
const WITHOUT_KAFKA: BuiltWithout = {
  artifact: "minifi-kafka",
  manifestHash: createHash("sha512").update("minifi without kafka").digest("hex").toUpperCase(),
};
/** What the example's binary lists in its minifi-kafka bundle 1.0.0. */
const CAN_PUBLISH_TO_KAFKA = {
  components: [
    {
      kind: "processor",
      type: "org.apache.nifi.minifi.processors.PublishKafka",
      artifact: "minifi-kafka",
      version: { atLeast: "1.0.0" },
    },
  ],
};
/** Looks a rollout here takes at most to reach where it is going. */
const MAX_LOOKS = 12;

let stack: RolloutStack;
let consoleApi: ConsoleApiUnderTest;
let played: ReturnType<typeof playedAgents>;

onRolloutStack("subset-rollouts", (started) => {
  stack = started;
  consoleApi = started.consoleApi;
  played = playedAgents(started);
});

const call = operatorCalls(() => stack);

/** Every agent's turn, then one look of the sweeper's engine, until the rollout is in the state. */
async function driveUntil(
  rolloutId: string,
  agents: PlayedAgent[],
  reached: (rollout: JsonObject) => boolean,
) {
  for (let look = 1; look <= MAX_LOOKS; look++) {
    for (const agent of agents) await played.turn(agent);
    await stack.sweeper.rollouts.advance(stack.tenant, rolloutId);
    const rollout = await call("GET", `/rollouts/${rolloutId}`);
    if (reached(rollout)) return rollout;
  }
  throw new Error(`Rollout ${rolloutId} not there after ${MAX_LOOKS} looks`);
}

/** The agent's heartbeats, a few in a row, each carrying nothing. */
async function leftAlone(agent: PlayedAgent) {
  for (let beat = 0; beat < 3; beat++) expect(await played.turn(agent)).toEqual([]);
}

describe("a continuous rollout to a group by what agents can run", () => {
  it("reaches the group's members only, follows an agent that joins, and ends when finished with the class's target unchanged", async () => {
    const publishers = await played.classOf("edge", 3);
    const others = await played.classOf("edge", 2, { first: 4, binary: WITHOUT_KAFKA });
    const everyone = [...publishers, ...others];
    // The class's target: a first version every agent runs, by a rollout of the whole class.
    const first = await publishFlow(consoleApi, stack.operator, "edge", "v1");
    const whole = await call("POST", "/rollouts", {
      className: "edge",
      flowHash: first,
      plan: { canary: { count: 5 }, batchSize: 5, batchIntervalSeconds: 0, soakSeconds: 0 },
    });
    expect(
      (await driveUntil(whole.rolloutId as string, everyone, (rollout) => rollout.state === "completed"))
        .counts,
    ).toMatchObject({
      healthy: 5,
    });

    await call("POST", "/groups", { name: "kafka-publishers", query: CAN_PUBLISH_TO_KAFKA });
    const members = async () =>
      ((await call("GET", "/groups/kafka-publishers/agents")).items as JsonObject[]).map(
        (agent) => agent.agentId,
      );
    expect(await members()).toEqual(publishers.map((agent) => agent.agentId));

    const second = await publishFlow(consoleApi, stack.operator, "edge", "v2");
    const started = await call("POST", "/rollouts", {
      className: "edge",
      group: "kafka-publishers",
      continuous: true,
      flowHash: second,
      plan: { canary: { count: 1 }, batchSize: 5, batchIntervalSeconds: 0, soakSeconds: 0 },
    });
    expect(started).toMatchObject({
      group: "kafka-publishers",
      continuous: true,
      fromFlow: first,
      classSize: 3,
    });
    const following = await driveUntil(
      started.rolloutId as string,
      everyone,
      (rollout) => rollout.state === "following",
    );
    expect(following.counts).toMatchObject({ selected: 3, healthy: 3, failed: 0 });
    for (const agent of publishers) expect(agent.flowId).toBe(second);
    for (const agent of others) expect(agent.flowId).toBe(first);
    // The class's target stays (accepting the new version too while the rollout is under way, as any does);
    // catch-up holds the members on their assignment and the others on the target.
    expect((await call("GET", "/classes/edge")).flow).toMatchObject({
      target: first,
      accepted: [first, second],
    });
    for (const agent of everyone) await leftAlone(agent);

    // An agent of the Kafka binary that registers later joins the group, and the rollout reaches it.
    const [newcomer] = (await played.classOf("edge", 1, { first: 6 })) as [PlayedAgent];
    expect(await members()).toEqual([...publishers, newcomer].map((agent) => agent.agentId));
    const reached = await driveUntil(
      started.rolloutId as string,
      [...everyone, newcomer],
      (rollout) => (rollout.counts as JsonObject).healthy === 4,
    );
    expect(reached).toMatchObject({ state: "following", counts: { selected: 4, healthy: 4, failed: 0 } });
    expect(newcomer.flowId).toBe(second);
    for (const agent of others) expect(agent.flowId).toBe(first);

    const finished = await call("POST", `/rollouts/${started.rolloutId}/finish`, undefined, 200);
    expect(finished).toMatchObject({ state: "completed", reason: `Finished by ${stack.tenant}-operator` });
    const klass = await call("GET", "/classes/edge");
    expect(klass.flow).toMatchObject({ target: first, accepted: [first] });
    expect(klass).not.toHaveProperty("activeRolloutId");
    for (const agent of [...everyone, newcomer]) await leftAlone(agent);
    for (const agent of [...publishers, newcomer]) expect(agent.flowId).toBe(second);
    for (const agent of others) expect(agent.flowId).toBe(first);
  });
});
