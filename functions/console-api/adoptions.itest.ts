/**
 * Adopting what agents run, end to end on the local stack: Java agents arriving from another C2 server report its
 * flow ids; the console groups them, an operator adopts one, the agent answers TRANSFER DEBUG with a bundle holding
 * its flow through the real gateway and intake, and the class's policy then leaves the agents running it alone,
 * catch-up moves the others, and a rollout from the adopted version to a new one completes. The rollout is moved
 * on by the sweeper's own engine, look by look, with a plan that waits for nothing. Adoptions nobody reads are
 * settled by the sweeper's pass, adopted or failed, as the store and the class then show.
 */
import { afterAll, describe, expect, it } from "vitest";
import { tarGz } from "../../scripts/common/debug-bundle-form.js";
import { heartbeat, heartbeatOf, javaFlow } from "../../scripts/test-support/console-seed.js";
import { uploadBundle } from "../../scripts/test-support/debug-bundles.js";
import { onRolloutStack, type RolloutStack } from "../../scripts/test-support/rollout-stack.js";
import { until } from "../../scripts/test-support/until.js";
import { DynamoAdoptionStore } from "../adapters/dynamodb/adoption-store.js";
import { DynamoClassCatalog } from "../adapters/dynamodb/class-catalog.js";
import type { AdoptionRecord } from "../core/adoptions/model.js";
import { AgentRoutes } from "../core/c2/routes.js";
import type { RolloutState } from "../core/events/model.js";
import { isRolloutFinal } from "../core/rollouts/model.js";
import { makeDocumentClient } from "../runtime/aws-clients/dynamodb.js";
import { EnvNames } from "../shared/env-names.js";

const CLASS = "pumps";
const MANIFEST_HASH = "adoptions-build-1";
/** What these agents list beside the example's operations and TRANSFER DEBUG: they take flows. */
const TAKES_FLOWS = [{ type: "UPDATE", properties: { CONFIGURATION: {} } }];
const BRISK_PLAN = { canary: { count: 1 }, batchSize: 2, batchIntervalSeconds: 0, soakSeconds: 0 };
const MAX_LOOKS = 12;

/** The stack, the tenant and its credentials this file's test drives. */
let the: RolloutStack;

/** A Java agent as this file plays it, and the flow it runs (the incumbent's id, until Beacon sends one). */
interface Agent {
  agentId: string;
  /** Its class, CLASS unless named. */
  className?: string;
  flowId: string;
  /** The flow document it runs, which its debug bundle holds. */
  document: string;
}

interface RequestedOperation {
  identifier: string;
  operation: string;
  operand?: string;
  args?: Record<string, string>;
}

const acknowledge = async (operationId: string) => {
  const ack = { operationId, operationState: { state: "FULLY_APPLIED" } };
  expect(
    (await the.agentApi.post(AgentRoutes.acknowledge.path, ack, { certificate: the.fleet })).status,
  ).toBe(200);
};

/**
 * One heartbeat, and what a MiNiFi Java agent does with its reply: a debug bundle (its log and its flow as
 * flow.json) uploaded for TRANSFER DEBUG, a flow applied for UPDATE CONFIGURATION, each acknowledged; then
 * a heartbeat reporting the flow it runs. Returns the operations the reply carried.
 */
async function turn(agent: Agent): Promise<RequestedOperation[]> {
  const response = await the.agentApi.post(
    AgentRoutes.heartbeat.path,
    heartbeatOf(agent.agentId, agent.className ?? CLASS, MANIFEST_HASH, { flowId: agent.flowId }),
    { certificate: the.fleet },
  );
  expect(response.status).toBe(200);
  const operations = response.json().requestedOperations as RequestedOperation[];
  for (const operation of operations) {
    if (operation.operation === "TRANSFER") {
      const bundle = tarGz([
        { name: "minifi-app.log", bytes: new TextEncoder().encode("INFO flow started\n") },
        { name: "flow.json", bytes: Buffer.from(agent.document) },
      ]);
      const target = new URL(operation.args?.target as string);
      const uploaded = await uploadBundle(the.agentApi, target.pathname, bundle, the.fleet);
      expect(uploaded.status, uploaded.body).toBe(201);
    }
    if (operation.operation === "UPDATE") agent.flowId = operation.args?.flowId as string;
    await acknowledge(operation.identifier);
  }
  if (operations.some((operation) => operation.operation === "UPDATE")) await turn(agent);
  return operations;
}

const get = async (path: string) => {
  const response = await the.consoleApi.request("GET", `/api/v1${path}`, { token: the.operator });
  expect(response.status, response.body).toBe(200);
  return response.json();
};

const post = async (path: string, body: unknown, status = 201) => {
  const response = await the.consoleApi.request("POST", `/api/v1${path}`, { token: the.operator, body });
  expect(response.status, response.body).toBe(status);
  return response.json();
};

/** Three agents on the incumbent's flow A, two on its flow B, each registered with its manifest. */
async function incumbentFleet(): Promise<Agent[]> {
  const flowA = JSON.stringify(javaFlow("incumbent A"));
  const flowB = JSON.stringify(javaFlow("incumbent B"));
  const agents = [
    { agentId: "pump-1", flowId: "incumbent-a", document: flowA },
    { agentId: "pump-2", flowId: "incumbent-a", document: flowA },
    { agentId: "pump-3", flowId: "incumbent-a", document: flowA },
    { agentId: "gw-1", flowId: "incumbent-b", document: flowB },
    { agentId: "gw-2", flowId: "incumbent-b", document: flowB },
  ];
  for (const agent of agents)
    expect(
      await heartbeat(the.agentApi, the.fleet, agent.agentId, CLASS, MANIFEST_HASH, {
        flowId: agent.flowId,
        operations: TAKES_FLOWS,
      }),
    ).toBe(200);
  return agents;
}

/** The stack's table, read as the stores the sweeper writes. */
let tableRead: { adoptions: DynamoAdoptionStore; classes: DynamoClassCatalog } | undefined;
const documents = makeDocumentClient();
const table = () => {
  const tableName = the.agentApi.env[EnvNames.tableName] as string;
  tableRead ??= {
    adoptions: new DynamoAdoptionStore(documents, tableName),
    classes: new DynamoClassCatalog(documents, tableName),
  };
  return tableRead;
};
afterAll(() => documents.destroy());

/** An agent of its own class, registered on the incumbent's flow `flowId`. */
async function loneAgent(className: string, flowId: string): Promise<Agent> {
  const agent = {
    agentId: `${className}-1`,
    className,
    flowId,
    document: JSON.stringify(javaFlow(className)),
  };
  expect(
    await heartbeat(the.agentApi, the.fleet, agent.agentId, className, MANIFEST_HASH, {
      flowId,
      operations: TAKES_FLOWS,
    }),
  ).toBe(200);
  return agent;
}

/**
 * The adoption as the sweeper leaves it once settled, read from the store (never through the console, whose
 * read would settle it): the sweeper's pass runs before each look, as its schedule runs it.
 */
async function settledBySweeper(className: string, adoptionId: string): Promise<AdoptionRecord> {
  return until(`the sweeper to settle adoption ${adoptionId}`, async () => {
    await the.sweeper.adoptions.sweep();
    const record = await table().adoptions.get(the.tenant, className, adoptionId);
    return record?.state === "requested" ? undefined : record;
  });
}

onRolloutStack("adoptions", (started) => {
  the = started;
});

describe("adopting the flows agents arrive with", () => {
  it("groups, adopts one without sending its agents anything, moves only the others, then rolls a new version out", async () => {
    const agents = await incumbentFleet();
    const [pump1, pump2, pump3, gw1, gw2] = agents as [Agent, Agent, Agent, Agent, Agent];
    // Until the class has a version, catch-up sends nothing, whatever its agents run.
    for (const agent of agents) expect(await turn(agent)).toEqual([]);

    expect(await get(`/classes/${CLASS}/running-flows`)).toEqual({
      className: CLASS,
      agentCount: 5,
      withoutFlow: 0,
      flows: [
        { flowId: "incumbent-a", agentCount: 3, agentIds: ["pump-1", "pump-2", "pump-3"] },
        { flowId: "incumbent-b", agentCount: 2, agentIds: ["gw-1", "gw-2"] },
      ],
    });

    const requested = await post(`/classes/${CLASS}/adoptions`, { flowId: "incumbent-a", agentId: "pump-2" });
    expect(requested).toMatchObject({ state: "requested", agentId: "pump-2", flowId: "incumbent-a" });
    const adoptionPath = `/classes/${CLASS}/adoptions/${requested.adoptionId}`;
    // pump-2's next heartbeat carries TRANSFER DEBUG; it uploads its bundle and acknowledges.
    expect((await turn(pump2)).map((operation) => operation.operation)).toEqual(["TRANSFER"]);
    const adopted = await until("the adoption to settle", async () => {
      const adoption = await get(adoptionPath);
      return adoption.state === "requested" ? undefined : adoption;
    });
    expect(adopted).toMatchObject({ state: "adopted", bundleEntry: "flow.json", current: true });
    const adoptedHash = adopted.flowHash as string;
    expect(await get(`/classes/${CLASS}/flows/${adoptedHash}`)).toMatchObject({
      adoptedFlowId: "incumbent-a",
    });
    expect(
      JSON.parse(
        (
          await the.consoleApi.request("GET", `/api/v1/classes/${CLASS}/flows/${adoptedHash}/content`, {
            token: the.operator,
          })
        ).body,
      ),
    ).toEqual(javaFlow("incumbent A"));
    expect((await get(`/classes/${CLASS}`)).flow).toMatchObject({
      target: adoptedHash,
      accepted: [adoptedHash, "incumbent-a"],
    });

    // The agents running it are sent nothing, heartbeat after heartbeat; catch-up moves the two others.
    for (let round = 0; round < 2; round++)
      for (const agent of [pump1, pump2, pump3]) expect(await turn(agent)).toEqual([]);
    for (const agent of [gw1, gw2])
      expect(await turn(agent)).toEqual([
        expect.objectContaining({
          operation: "UPDATE",
          operand: "CONFIGURATION",
          args: expect.objectContaining({ flowId: adoptedHash }),
        }),
      ]);
    expect((await get(`/classes/${CLASS}/running-flows`)).flows).toEqual([
      {
        flowId: "incumbent-a",
        agentCount: 3,
        agentIds: ["pump-1", "pump-2", "pump-3"],
        flowHash: adoptedHash,
      },
      { flowId: adoptedHash, agentCount: 2, agentIds: ["gw-1", "gw-2"], flowHash: adoptedHash },
    ]);

    // A new version rolled out from the adopted one reaches every agent, those reporting the adopted id too.
    const next = await the.consoleApi.request("POST", `/api/v1/classes/${CLASS}/flows`, {
      token: the.operator,
      body: new TextEncoder().encode(JSON.stringify(javaFlow("pumps v2"))),
      headers: { "content-type": "application/json" },
    });
    expect(next.status, next.body).toBe(201);
    const nextHash = next.json().hash as string;
    const started = await post("/rollouts", { className: CLASS, flowHash: nextHash, plan: BRISK_PLAN });
    expect(started).toMatchObject({ fromFlow: adoptedHash, toFlow: nextHash, state: "canary" });
    const rolloutId = started.rolloutId as string;
    let state = started.state as RolloutState;
    for (let look = 1; look <= MAX_LOOKS && !isRolloutFinal(state); look++) {
      for (const agent of agents) await turn(agent);
      state = (await the.sweeper.rollouts.advance(the.tenant, rolloutId)).rollout.state;
    }
    const completed = await get(`/rollouts/${started.rolloutId}`);
    expect(completed).toMatchObject({ state: "completed", counts: { selected: 5, healthy: 5, failed: 0 } });
    const members = (await get(`/rollouts/${started.rolloutId}/agents?limit=100`)).items as {
      agentId: string;
      previousFlowId?: string;
    }[];
    expect(
      members
        .filter((member) => member.previousFlowId === "incumbent-a")
        .map((member) => member.agentId)
        .sort(),
    ).toEqual(["pump-1", "pump-2", "pump-3"]);
    expect(agents.map((agent) => agent.flowId)).toEqual(Array(5).fill(nextHash));
    expect((await get(`/classes/${CLASS}`)).flow).toMatchObject({ target: nextHash, accepted: [nextHash] });
  });

  it("settles an adoption nobody reads once the bundle is stored, writing the class's policy", async () => {
    const tanks = await loneAgent("tanks", "incumbent-t");
    const adoptionId = (await post("/classes/tanks/adoptions", { flowId: "incumbent-t" }))
      .adoptionId as string;
    expect((await turn(tanks)).map((operation) => operation.operation)).toEqual(["TRANSFER"]);

    const settled = await settledBySweeper("tanks", adoptionId);
    expect(settled).toMatchObject({ state: "adopted", bundleEntry: "flow.json", current: true });
    const hash = settled.flowHash as string;
    expect((await table().classes.get(the.tenant, "tanks"))?.flowPolicy).toEqual({
      target: hash,
      accepted: [hash, "incumbent-t"],
    });
    // The console shows what the sweeper settled, in the adoption and the class's list alike.
    const shown = await get(`/classes/tanks/adoptions/${adoptionId}`);
    expect(shown).toMatchObject({
      state: "adopted",
      flowHash: hash,
      current: true,
      updatedAt: new Date(settled.updatedAt).toISOString(),
    });
    expect(await get("/classes/tanks/adoptions")).toEqual({ items: [shown] });
    // The agent running it is sent nothing: the class's policy counts it as on the adopted version.
    expect(await turn(tanks)).toEqual([]);
  });

  it("fails an adoption nobody reads once the agent refuses its TRANSFER DEBUG", async () => {
    const valves = await loneAgent("valves", "incumbent-v");
    const adoptionId = (await post("/classes/valves/adoptions", { flowId: "incumbent-v" }))
      .adoptionId as string;
    const response = await the.agentApi.post(
      AgentRoutes.heartbeat.path,
      heartbeatOf(valves.agentId, "valves", MANIFEST_HASH, { flowId: valves.flowId }),
      { certificate: the.fleet },
    );
    const [transfer] = response.json().requestedOperations as RequestedOperation[];
    expect(transfer).toMatchObject({ identifier: adoptionId, operation: "TRANSFER" });
    const refusal = { operationId: adoptionId, operationState: { state: "NOT_APPLIED" } };
    expect(
      (await the.agentApi.post(AgentRoutes.acknowledge.path, refusal, { certificate: the.fleet })).status,
    ).toBe(200);

    expect(await settledBySweeper("valves", adoptionId)).toMatchObject({
      state: "failed",
      reason: "The agent sent no debug bundle. Acknowledged NOT_APPLIED",
    });
    expect((await table().classes.get(the.tenant, "valves"))?.flowPolicy).toBeUndefined();
    expect(await get(`/classes/valves/adoptions/${adoptionId}`)).toMatchObject({ state: "failed" });
  });
});
