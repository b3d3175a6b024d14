/**
 * The cache as AWS runs it: every call of the Redis adapters against a real Redis Cluster of three
 * masters (the global setup's), with tenants on different masters. MONITOR on every master checks that
 * each script declares every key it touches and that a tenant's calls stay in its one slot, and counts
 * the heartbeat's round trips. This file owns the cluster: an observation counts everything on it.
 */
import { randomUUID } from "node:crypto";
import { DynamoDBDocumentClient, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cppAckOf, cppHeartbeatOf, example } from "../../../scripts/common/c2-examples.js";
import { type AgentApiUnderTest, startAgentApi } from "../../../scripts/test-support/agent-api-harness.js";
import {
  type ClusterObserver,
  type ClusterTraffic,
  observeCluster,
} from "../../../scripts/test-support/cluster-observer.js";
import {
  type ConsoleApiUnderTest,
  startConsoleApi,
} from "../../../scripts/test-support/console-api-harness.js";
import type { HotSighting, SightingOutcome } from "../../core/agents/ports.js";
import type { BeaconEvent } from "../../core/events/model.js";
import type { JsonObject } from "../../core/json.js";
import { makeDynamoDbClient } from "../../runtime/aws-clients/dynamodb.js";
import { makeRedisClient } from "../../runtime/redis-client.js";
import { EnvNames } from "../../shared/env-names.js";
import { Keys } from "../dynamodb/keys.js";
import { CacheKeys } from "./cache-keys.js";
import { RedisEventBuffer } from "./event-buffer.js";
import { RedisFleetHotState } from "./fleet-hot-state.js";
import { RedisHotState } from "./hot-state.js";
import { RedisPresenceState } from "./presence.js";

/** Tenants whose hash tags fall in the three masters' slot ranges (the first test checks it). */
const TENANTS = ["stark", "acme", "umbrella"];
const supportedOperations = { DESCRIBE: ["MANIFEST"], UPDATE: ["CONFIGURATION"] };

let client: Redis | Cluster;
let hotState: RedisHotState;
let fleet: RedisFleetHotState;
let presence: RedisPresenceState;
let observer: ClusterObserver;

beforeAll(async () => {
  const url = inject("redisClusterUrl");
  client = makeRedisClient({ url, commandTimeoutMs: 2_000 });
  hotState = new RedisHotState(client);
  fleet = new RedisFleetHotState(client);
  presence = new RedisPresenceState(client);
  observer = await observeCluster(url);
});

afterAll(() => {
  client?.disconnect();
  observer?.close();
});

/** A heartbeat's sighting at a fixed time, so that all of a test's heartbeats count in one minute. */
const NOW = Date.UTC(2030, 0, 1, 12, 0, 30);
function sighting(tenant: string, agentId: string, fields: Partial<HotSighting> = {}): HotSighting {
  return {
    tenant,
    agentId,
    serialNumber: "01",
    now: NOW,
    checkpointIntervalMs: 600_000,
    catchUpRetryMs: 1_800_000,
    ...fields,
  };
}

function recorded(outcome: SightingOutcome) {
  if (!outcome.recorded) throw new Error(`the sighting was not recorded (${outcome.revocation})`);
  return outcome.sighting;
}

/** Every call of both adapters for one tenant, each checked for what it does. */
async function everyCall(tenant: string) {
  const agent = "agent-1";
  const other = "agent-2";
  const policy = { target: "flow-new", accepted: ["flow-new"], ackTimeoutMs: 60_000, renderings: [] };

  // Revocation: the script refuses without the tenant's list and for a revoked serial.
  expect(await hotState.recordSighting(sighting(tenant, agent))).toEqual({
    recorded: false,
    revocation: "unknown",
  });
  await hotState.rememberRevocations(tenant, ["0BAD"]);
  expect(await hotState.revocationOf(tenant, "0BAD")).toBe("revoked");
  expect(await hotState.revocationOf(tenant, "01")).toBe("clear");
  expect(await hotState.recordSighting(sighting(tenant, agent, { serialNumber: "0BAD" }))).toEqual({
    recorded: false,
    revocation: "revoked",
  });
  await fleet.revokeSerial(tenant, "0BAD2", NOW);
  expect(await hotState.revocationOf(tenant, "0BAD2")).toBe("revoked");

  // First sight, then what the heartbeat learns from the registry.
  const first = recorded(
    await hotState.recordSighting(
      sighting(tenant, agent, { agentClass: "gateways", manifestHash: "m-1", flowId: "flow-old" }),
    ),
  );
  expect(first).toMatchObject({ registered: false, agentClass: "gateways", classFlowUnknown: true });
  expect(
    await hotState.markRegistered(tenant, agent, { now: NOW, ownValues: new Map(), agentClass: "gateways" }),
  ).toBe(true);
  expect(await hotState.rememberClass(tenant, "gateways")).toBe(false);
  expect(await hotState.rememberClass(tenant, "valves")).toBe(true);
  const manifestId = "d".repeat(64);
  expect(await hotState.isManifestStored(tenant, manifestId)).toBe(false);
  await hotState.rememberManifestStored(tenant, manifestId);
  expect(await hotState.isManifestStored(tenant, manifestId)).toBe(true);
  await hotState.rememberAgentManifest(tenant, agent, {
    hash: "m-1",
    manifestId,
    supportedOperations,
    heartbeatPeriodMs: 5_000,
  });
  await hotState.rememberDescribe(tenant, agent, NOW + 60_000);
  await hotState.rememberDescribe(tenant, agent, undefined);
  await hotState.rememberClassFlow(tenant, "gateways", policy, 60_000);
  await fleet.rememberClassFlow(tenant, "sensors", undefined, 60_000);

  // A steady heartbeat on a flow its class no longer accepts claims the catch-up.
  expect(await hotState.recordSighting(sighting(tenant, agent, { agentClass: "gateways" }))).toMatchObject({
    recorded: true,
    sighting: {
      registered: true,
      flowId: "flow-old",
      manifestId,
      supportedOperations,
      catchUp: { flowId: "flow-new", ackTimeoutMs: 60_000 },
      classFlowUnknown: false,
    },
  });
  // Without its class, the agent keeps the one the cache holds; with another, it moves between indexes.
  expect(recorded(await hotState.recordSighting(sighting(tenant, agent))).agentClass).toBe("gateways");
  expect(
    recorded(await hotState.recordSighting(sighting(tenant, agent, { agentClass: "sensors" }))),
  ).toMatchObject({ agentClass: "sensors", previous: { agentClass: "gateways" }, classFlowUnknown: false });

  // Operations queued for the agent, seen by its next heartbeat, and the marker cleared.
  await fleet.markOperationsPending(tenant, [agent, other]);
  const version = recorded(
    await hotState.recordSighting(sighting(tenant, agent, { agentClass: "sensors" })),
  ).operationsPending;
  expect(version).toBe("1");
  await hotState.clearOperationsPending(tenant, agent, version as string);
  expect(
    recorded(await hotState.recordSighting(sighting(tenant, agent, { agentClass: "sensors" })))
      .operationsPending,
  ).toBeUndefined();

  // The console's reads.
  const agents = await fleet.agents(tenant, [agent, other]);
  expect(agents.get(agent)).toMatchObject({ agentClass: "sensors", manifestHash: "m-1", flowId: "flow-old" });
  expect(agents.has(other)).toBe(false);
  const classes = [
    { name: "gateways", onlineSince: NOW },
    { name: "sensors", onlineSince: NOW },
  ];
  expect(await fleet.classCounts(tenant, classes)).toEqual(
    new Map([
      ["gateways", { total: 0, online: 0 }],
      ["sensors", { total: 1, online: 1 }],
    ]),
  );
  const minute = Math.floor(NOW / 60_000);
  expect(await fleet.heartbeatsPerMinute(tenant, [minute - 1, minute])).toEqual([0, 6]);
  // A page of the agents needing attention, read from each class's index (and its cursor's score) at once.
  const silentSince = classes.map((agentClass) => ({ ...agentClass, onlineSince: NOW + 60_000 }));
  for (const after of [undefined, { score: 0, agentId: "" }])
    expect(
      (await fleet.attentionPage(tenant, silentSince, "offline", NOW, { after, limit: 10 })).map(
        ({ agentId }) => agentId,
      ),
    ).toEqual([agent]);

  // The sweeper marks the silent agent offline once; its next heartbeat clears the mark.
  expect(await presence.tenants()).toContain(tenant);
  // Agents silent since before Beacon scheduled agents: none here, as every one heartbeat since.
  expect(await presence.allScheduled(tenant)).toBe(false);
  expect(await presence.scheduleSilent(tenant, "sensors", 60_000, 10)).toEqual({ read: 1, done: true });
  await presence.markAllScheduled(tenant, ["sensors"]);
  // Its manifest states 5 s: it is overdue 15 s after its last heartbeat.
  expect(await presence.markOverdue(tenant, NOW + 15_001, 10)).toEqual({
    marked: [{ agentId: agent, agentClass: "sensors", lastSeen: NOW, heartbeatPeriodMs: 5_000 }],
    more: false,
  });
  expect((await presence.markOverdue(tenant, NOW + 15_001, 10)).marked).toEqual([]);
  expect(
    recorded(await hotState.recordSighting(sighting(tenant, agent, { agentClass: "sensors", now: NOW + 1 })))
      .offlineLastSeen,
  ).toBe(NOW);
  // Restarting for an operation, it is marked once its restart is over, though the sweep went past it before.
  await hotState.rememberRestart(tenant, agent, NOW + 20_000);
  expect((await presence.markOverdue(tenant, NOW + 30_000, 10)).marked).toEqual([]);
  expect(await presence.markOverdue(tenant, NOW + 35_001, 10)).toEqual({
    marked: [{ agentId: agent, agentClass: "sensors", lastSeen: NOW + 1, heartbeatPeriodMs: 5_000 }],
    more: false,
  });

  // An operation's outcome, from the acknowledgement (queued while the agent was a gateway: the cache's class
  // wins, a second call) and from the sweeper.
  await hotState.recordOperationOutcome(tenant, agent, "gateways", true, NOW);
  await fleet.recordOperationOutcome(tenant, agent, "sensors", false, NOW + 1);
  await fleet.recordOperationOutcome(tenant, agent, "sensors", true, NOW + 2);
  const bothClasses = [
    { name: "gateways", onlineSince: 0 },
    { name: "sensors", onlineSince: 0 },
  ];
  expect(await fleet.attentionPage(tenant, bothClasses, "operationFailed", NOW, { limit: 10 })).toEqual([
    { agentId: agent, score: NOW + 2 },
  ]);

  await fleet.forgetAgent(tenant, agent, ["gateways", "sensors"]);
  expect((await fleet.agents(tenant, [agent])).size).toBe(0);
  expect((await fleet.classCounts(tenant, classes)).get("sensors")).toEqual({ total: 0, online: 0 });
}

/**
 * The traffic stayed in the tenant's slot but for the keys of no tenant it touched, sets of tenants the
 * sweeper reads, which only single commands of clients touch.
 */
async function expectTenantAndTenantsSet(
  traffic: ClusterTraffic<unknown>,
  tenant: string,
  tenantsSets = [CacheKeys.tenantsWithClasses()],
) {
  const keys = [CacheKeys.classes(tenant), ...tenantsSets];
  const slots = await Promise.all(keys.map((key) => observer.slotOf(key)));
  const nodes = await Promise.all(keys.map((key) => observer.nodeOf(key)));
  expect(traffic.slots).toEqual([...new Set(slots)].sort((a, b) => a - b));
  expect(traffic.nodes).toEqual([...new Set(nodes)].sort());
  const inScripts = (key: string) => traffic.scriptCommands.filter((command) => command.includes(key));
  expect(tenantsSets.flatMap(inScripts)).toEqual([]);
}

describe("the cluster", () => {
  it("has the test's tenants on its three masters", async () => {
    const masters = await Promise.all(TENANTS.map((tenant) => observer.nodeOf(CacheKeys.classes(tenant))));
    expect(new Set(masters).size).toBe(3);
  });
});

describe.each(TENANTS)("every cache call of tenant %s", (tenant) => {
  it("declares every key its scripts touch and stays in the tenant's slot, on the tenant's master", async () => {
    const traffic = await observer.observe(() => everyCall(tenant));

    expect(traffic.undeclaredKeys).toEqual([]);
    await expectTenantAndTenantsSet(traffic, tenant, [
      CacheKeys.tenantsWithClasses(),
      CacheKeys.tenantsScheduled(),
    ]);
    // The check saw inside the scripts: the class index and policy keys, known only from data, among them.
    expect(traffic.scriptCommands).toEqual(
      expect.arrayContaining([
        `ZADD ${CacheKeys.classIndex(tenant, "sensors")}`,
        `ZREM ${CacheKeys.classIndex(tenant, "gateways")}`,
        `ZADD ${CacheKeys.attention(tenant, "sensors", "operationFailed")}`,
        `HMGET ${CacheKeys.classFlow(tenant, "gateways")}`,
        `HSET ${CacheKeys.revokedSerials(tenant)}`,
        `DEL ${CacheKeys.pendingOperations(tenant, "agent-1")}`,
        `ZADD ${CacheKeys.offlineDue(tenant)}`,
        `HSET ${CacheKeys.offlineDueAgents(tenant)}`,
        `ZRANGEBYSCORE ${CacheKeys.offlineDue(tenant)}`,
        `HSETNX ${CacheKeys.offlineMarks(tenant)}`,
        `HDEL ${CacheKeys.offlineMarks(tenant)}`,
        `HSETNX ${CacheKeys.offlineDueAgents(tenant)}`,
        `HSET ${CacheKeys.offlineScheduling(tenant)}`,
      ]),
    );
  });
});

describe("the event buffer on the cluster", () => {
  it("holds and drops in one slot, its scripts declaring the list and the tenants' counts, each tenant bounded", async () => {
    const streamName = `cluster-${randomUUID().slice(0, 8)}`;
    const buffer = new RedisEventBuffer(client, streamName, { maxEvents: 4, maxEventsPerTenant: 2 });
    const event = (tenant: string, index: number): BeaconEvent => ({
      type: "heartbeat",
      version: 1,
      eventId: `h-${index}`,
      tenant,
      agentId: "agent-1",
      at: NOW + index,
      firstSight: false,
      operationsSent: [],
    });
    const [stark, acme] = TENANTS as [string, string];
    const traffic = await observer.observe(async () => {
      const flood = await buffer.hold([event(stark, 1), event(stark, 2), event(stark, 3), event(acme, 4)]);
      await buffer.drop(await buffer.peek(1));
      const after = await buffer.hold([event(stark, 5), event(acme, 6)]);
      return { flood, after, held: await buffer.peek(10) };
    });
    expect(traffic.result.flood).toEqual({ refused: [event(stark, 3)] });
    expect(traffic.result.after).toEqual({ refused: [] });
    expect(traffic.result.held.map((held) => held.eventId)).toEqual(["h-2", "h-4", "h-5", "h-6"]);
    expect(traffic.undeclaredKeys).toEqual([]);
    expect(traffic.slots).toEqual([await observer.slotOf(CacheKeys.heldEvents(streamName))]);
    expect(traffic.scriptCommands).toEqual(
      expect.arrayContaining([
        `HINCRBY ${CacheKeys.heldEventsByTenant(streamName)}`,
        `RPUSH ${CacheKeys.heldEvents(streamName)}`,
        `LTRIM ${CacheKeys.heldEvents(streamName)}`,
      ]),
    );
  });
});

describe("the heartbeat's round trips on the cluster", () => {
  const tenant = "acme";
  const steady = (agentId: string, agentClass?: string) =>
    hotState.recordSighting(sighting(tenant, agentId, { agentClass, now: Date.now() }));

  beforeAll(async () => {
    await hotState.rememberRevocations(tenant, []);
  });

  it("is one EVALSHA for a steady heartbeat, which reports the class the cache holds", async () => {
    await steady("steady", "gateways");
    const traffic = await observer.observe(async () => {
      for (let index = 0; index < 10; index++) recorded(await steady("steady", "gateways"));
    });
    expect(traffic.roundTrips).toEqual(Array.from({ length: 10 }, () => "evalsha"));
    expect(traffic.undeclaredKeys).toEqual([]);
  });

  it("is one EVALSHA for an agent that has never reported a class", async () => {
    await steady("classless");
    const traffic = await observer.observe(async () => recorded(await steady("classless")));
    expect(traffic.result.agentClass).toBeUndefined();
    expect(traffic.roundTrips).toEqual(["evalsha"]);
  });

  it("is two when the heartbeat leaves out the class the cache holds: the first names it and changes nothing", async () => {
    await steady("quiet", "gateways");
    const traffic = await observer.observe(async () => recorded(await steady("quiet")));
    expect(traffic.result).toMatchObject({ agentClass: "gateways", previous: { agentClass: "gateways" } });
    expect(traffic.roundTrips).toEqual(["evalsha", "evalsha"]);
    const agentWrites = (command: string) => command === `HSET ${CacheKeys.agent(tenant, "quiet")}`;
    expect(traffic.scriptCommands.filter(agentWrites)).toHaveLength(1);
    expect(traffic.undeclaredKeys).toEqual([]);
  });

  it("is two when the agent changes class, which leaves the old class's index for the new one's", async () => {
    await steady("mover", "gateways");
    const traffic = await observer.observe(async () => recorded(await steady("mover", "sensors")));
    expect(traffic.result).toMatchObject({ agentClass: "sensors", previous: { agentClass: "gateways" } });
    expect(traffic.roundTrips).toEqual(["evalsha", "evalsha"]);
    expect(traffic.undeclaredKeys).toEqual([]);
    expect(await client.zscore(CacheKeys.classIndex(tenant, "gateways"), "mover")).toBeNull();
    expect(await client.zscore(CacheKeys.classIndex(tenant, "sensors"), "mover")).not.toBeNull();
  });

  it("leaves an agent whose heartbeats race with different classes in the index of the class it holds only", async () => {
    const classes = ["gateways", "sensors", undefined];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 60 }, (_, index) => steady("racer", classes[index % classes.length])),
    );
    // A heartbeat whose class another one changed between its two calls fails, and falls back to the registry.
    for (const outcome of outcomes) {
      if (outcome.status === "rejected")
        expect(outcome.reason).toEqual(new Error("The agent's class changed during its heartbeat"));
    }
    expect(outcomes.some((outcome) => outcome.status === "fulfilled")).toBe(true);
    const held = await client.hget(CacheKeys.agent(tenant, "racer"), "agentClass");
    const indexed = await Promise.all(
      ["gateways", "sensors"].map(async (name) =>
        (await client.zscore(CacheKeys.classIndex(tenant, name), "racer")) === null ? [] : [name],
      ),
    );
    expect(indexed.flat()).toEqual([held]);
  });
});

describe("the agent and console APIs on the cluster", () => {
  const HEARTBEAT = "/c2/api/heartbeat";
  const ACKNOWLEDGE = "/c2/api/acknowledge";
  const CLASS = "gateways";
  const target = "c4".repeat(32);
  let agentApi: AgentApiUnderTest;
  let consoleApi: ConsoleApiUnderTest;
  let documents: DynamoDBDocumentClient;
  let tenant: string;
  let fleetCertificate: string;
  let operator: string;

  beforeAll(async () => {
    const cache = { [EnvNames.redisUrl]: inject("redisClusterUrl") };
    agentApi = await startAgentApi(cache);
    consoleApi = await startConsoleApi(agentApi, cache);
    tenant = `cluster-${randomUUID().slice(0, 8)}`;
    fleetCertificate = await agentApi.issueCertificate({ tenant, fleet: true });
    operator = await consoleApi.token({ tenant, role: "operator" });
    documents = DynamoDBDocumentClient.from(makeDynamoDbClient(agentApi.env));
  });

  afterAll(async () => {
    documents?.destroy();
    await consoleApi?.close();
    await agentApi?.close();
  });

  async function heartbeat(body: JsonObject) {
    const response = await agentApi.post(HEARTBEAT, body, { certificate: fleetCertificate });
    expect(response.status).toBe(200);
    return response.json().requestedOperations as {
      identifier: string;
      operation: string;
      operand?: string;
    }[];
  }

  async function acknowledge(body: JsonObject) {
    expect((await agentApi.post(ACKNOWLEDGE, body, { certificate: fleetCertificate })).status).toBe(200);
  }

  const consoleCall = (method: string, path: string, body?: JsonObject) =>
    consoleApi.request(method, path, { token: operator, body });

  /** The Java agent's light heartbeat, on a manifest Beacon does not know, and its answer to DESCRIBE. */
  function javaAgent(agentId: string, manifestHash: string) {
    const beat = example("java-2.3.0/heartbeat-light.json");
    const ack = example("java-2.3.0/ack-describe-manifest.json");
    for (const message of [beat, ack]) {
      Object.assign(message.agentInfo as JsonObject, {
        identifier: agentId,
        agentManifestHash: manifestHash,
      });
    }
    beat.agentId = agentId;
    return {
      heartbeat: beat,
      describeAck: (operationId: string) => ({ ...ack, operationId }),
    };
  }

  it("keeps the heartbeat's, the acknowledgement's and the console's cache work in the tenant's slot, every script key declared", async () => {
    const traffic = await observer.observe(async () => {
      // A Java agent Beacon asks for its manifest, and its answer.
      const java = javaAgent("java-1", `${tenant}-manifest`);
      const [describe] = await heartbeat(java.heartbeat);
      expect(describe).toMatchObject({ operation: "DESCRIBE", operand: "MANIFEST" });
      await acknowledge(java.describeAck(describe?.identifier as string));

      // A C++ agent, first seen and then steady.
      expect(await heartbeat(cppHeartbeatOf("cpp-1", CLASS, true))).toEqual([]);
      expect(await heartbeat(cppHeartbeatOf("cpp-1", CLASS))).toEqual([]);

      // An operation queued through the console, delivered by the next heartbeat and acknowledged.
      const queued = await consoleCall("POST", "/api/v1/operations", {
        agentId: "cpp-1",
        operation: "RESTART",
      });
      expect(queued.status).toBe(201);
      const [restart] = await heartbeat(cppHeartbeatOf("cpp-1", CLASS));
      expect(restart).toMatchObject({ operation: "RESTART" });
      await acknowledge(cppAckOf("cpp-1", restart?.identifier as string, "FULLY_APPLIED"));

      // A flow for the class (as the rollout store writes it), which the console writes through to the
      // cache when it changes the class, and the catch-up the next heartbeat claims.
      await documents.send(
        new UpdateCommand({
          TableName: agentApi.env[EnvNames.tableName],
          Key: Keys.agentClass(tenant, CLASS),
          UpdateExpression: "SET flowPolicy = :policy",
          ExpressionAttributeValues: { ":policy": { target, accepted: [target] } },
        }),
      );
      expect((await consoleCall("PUT", `/api/v1/classes/${CLASS}`, { ackTimeoutSeconds: 120 })).status).toBe(
        200,
      );
      const [update] = await heartbeat(cppHeartbeatOf("cpp-1", CLASS));
      expect(update).toMatchObject({
        operation: "UPDATE",
        operand: "CONFIGURATION",
        args: { flowId: target },
      });
      await acknowledge(cppAckOf("cpp-1", update?.identifier as string, "FULLY_APPLIED"));

      // The console's reads come from the cache; a decommission drops the agent from it.
      expect((await consoleCall("GET", `/api/v1/classes/${CLASS}`)).json()).toMatchObject({
        countsFrom: "cache",
      });
      expect((await consoleCall("GET", "/api/v1/agents/cpp-1")).json()).toMatchObject({
        lastSeenFrom: "cache",
      });
      const summary = (await consoleCall("GET", "/api/v1/fleet/summary")).json();
      expect((summary.heartbeatsPerMinute as { count: number }[]).some(({ count }) => count > 0)).toBe(true);
      expect((await consoleCall("DELETE", "/api/v1/agents/java-1")).status).toBe(200);
    });

    expect(traffic.undeclaredKeys).toEqual([]);
    await expectTenantAndTenantsSet(traffic, tenant);
    expect(traffic.scriptCommands).toEqual(
      expect.arrayContaining([
        `ZADD ${CacheKeys.classIndex(tenant, CLASS)}`,
        `HMGET ${CacheKeys.classFlow(tenant, CLASS)}`,
        `SET ${CacheKeys.catchUp(tenant, "cpp-1")}`,
        `DEL ${CacheKeys.pendingOperations(tenant, "cpp-1")}`,
      ]),
    );
  });

  it("answers a steady heartbeat with one EVALSHA and no DynamoDB request", async () => {
    await heartbeat(cppHeartbeatOf("cpp-2", CLASS, true));
    await heartbeat(cppHeartbeatOf("cpp-2", CLASS));
    agentApi.dynamoDb.reset();
    const steadyHeartbeats = 10;
    const traffic = await observer.observe(async () => {
      for (let index = 0; index < steadyHeartbeats; index++) {
        expect(await heartbeat(cppHeartbeatOf("cpp-2", CLASS))).toEqual([]);
      }
    });
    expect(agentApi.dynamoDb.counts()).toEqual({});
    expect(traffic.roundTrips).toEqual(Array.from({ length: steadyHeartbeats }, () => "evalsha"));
    expect(traffic.undeclaredKeys).toEqual([]);
  });
});
