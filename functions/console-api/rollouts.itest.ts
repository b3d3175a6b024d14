/**
 * Rollouts end to end on the local stack: flow versions published to a class through the console and
 * rolled out to C++ agents that heartbeat, download, apply and acknowledge through the real mutual-TLS
 * gateway; the rollouts moved on by the sweeper's own engine (its composition, on the same table, cache
 * and stream), look by look, as its schedule would. Only this file's rollouts are looked at, with the real
 * clock: the plans have no soak time and no interval, so nothing waits.
 */
import { describe, expect, it } from "vitest";
import { cppAckOf } from "../../scripts/common/c2-examples.js";
import type { AgentApiUnderTest } from "../../scripts/test-support/agent-api-harness.js";
import type { ConsoleApiUnderTest } from "../../scripts/test-support/console-api-harness.js";
import {
  FACTORY_FLOW,
  onRolloutStack,
  type PlayedAgent,
  playedAgents,
  publishFlow,
} from "../../scripts/test-support/rollout-stack.js";
import { readWholeStream } from "../../scripts/test-support/stream-reader.js";
import type { RolloutState } from "../core/events/model.js";
import type { JsonObject } from "../core/json.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { EnvNames } from "../shared/env-names.js";
import { eventValidator } from "../shared/event-validators.js";
import type { composeSweeper } from "../sweeper/composition.js";

const ACKNOWLEDGE = "/c2/api/acknowledge";
/** A canary of two, then batches of two, each as soon as the one before is healthy. */
const BRISK_PLAN = { canary: { count: 2 }, batchSize: 2, batchIntervalSeconds: 0, soakSeconds: 0 };

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let sweeper: ReturnType<typeof composeSweeper>;
let tenant: string;
let fleet: string;
let operator: string;
let beat: Played["beat"];
let turn: Played["turn"];
let classOf: Played["classOf"];
let rollToTheEnd: Played["rollToTheEnd"];
type Played = ReturnType<typeof playedAgents>;

type Rollout = { rolloutId: string; state: RolloutState; [field: string]: unknown };
type Member = {
  agentId: string;
  batch: number;
  state: string;
  operationId: string;
  [field: string]: unknown;
};

const get = async (path: string) => {
  const response = await consoleApi.request("GET", path, { token: operator });
  expect(response.status, response.body).toBe(200);
  return response.json();
};

const rolloutOf = async (rolloutId: string) => (await get(`/api/v1/rollouts/${rolloutId}`)) as Rollout;
const membersOf = async (rolloutId: string) =>
  (await get(`/api/v1/rollouts/${rolloutId}/agents?limit=100`)).items as Member[];
const flowsRun = async (className: string) =>
  ((await get(`/api/v1/agents?class=${className}&limit=100`)).items as { flowId?: string }[]).map(
    (agent) => agent.flowId,
  );

/** A version of the C++ YAML flow published to the class. */
const publish = (className: string, name: string) => publishFlow(consoleApi, operator, className, name);

async function start(className: string, flowHash: string, plan: JsonObject): Promise<Rollout> {
  const response = await consoleApi.request("POST", "/api/v1/rollouts", {
    token: operator,
    body: { className, flowHash, plan },
  });
  expect(response.status, response.body).toBe(201);
  return response.json() as Rollout;
}

/** Every agent's turn, then one look of the sweeper's engine, until the rollout is over; as the console shows it. */
async function driveToTheEnd(rolloutId: string, agents: PlayedAgent[]): Promise<Rollout> {
  await rollToTheEnd(rolloutId, agents);
  return rolloutOf(rolloutId);
}

/** The rollout's state changes on the stream, in order (one rollout's events share a shard), each valid. */
async function transitionsOf(rolloutId: string): Promise<string[]> {
  const events = (
    await readWholeStream(makeKinesisClient(agentApi.env), agentApi.env[EnvNames.streamName] as string)
  ).filter((event) => (event as { rolloutId?: string }).rolloutId === rolloutId) as {
    type: string;
    from?: string;
    state: string;
  }[];
  for (const event of events) {
    const validate = eventValidator(event);
    expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
  }
  return events
    .filter((event) => event.type === "rollout")
    .map((event) => `${event.from ?? "-"}→${event.state}`);
}

onRolloutStack("rollouts", (stack) => {
  ({ agentApi, consoleApi, sweeper, tenant, fleet, operator } = stack);
  ({ beat, turn, classOf, rollToTheEnd } = playedAgents(stack));
});

describe("rolling a flow version out to a class", () => {
  it("updates the canary first, then batch after batch, each healthy before the next, until every agent runs it", async () => {
    const agents = await classOf("gateways", 6);
    const described = await consoleApi.request("PUT", "/api/v1/classes/gateways", {
      token: operator,
      body: { ackTimeoutSeconds: 120 },
    });
    expect(described.json()).toMatchObject({ name: "gateways", ackTimeoutSeconds: 120 });
    const hash = await publish("gateways", "v1");

    const started = await start("gateways", hash, BRISK_PLAN);
    expect(started).toMatchObject({
      className: "gateways",
      toFlow: hash,
      state: "canary",
      classSize: 6,
      canarySize: 2,
      batches: 1,
      counts: { selected: 2, updating: 2, skipped: 0 },
      plan: { ...BRISK_PLAN, failureThreshold: { percent: 5 }, onFailure: "rollback" },
      createdBy: `${tenant}-operator`,
    });
    // The class had no flow of Beacon's before: nothing to roll back to.
    expect(started).not.toHaveProperty("fromFlow");
    const canary = await membersOf(started.rolloutId);
    expect(canary).toEqual([
      expect.objectContaining({ batch: 0, state: "updating", previousFlowId: FACTORY_FLOW }),
      expect.objectContaining({ batch: 0, state: "updating", previousFlowId: FACTORY_FLOW }),
    ]);

    // The canary agents' next heartbeats carry the version, with where to download it; the others' nothing.
    const location = `${agentApi.url}/c2/api/flows/${hash}/content`;
    for (const agent of agents) {
      const member = canary.find((candidate) => candidate.agentId === agent.agentId);
      expect(await turn(agent)).toEqual(
        member
          ? [
              expect.objectContaining({
                identifier: member.operationId,
                operation: "UPDATE",
                operand: "CONFIGURATION",
                args: { location, flowId: hash, persist: "true" },
              }),
            ]
          : [],
      );
    }
    const update = await get(`/api/v1/operations/${canary[0]?.operationId}`);
    expect(update).toMatchObject({ state: "done", ackState: "FULLY_APPLIED" });
    // Sent with the class's acknowledgement timeout.
    expect(Date.parse(update.timeoutAt as string) - Date.parse(update.deliveredAt as string)).toBe(120_000);

    const completed = await driveToTheEnd(started.rolloutId, agents);
    expect(completed).toMatchObject({
      state: "completed",
      batches: 3,
      exhausted: true,
      finishedAt: expect.any(String),
      counts: { selected: 6, healthy: 6, updating: 0, soaking: 0, failed: 0, skipped: 0 },
    });
    const members = await membersOf(started.rolloutId);
    expect(members.map((member) => [member.batch, member.state])).toEqual([
      [0, "healthy"],
      [0, "healthy"],
      [1, "healthy"],
      [1, "healthy"],
      [2, "healthy"],
      [2, "healthy"],
    ]);
    expect(await flowsRun("gateways")).toEqual(Array(6).fill(hash));
    const klass = await get("/api/v1/classes/gateways");
    expect(klass.flow).toEqual({ target: hash, accepted: [hash], targetVersion: { version: 1 } });
    expect(klass).not.toHaveProperty("activeRolloutId");
    expect(await transitionsOf(started.rolloutId)).toEqual([
      "-→canary",
      "canary→rolling",
      "rolling→completed",
    ]);
  });

  it("rolls back when a canary agent cannot apply the version: the agent it updated gets the previous one back", async () => {
    const agents = await classOf("pumps", 6);
    const previous = await publish("pumps", "v1");
    const first = await start("pumps", previous, { ...BRISK_PLAN, canary: { count: 6 }, batchSize: 6 });
    expect((await driveToTheEnd(first.rolloutId, agents)).state).toBe("completed");

    const next = await publish("pumps", "v2");
    const started = await start("pumps", next, {
      ...BRISK_PLAN,
      failureThreshold: { count: 1 },
      onFailure: "rollback",
    });
    expect(started).toMatchObject({ fromFlow: previous, toFlow: next, state: "canary" });
    const [refusing, applying] = (await membersOf(started.rolloutId)).map(
      (member) => agents.find((agent) => agent.agentId === member.agentId) as PlayedAgent,
    );
    expect(await turn(refusing as PlayedAgent, "NOT_APPLIED")).toHaveLength(1);
    expect(await turn(applying as PlayedAgent)).toHaveLength(1);
    expect([refusing?.flowId, applying?.flowId]).toEqual([previous, next]);

    const tripped = await sweeper.rollouts.advance(tenant, started.rolloutId);
    expect(tripped.rollout).toMatchObject({
      state: "rolling_back",
      reason: "1 of 2 updated agents failed",
      counts: { selected: 2, failed: 1 },
    });
    expect((await get("/api/v1/classes/pumps")).flow).toMatchObject({
      target: previous,
      accepted: [previous],
    });
    // The next look sends both canary agents the previous version, before any heartbeat could catch one up.
    await sweeper.rollouts.advance(tenant, started.rolloutId);
    const rollingBack = await membersOf(started.rolloutId);
    expect(rollingBack.map((member) => member.state)).toEqual(["rolling_back", "rolling_back"]);
    // The agent that refused the version is still counted as failed while its rollback runs.
    expect((await rolloutOf(started.rolloutId)).counts).toMatchObject({ failed: 1, rollingBack: 2 });

    const location = `${agentApi.url}/c2/api/flows/${previous}/content`;
    for (const agent of [applying, refusing] as PlayedAgent[]) {
      const member = rollingBack.find((candidate) => candidate.agentId === agent.agentId);
      expect(await turn(agent)).toEqual([
        expect.objectContaining({
          identifier: member?.rollbackOperationId,
          operation: "UPDATE",
          operand: "CONFIGURATION",
          args: { location, flowId: previous, persist: "true" },
        }),
      ]);
    }
    const rolledBack = await driveToTheEnd(started.rolloutId, agents);
    expect(rolledBack).toMatchObject({
      state: "rolled_back",
      fromFlow: previous,
      counts: { selected: 2, rolledBack: 2, rollbackFailed: 0, failed: 1 },
    });
    expect(await flowsRun("pumps")).toEqual(Array(6).fill(previous));
    expect((await get("/api/v1/classes/pumps")).flow).toMatchObject({
      target: previous,
      accepted: [previous],
    });
    expect(await transitionsOf(started.rolloutId)).toEqual([
      "-→canary",
      "canary→rolling_back",
      "rolling_back→rolled_back",
    ]);
  });
});

/** A C++ YAML flow declaring `site.id`, which a processor's property references. */
const SITE_FLOW = `MiNiFi Config Version: 3
Flow Controller:
  name: sites
Parameter Contexts:
  - id: 0d5c4f7e-3b1a-4c2e-9f1d-6a7b8c9d0e21
    name: site
    Parameters:
      - name: site.id
        sensitive: false
        value: site-0
Processors:
  - name: generate
    id: 0d5c4f7e-3b1a-4c2e-9f1d-6a7b8c9d0e22
    class: GenerateFlowFile
    Properties:
      Custom Text: "#{site.id}"
Parameter Context Name: site
`;

const call = async (method: string, path: string, body?: JsonObject) => {
  const response = await consoleApi.request(method, path, { token: operator, body });
  return { status: response.status, json: () => response.json() as JsonObject, body: response.body };
};

describe("rolling a class's staged values out", () => {
  it("stages a value change, moves nothing, then brings it only to the agents whose flow it changes", async () => {
    const agents = await classOf("rv-sites", 6);
    const published = await consoleApi.request("POST", "/api/v1/classes/rv-sites/flows", {
      token: operator,
      body: new TextEncoder().encode(SITE_FLOW),
      headers: { "content-type": "application/yaml" },
    });
    expect(published.status, published.body).toBe(201);
    const hash = published.json().hash as string;
    const own = agents[5] as PlayedAgent;
    expect(
      (await call("PUT", `/api/v1/agents/${own.agentId}/parameters/site.id`, { value: "own" })).status,
    ).toBe(201);
    const first = await start("rv-sites", hash, BRISK_PLAN);
    expect((await driveToTheEnd(first.rolloutId, agents)).state).toBe("completed");
    const before = agents.map((agent) => agent.flowId);

    expect((await call("PUT", "/api/v1/classes/rv-sites", { valueChanges: "rollout" })).json()).toMatchObject(
      {
        valueChanges: "rollout",
      },
    );
    const staged = await call("PUT", "/api/v1/classes/rv-sites/parameters/site.id", { value: "plant-9" });
    expect(staged.status, staged.body).toBe(202);
    expect((await call("GET", "/api/v1/classes/rv-sites/parameters")).json()).toMatchObject({
      items: [],
      staged: [{ name: "site.id", value: "plant-9", staged: true }],
    });
    // Nothing moves: every agent's heartbeat finds its flow accepted.
    for (const agent of agents) expect(await turn(agent)).toEqual([]);

    const started = await call("POST", "/api/v1/rollouts", {
      className: "rv-sites",
      stagedValues: true,
      plan: { ...BRISK_PLAN, canary: { count: 1 } },
    });
    expect(started.status, started.body).toBe(201);
    const rolloutId = started.json().rolloutId as string;
    expect(started.json()).toMatchObject({ stagedValues: true, fromFlow: hash, toFlow: hash });
    // The canary's update downloads the version rendered with the staged value.
    const canary = (await membersOf(rolloutId))[0] as Member;
    const member = agents.find((agent) => agent.agentId === canary.agentId) as PlayedAgent;
    const [update] = await beat(member);
    const location = new URL(update?.args?.location as string).pathname;
    expect(location).toContain(`/rollouts/${rolloutId}/flows/${hash}/`);
    const download = await agentApi.get(location, { certificate: fleet });
    expect(download.body).toContain("plant-9");
    await agentApi.post(
      ACKNOWLEDGE,
      cppAckOf(member.agentId, update?.identifier as string, "FULLY_APPLIED"),
      {
        certificate: fleet,
      },
    );
    member.flowId = update?.args?.flowId as string;
    await beat(member);

    const done = await driveToTheEnd(rolloutId, agents);
    expect(done).toMatchObject({ state: "completed", counts: { selected: 5, healthy: 5, skipped: 1 } });
    expect(own.flowId).toBe(before[5]);
    for (const agent of agents.slice(0, 5)) expect(agent.flowId).not.toBe(before[0]);
    expect(new Set(agents.slice(0, 5).map((agent) => agent.flowId)).size).toBe(1);
    expect((await call("GET", "/api/v1/classes/rv-sites/parameters")).json()).toMatchObject({
      items: [{ name: "site.id", value: "plant-9" }],
    });
    expect((await call("GET", "/api/v1/classes/rv-sites/parameters")).json()).not.toHaveProperty("staged");
    // Catch-up holds the class to the values now in force: nobody is sent anything more.
    for (const agent of agents) expect(await turn(agent)).toEqual([]);
  });
});
