/**
 * A group's parameter values on the real local stack: agents in a group by label download their flow rendered
 * with the group's value and are sent the flow id of that rendering, the others the class's; an agent's own
 * value overrides the group's; an agent labelled into the group gets its value; a steady heartbeat of a
 * member still costs no DynamoDB request and one cache round trip; and agents registering together read the
 * groups once, until a group holding values changes.
 */
import { randomUUID } from "node:crypto";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeat, heartbeatOf } from "../../scripts/test-support/console-seed.js";
import { javaParameterFlow, parameterValuesIn } from "../../scripts/test-support/flow-fixtures.js";
import { type PrivateRedis, startPrivateRedis } from "../../scripts/test-support/private-redis.js";
import { createTenantSecret } from "../../scripts/test-support/secrets.js";
import { Keys } from "../adapters/dynamodb/keys.js";
import { CacheKeys } from "../adapters/redis/cache-keys.js";
import { AgentRoutes, agentFlowContentUrl } from "../core/c2/routes.js";
import { makeDocumentClient } from "../runtime/aws-clients/dynamodb.js";
import { EnvNames } from "../shared/env-names.js";

const AGENTS = ["pump-1", "pump-2", "pump-3"];
const CLASS_BROKER = "class-broker:9092";
const NORTH_BROKER = "north-broker:9092";
const ALL_BROKER = "all-broker:9092";

let redis: PrivateRedis;
let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let operator: string;
let fleet: string;
let flowHash: string;
/** The flow id each agent runs: the one its last UPDATE CONFIGURATION sent it to. */
const running = new Map<string, string>();

async function consoleCall(method: string, path: string, body?: unknown) {
  const response = await consoleApi.request(method, `/api/v1/${path}`, { token: operator, body });
  expect(response.status, `${method} ${path}: ${response.body}`).toBeLessThan(300);
  return response.json();
}

/** The agent's heartbeat on the flow it runs: the flow id of the UPDATE CONFIGURATION it is sent, if any. */
async function beat(agentId: string): Promise<string | undefined> {
  const response = await agentApi.post(
    AgentRoutes.heartbeat.path,
    heartbeatOf(agentId, "pumps", `${tenant}-java`, { flowId: running.get(agentId) }),
    { certificate: fleet },
  );
  expect(response.status).toBe(200);
  const [update] = response.json().requestedOperations as { args: Record<string, string> }[];
  const flowId = update?.args.flowId;
  if (flowId !== undefined) running.set(agentId, flowId);
  return flowId;
}

/** The agent's first heartbeat, with its manifest's operations. */
const register = (agentId: string) =>
  heartbeat(agentApi, fleet, agentId, "pumps", `${tenant}-java`, {
    operations: [{ type: "UPDATE", properties: { CONFIGURATION: {} } }],
  });

/** The brokers the agent's rendered flow carries. */
async function brokersOf(agentId: string): Promise<string | undefined> {
  const path = new URL(agentFlowContentUrl(agentApi.url, agentId, flowHash)).pathname;
  const response = await agentApi.get(path, { certificate: fleet });
  expect(response.status, response.body).toBe(200);
  return parameterValuesIn(response.body).pumps?.["kafka.brokers"] as string | undefined;
}

beforeAll(async () => {
  redis = await startPrivateRedis();
  const redisUrl = { [EnvNames.redisUrl]: redis.url };
  agentApi = await startAgentApi(redisUrl);
  consoleApi = await startConsoleApi(agentApi, redisUrl);
  tenant = `group-values-${randomUUID().slice(0, 8)}`;
  operator = await consoleApi.token({ tenant, role: "operator" });
  fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  for (const agentId of AGENTS) expect(await register(agentId)).toBe(200);
  const secretArn = await createTenantSecret(agentApi.env, tenant, "kafka", { password: "pw" });
  await consoleCall("PUT", "classes/pumps/parameters/kafka.password", {
    secretRef: `${secretArn}:SecretString:password`,
  });
  await consoleCall("PUT", "classes/pumps/parameters/kafka.brokers", { value: CLASS_BROKER });
  await consoleCall("POST", "agents/pump-2/labels", { set: { site: "north" } });
  await consoleCall("POST", "groups", { name: "north", query: { labels: ["site=north"] } });
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
  await redis?.stop();
});

describe("a group's parameter values", () => {
  it("are refused for a group selecting on what agents do", async () => {
    await consoleCall("POST", "groups", { name: "quiet", query: { status: "offline" } });
    const refused = await consoleApi.request("PUT", "/api/v1/groups/quiet/parameters/kafka.brokers", {
      token: operator,
      body: { value: NORTH_BROKER },
    });
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({ error: { message: expect.stringContaining("uses status") } });
    // Nor may a group holding values come to select on them.
    await consoleCall("PUT", "groups/north/parameters/compression", { value: "lz4" });
    const changed = await consoleApi.request("PUT", "/api/v1/groups/north", {
      token: operator,
      body: { query: { labels: ["site=north"], silentForMinutes: 5 } },
    });
    expect(changed.status).toBe(400);
    await consoleCall("DELETE", "groups/north/parameters/compression");
    expect((await consoleCall("GET", "groups/north")).parameterNames).toEqual([]);
  });

  it("reach the group's members, over the class's value and under their own", async () => {
    await consoleCall("PUT", "groups/north/parameters/kafka.brokers", { value: NORTH_BROKER });
    expect(await consoleCall("GET", "groups/north/parameters")).toMatchObject({
      items: [{ name: "kafka.brokers", value: NORTH_BROKER }],
    });
    const published = await consoleCall("POST", "classes/pumps/flows", javaParameterFlow);
    flowHash = published.hash as string;
    // The version becomes the class's target, as the rollout store writes it; the cache's copy is dropped as
    // its expiry would drop it.
    const documents = makeDocumentClient(agentApi.env);
    await documents.send(
      new UpdateCommand({
        TableName: agentApi.env[EnvNames.tableName],
        Key: Keys.agentClass(tenant, "pumps"),
        UpdateExpression: "SET flowPolicy = :policy",
        ExpressionAttributeValues: { ":policy": { target: flowHash, accepted: [flowHash] } },
      }),
    );
    documents.destroy();
    const cache = new Redis(redis.url);
    await cache.del(CacheKeys.classFlow(tenant, "pumps"));
    await cache.quit();

    // Each agent is sent the flow id of its own rendering: pump-2's carries the group's value.
    const sent = new Map<string, string | undefined>();
    for (const agentId of AGENTS) sent.set(agentId, await beat(agentId));
    for (const agentId of AGENTS) sent.set(agentId, sent.get(agentId) ?? (await beat(agentId)));
    expect(sent.get("pump-1")).toBeDefined();
    expect(sent.get("pump-2")).not.toBe(sent.get("pump-1"));
    expect(sent.get("pump-3")).toBe(sent.get("pump-1"));
    expect(await brokersOf("pump-1")).toBe(CLASS_BROKER);
    expect(await brokersOf("pump-2")).toBe(NORTH_BROKER);
    const pump2 = await consoleCall("GET", "agents/pump-2/parameters");
    expect(pump2.items).toContainEqual(
      expect.objectContaining({ name: "kafka.brokers", layer: "group", group: "north", value: NORTH_BROKER }),
    );
    for (const agentId of AGENTS) expect(await beat(agentId)).toBeUndefined();

    // The agent's own value overrides the group's: pump-2 alone is sent a new flow id.
    await consoleCall("PUT", "agents/pump-2/parameters/kafka.brokers", { value: "own-broker:9092" });
    expect(await brokersOf("pump-2")).toBe("own-broker:9092");
    expect(await beat("pump-2")).toBeDefined();
    await consoleCall("DELETE", "agents/pump-2/parameters/kafka.brokers");
    expect(await beat("pump-2")).toBe(sent.get("pump-2"));
    for (const agentId of ["pump-1", "pump-3"]) expect(await beat(agentId)).toBeUndefined();
  });

  it("reach an agent labelled into the group, and leave one labelled out", async () => {
    await consoleCall("POST", "agents/pump-3/labels", { set: { site: "north" } });
    expect(await brokersOf("pump-3")).toBe(NORTH_BROKER);
    const northFlowId = running.get("pump-2");
    expect(northFlowId).toBeDefined();
    expect(await beat("pump-3")).toBe(northFlowId);
    expect(await beat("pump-1")).toBeUndefined();

    await consoleCall("POST", "agents/pump-3/labels", { remove: ["site"] });
    expect(await brokersOf("pump-3")).toBe(CLASS_BROKER);
    expect(await beat("pump-3")).toBe(running.get("pump-1"));
  });

  it("cost a member's steady heartbeat no DynamoDB request and one cache round trip", async () => {
    expect(await beat("pump-2")).toBeUndefined();
    agentApi.dynamoDb.reset();
    const { roundTrips } = await redis.countRoundTrips(async () => {
      for (let index = 0; index < 5; index++) expect(await beat("pump-2")).toBeUndefined();
    });
    expect(agentApi.dynamoDb.counts()).toEqual({});
    expect(roundTrips).toEqual(Array.from({ length: 5 }, () => "evalsha"));
  });

  it("refuse removing the group's value while a member has it from the group alone, and keep it", async () => {
    // The flow gives kafka.password no default. The group and the others' own values give the class's
    // reference again, so no flow id changes; the class's may then go, and pump-2 has the group's alone.
    const password = "parameters/kafka.password";
    const { secretRef } = await consoleCall("GET", `classes/pumps/${password}`);
    const holders = ["groups/north", "agents/pump-1", "agents/pump-3"];
    for (const holder of holders) await consoleCall("PUT", `${holder}/${password}`, { secretRef });
    await consoleCall("DELETE", `classes/pumps/${password}`);
    const refused = await consoleApi.request("DELETE", `/api/v1/groups/north/${password}`, {
      token: operator,
    });
    expect(refused.status, refused.body).toBe(409);
    expect(refused.json().error).toMatchObject({
      code: "parameters_not_ready",
      message: expect.stringMatching(/^Removing kafka\.password would leave agents of class pumps/),
      details: { flowHash, missing: [{ parameter: "kafka.password", agentIds: ["pump-2"] }] },
    });
    await consoleCall("PUT", `classes/pumps/${password}`, { secretRef });
    for (const holder of holders) await consoleCall("DELETE", `${holder}/${password}`);
    expect(await beat("pump-2")).toBeUndefined();
  });

  it("go with the group: deleting it tells its members the class's value again", async () => {
    await consoleCall("DELETE", "groups/north");
    expect(await brokersOf("pump-2")).toBe(CLASS_BROKER);
    expect(await beat("pump-2")).toBe(running.get("pump-1"));
  });

  it("reach agents registering together with one read of the groups and their values, and the first after a change with a read of them", async () => {
    await consoleCall("POST", "groups", { name: "all-pumps", query: { classes: ["pumps"] } });
    await consoleCall("PUT", "groups/all-pumps/parameters/kafka.brokers", { value: ALL_BROKER });
    const herd = ["pump-4", "pump-5", "pump-6"];
    const queriesOf = async (agentId: string) => {
      agentApi.dynamoDb.reset();
      expect(await register(agentId)).toBe(200);
      return agentApi.dynamoDb.counts()["DynamoDB_20120810.Query"] ?? 0;
    };
    // The groups and the group's values are read by the first alone.
    const queries: number[] = [];
    for (const agentId of herd) queries.push(await queriesOf(agentId));
    const [first = 0] = queries;
    expect(queries).toEqual([first, first - 2, first - 2]);
    const herdFlowIds = new Set<string | undefined>();
    for (const agentId of herd) {
      herdFlowIds.add(await beat(agentId));
      expect(await brokersOf(agentId)).toBe(ALL_BROKER);
    }
    expect(herdFlowIds.size).toBe(1);
    expect(herdFlowIds.has(running.get("pump-1"))).toBe(false);

    // Its value changed: the next member to register reads it.
    await consoleCall("PUT", "groups/all-pumps/parameters/kafka.brokers", { value: `new-${ALL_BROKER}` });
    expect(await queriesOf("pump-7")).toBe(first);
    await beat("pump-7");
    expect(await brokersOf("pump-7")).toBe(`new-${ALL_BROKER}`);

    // Its query no longer picks an agent without labels: the next to register is no member.
    await consoleCall("PUT", "groups/all-pumps", { query: { classes: ["pumps"], labels: ["site=south"] } });
    expect(await register("pump-8")).toBe(200);
    expect(await beat("pump-8")).toBe(running.get("pump-1"));
    expect(await brokersOf("pump-8")).toBe(CLASS_BROKER);
  });
});
