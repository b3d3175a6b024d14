import { randomUUID, X509Certificate } from "node:crypto";

import { readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cppAgentOf, example, exampleText, type VariedAgent } from "../../scripts/common/c2-examples.js";
import { metricLines } from "../../scripts/local/function-metrics.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type PrivateRedis, startPrivateRedis } from "../../scripts/test-support/private-redis.js";
import { readWholeStream } from "../../scripts/test-support/stream-reader.js";
import { DynamoAgentRegistry } from "../adapters/dynamodb/agent-registry.js";
import { Keys } from "../adapters/dynamodb/keys.js";
import { DynamoManifestStore } from "../adapters/dynamodb/manifest-store.js";
import { CacheKeys } from "../adapters/redis/cache-keys.js";
import { loadSampleOfText } from "../core/agents/load-samples.js";
import { AgentRoutes } from "../core/c2/routes.js";
import { canonicalSerial } from "../core/identity/credentials.js";
import type { JsonObject } from "../core/json.js";
import { binaryOf } from "../core/manifests/canonical.js";
import { makeDynamoDbClient } from "../runtime/aws-clients/dynamodb.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { EnvNames } from "../shared/env-names.js";
import { eventValidator } from "../shared/event-validators.js";
import { Validators } from "../shared/schemas.js";

let api: AgentApiUnderTest;
let tenant: string;
let fleet: string;
let documents: DynamoDBDocumentClient;
let accepted = 0;

const HEARTBEAT = "/c2/api/heartbeat";
/** Agents in the herd test, all C++ agents of the fixture's build, and how many requests it has in flight. */
const HERD = 2_000;
const HERD_IN_FLIGHT = 100;
/** As long as an invocation allows (its 10 s, less the second kept to answer in). */
const HERD_STORAGE_SHARE_MS = 9_000;
const ACKNOWLEDGE = "/c2/api/acknowledge";

/** Sends and counts what Beacon accepted, so the stream can be checked against it at the end. */
async function post(path: string, body: unknown, options: Parameters<AgentApiUnderTest["post"]>[2] = {}) {
  const response = await api.post(path, body, { certificate: fleet, ...options });
  if (response.status === 200) accepted++;
  return response;
}

const javaHeartbeat = (agentId: string, hash?: string): JsonObject => {
  const heartbeat = example("java-2.3.0/heartbeat-light.json");
  const agentInfo = heartbeat.agentInfo as JsonObject;
  agentInfo.identifier = agentId;
  heartbeat.agentId = agentId;
  if (hash) agentInfo.agentManifestHash = hash;
  return heartbeat;
};

const javaAck = (agentId: string, operationId: string, hash?: string): JsonObject => {
  const ack = example("java-2.3.0/ack-describe-manifest.json");
  ack.operationId = operationId;
  const agentInfo = ack.agentInfo as JsonObject;
  agentInfo.identifier = agentId;
  if (hash) agentInfo.agentManifestHash = hash;
  return ack;
};

const cppHeartbeat = (file: string, agentId: string): JsonObject => {
  const heartbeat = example(file);
  (heartbeat.agentInfo as JsonObject).identifier = agentId;
  return heartbeat;
};

const operationsOf = (response: { json(): Record<string, unknown> }) =>
  response.json().requestedOperations as { identifier: string; operation: string; operand?: string }[];

/** The binary a manifest describes: its canonical identity and the content stored under it. */
const binaryIn = (message: JsonObject) =>
  binaryOf((message.agentInfo as JsonObject).agentManifest as JsonObject);

/** The tenant's stored manifest contents: the one of a binary, or all. */
async function manifestItems(manifestId?: string, ofTenant = tenant) {
  const tenant = ofTenant;
  const { Items = [] } = await documents.send(
    new QueryCommand({
      TableName: api.env.BEACON_TABLE_NAME,
      KeyConditionExpression: manifestId ? "pk = :pk AND sk = :sk" : "pk = :pk",
      ExpressionAttributeValues: manifestId
        ? { ":pk": Keys.manifest(tenant, manifestId).pk, ":sk": Keys.manifest(tenant, manifestId).sk }
        : { ":pk": Keys.manifest(tenant, "").pk },
      ProjectionExpression: "sk",
    }),
  );
  return Items;
}

/** Runs work over items with at most `limit` in flight. */
async function inFlight<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index] as T);
      }
    }),
  );
  return results;
}

let redis: PrivateRedis;

beforeAll(async () => {
  redis = await startPrivateRedis();
  api = await startAgentApi({
    BEACON_REDIS_URL: redis.url,
    // What requests cost, a herd's among them, with DynamoDB Local given the seconds a loaded machine makes it
    // take: DynamoDB's share of the answer budget, a fault's bound, is answer-budget.itest.ts's to hold.
    [EnvNames.agentStorageShareMs]: String(HERD_STORAGE_SHARE_MS),
  });
  tenant = `t-${randomUUID().slice(0, 8)}`;
  fleet = await api.issueCertificate({ tenant, fleet: true });
  documents = DynamoDBDocumentClient.from(makeDynamoDbClient(api.env));
});

afterAll(async () => {
  await api?.close();
  await redis?.stop();
});

describe("the Java agent's conversation", () => {
  it("asks DESCRIBE MANIFEST, stores the manifest from the ack once, then sends nothing", async () => {
    const agentId = "java-1";
    const first = await post(HEARTBEAT, javaHeartbeat(agentId));
    expect(first.status).toBe(200);
    const [describe] = operationsOf(first);
    expect(describe).toMatchObject({ operation: "DESCRIBE", operand: "MANIFEST" });
    expect(Validators.heartbeatResponse(first.json())).toBe(true);

    const again = await post(HEARTBEAT, javaHeartbeat(agentId));
    expect(operationsOf(again)).toEqual([]);

    const ack = javaAck(agentId, describe?.identifier as string);
    expect((await post(ACKNOWLEDGE, ack)).status).toBe(200);
    const next = await post(HEARTBEAT, javaHeartbeat(agentId));
    expect(operationsOf(next)).toEqual([]);

    const { manifestId, canonicalJson } = binaryIn(ack);
    expect(await manifestItems(manifestId)).toHaveLength(1);
    const stored = await new DynamoManifestStore(documents, api.env.BEACON_TABLE_NAME as string).read(
      tenant,
      manifestId,
    );
    expect(stored).toBe(canonicalJson);
  });
});

describe("the incumbent C2 server's paths", () => {
  type Spelling = { heartbeat: string; acknowledge: string };
  const beacons: Spelling = {
    heartbeat: AgentRoutes.heartbeat.path,
    acknowledge: AgentRoutes.acknowledge.path,
  };
  const incumbents: Spelling = {
    heartbeat: AgentRoutes.heartbeat.incumbentPath,
    acknowledge: AgentRoutes.acknowledge.incumbentPath,
  };

  /**
   * A new Java agent's first conversation at one spelling of the routes, and a heartbeat the schema refuses:
   * each answer's status and body, with what is the agent's own (its id, its operation's) made alike.
   */
  async function conversation(paths: Spelling, options: { gzip: boolean; chunked: boolean }) {
    const agentId = `java-${randomUUID()}`;
    const hash = `hash-${randomUUID()}`;
    const first = await post(paths.heartbeat, javaHeartbeat(agentId, hash), options);
    const operationId = operationsOf(first)[0]?.identifier as string;
    const acknowledged = await post(paths.acknowledge, javaAck(agentId, operationId, hash), options);
    const next = await post(paths.heartbeat, javaHeartbeat(agentId, hash), options);
    const refused = await post(paths.heartbeat, { agentInfo: "x" }, options);
    return [first, acknowledged, next, refused].map(({ status, body }) => [
      status,
      body.replaceAll(operationId, "<operation>").replaceAll(agentId, "<agent>"),
    ]);
  }

  // The C++ agent sends plain JSON, or gzip with a Content-Length; the Java agent gzip, chunked.
  it.each([
    ["plain JSON", { gzip: false, chunked: false }],
    ["gzip", { gzip: true, chunked: false }],
    ["gzip sent chunked", { gzip: true, chunked: true }],
  ])(
    "answers heartbeats and an acknowledgement there exactly as at Beacon's own (%s)",
    async (_, options) => {
      const atBeacon = await conversation(beacons, options);
      const atIncumbent = await conversation(incumbents, options);
      expect(atIncumbent).toEqual(atBeacon);
      expect(atBeacon.map(([status]) => status)).toEqual([200, 200, 200, 400]);
      expect(atBeacon[0]?.[1]).toContain('"operand":"MANIFEST"');
      expect(JSON.parse(atBeacon[2]?.[1] as string)).toEqual({ requestedOperations: [] });
    },
  );
});

describe("the C++ agent's payloads", () => {
  it.each([false, true])("registers a ~900 KB full heartbeat in one request (gzip: %s)", async (gzip) => {
    const agentId = `cpp-full-${gzip}`;
    const response = await post(
      HEARTBEAT,
      exampleText("cpp/heartbeat-full.json").replace("9628acfe-b9fe-11ef-a0c0-10f60a596f64", agentId),
      { gzip },
    );
    expect(response.status).toBe(200);
    expect(operationsOf(response)).toEqual([]);
    expect(await manifestItems(binaryIn(example("cpp/heartbeat-full.json")).manifestId)).toHaveLength(1);
  });

  it("accepts the light heartbeat and its minimized and stringified variants", async () => {
    const light = cppHeartbeat("cpp/heartbeat-light.json", "cpp-light");
    expect((await post(HEARTBEAT, light)).status).toBe(200);

    const minimized = structuredClone(light);
    delete minimized.deviceInfo;
    delete minimized.flowInfo;
    delete (minimized.agentInfo as JsonObject).status;
    expect((await post(HEARTBEAT, minimized)).status).toBe(200);

    const stringified = JSON.parse(
      JSON.stringify(light, (_key, value) =>
        typeof value === "number" || typeof value === "boolean" ? String(value) : value,
      ),
    );
    const response = await post(HEARTBEAT, stringified);
    expect(response.status).toBe(200);
    expect(Array.isArray(response.json().requestedOperations)).toBe(true);
  });

  it("accepts gzip sent chunked without Content-Length, as the Java agent sends it", async () => {
    const response = await post(HEARTBEAT, javaHeartbeat("java-chunked", `chunked-${randomUUID()}`), {
      gzip: true,
      chunked: true,
    });
    expect(response.status).toBe(200);
    expect(operationsOf(response)[0]).toMatchObject({ operation: "DESCRIBE" });
  });
});

describe("identity", () => {
  it("refuses an agent certificate speaking for another agent with 403 and records nothing", async () => {
    const certificate = await api.issueCertificate({ tenant, agentId: "honest-agent" });
    api.dynamoDb.reset();
    api.kinesis.reset();
    const response = await api.post(HEARTBEAT, javaHeartbeat("someone-else"), { certificate });
    expect(response.status).toBe(403);
    expect(response.json()).toMatchObject({ error: { code: "identity_mismatch" } });
    expect(api.dynamoDb.counts()).toEqual({});
    expect(api.kinesis.counts()).toEqual({});
  });

  it("lets an agent certificate speak for its own agent", async () => {
    const certificate = await api.issueCertificate({ tenant, agentId: "honest-agent" });
    const response = await post(HEARTBEAT, javaHeartbeat("honest-agent"), { certificate });
    expect(response.status).toBe(200);
  });
});

describe("revoked certificates", () => {
  async function revoke(certificate: string, { inCache }: { inCache: boolean }) {
    const pem = readFileSync(path.join(api.certsDir, `${certificate}.pem`), "utf8");
    const serial = canonicalSerial(new X509Certificate(pem).serialNumber);
    await documents.send(
      new PutCommand({
        TableName: api.env.BEACON_TABLE_NAME,
        Item: { ...Keys.revokedSerial(tenant, serial), serial, revokedAt: Date.now() },
      }),
    );
    const redis = new Redis(api.env.BEACON_REDIS_URL as string);
    // What the console does on revocation; without it the cache's copy of the list expires instead.
    if (inCache) await redis.hset(CacheKeys.revokedSerials(tenant), serial, String(Date.now()));
    else await redis.del(CacheKeys.revokedSerials(tenant));
    await redis.quit();
  }

  it.each([true, false])(
    "are refused with 403, recording nothing (revocation in cache: %s)",
    async (inCache) => {
      const agentId = `revoked-${inCache}`;
      const certificate = await api.issueCertificate({ tenant, agentId });
      expect((await post(HEARTBEAT, javaHeartbeat(agentId), { certificate })).status).toBe(200);
      await revoke(certificate, { inCache });
      api.kinesis.reset();
      const refused = await api.post(HEARTBEAT, javaHeartbeat(agentId), { certificate });
      expect(refused.status).toBe(403);
      expect(refused.json()).toMatchObject({ error: { code: "certificate_revoked" } });
      const ack = await api.post(ACKNOWLEDGE, javaAck(agentId, "op-x"), { certificate });
      expect(ack.status).toBe(403);
      expect(api.kinesis.counts()).toEqual({});
    },
  );
});

describe("bad input", () => {
  it.each([
    ["malformed JSON", "{not json", {}, 400],
    ["a JSON array", "[1,2]", {}, 400],
    ["nesting past the limit", `${"[".repeat(10_000)}${"]".repeat(10_000)}`, {}, 400],
    ["a body that is not gzip", "plain text", { "content-encoding": "gzip" }, 400],
    ["an unknown encoding", "{}", { "content-encoding": "br" }, 415],
    ["a heartbeat with a wrongly typed section", { agentInfo: "x" }, {}, 400],
  ])("answers %s with a JSON 4xx and records nothing", async (_name, body, headers, status) => {
    api.dynamoDb.reset();
    api.kinesis.reset();
    const response = await api.post(HEARTBEAT, body, { certificate: fleet, headers });
    expect(response.status).toBe(status);
    expect(response.json()).toHaveProperty("error.code");
    expect(api.dynamoDb.counts()).toEqual({});
    expect(api.kinesis.counts()).toEqual({});
  });

  it("answers a gzip bomb with 413, quickly and within bounded memory", async () => {
    const bomb = gzipSync(Buffer.alloc(1024 * 1024 * 1024, " "));
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const heapBefore = process.memoryUsage().rss;
    api.dynamoDb.reset();
    const response = await api.post(HEARTBEAT, "", {
      certificate: fleet,
      headers: { "content-encoding": "gzip" },
      rawBody: bomb,
    });
    expect(response.status).toBe(413);
    expect(response.json()).toMatchObject({ error: { code: "payload_too_large" } });
    expect(process.memoryUsage().rss - heapBefore).toBeLessThan(256 * 1024 * 1024);
    expect(api.dynamoDb.counts()).toEqual({});
  });

  it("answers an unknown route with 404 JSON, the incumbent C2 server's other paths among them", async () => {
    for (const unknown of [
      "/c2/api/nothing-here",
      "/efm/api/c2-protocol/nothing-here",
      "/efm/api/heartbeat",
    ]) {
      const response = await api.post(unknown, {}, { certificate: fleet });
      expect(response.status, unknown).toBe(404);
      expect(response.json(), unknown).toBeTypeOf("object");
    }
  });
});

describe("a herd of agents of one build, each reporting a manifest hash of its own", () => {
  it("stores the binary's content once, answers every request, and asks each agent at most once", async () => {
    const herdTenant = `herd-${randomUUID().slice(0, 8)}`;
    const certificate = await api.issueCertificate({ tenant: herdTenant, fleet: true });
    const statuses = new Map<number, number>();
    const describes = new Map<string, string[]>();
    const send = async (agentId: string, path: string, body: JsonObject) => {
      const response = await api.post(path, body, { certificate });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status !== 200 || path !== HEARTBEAT) return;
      for (const operation of operationsOf(response))
        describes.set(agentId, [...(describes.get(agentId) ?? []), operation.identifier]);
    };
    /** One phase of the herd, all agents at once (HERD_IN_FLIGHT requests in flight), and what it cost. */
    const phase = async (
      name: string,
      work: (agent: VariedAgent) => Promise<void>,
      agents: VariedAgent[],
    ) => {
      api.dynamoDb.reset();
      const started = performance.now();
      const { roundTrips } = await redis.countRoundTrips(() => inFlight(agents, HERD_IN_FLIGHT, work));
      const commands: Record<string, number> = {};
      for (const command of roundTrips) commands[command] = (commands[command] ?? 0) + 1;
      console.info(
        `herd of ${agents.length}, ${name}: ${Math.round(performance.now() - started)} ms,`,
        `DynamoDB ${JSON.stringify(api.dynamoDb.counts())}, cache commands ${JSON.stringify(commands)}`,
      );
    };

    // Started at once, each C++ agent sends its manifest in its first heartbeat: nobody is asked for it.
    const started = Array.from({ length: HERD }, (_, index) => cppAgentOf(`herd-cpp-${index}`, "herd"));
    await phase(
      "first heartbeats with the manifest, then light ones",
      async (agent) => {
        await send(agent.agentId, HEARTBEAT, agent.full());
        await send(agent.agentId, HEARTBEAT, agent.light());
      },
      started,
    );
    expect(describes.size).toBe(0);

    // Then every agent's flow changes: new flow id and component UUIDs, so a new hash, reported without the
    // manifest. Each is asked DESCRIBE MANIFEST, answers it, and is asked nothing more.
    const moved = started.map(({ agentId }) => cppAgentOf(agentId, "herd"));
    await phase(
      "new flow: light heartbeat, DESCRIBE answered, light heartbeat",
      async (agent) => {
        await send(agent.agentId, HEARTBEAT, agent.light());
        const [operationId] = describes.get(agent.agentId) ?? [];
        if (operationId) await send(agent.agentId, ACKNOWLEDGE, agent.describeAck(operationId));
        await send(agent.agentId, HEARTBEAT, agent.light());
      },
      moved,
    );

    expect(Object.fromEntries(statuses)).toEqual({ 200: HERD * 5 });
    expect([...describes.keys()].sort()).toEqual(moved.map(({ agentId }) => agentId).sort());
    expect([...describes.values()].every((ids) => ids.length === 1)).toBe(true);
    // One content item: the C++ build's, which every agent's registry entry names with its own hash.
    const { manifestId } = binaryIn(started[0]?.full() as JsonObject);
    expect((await manifestItems(undefined, herdTenant)).map((item) => item.sk)).toEqual([`M#${manifestId}`]);
    const registry = new DynamoAgentRegistry(documents, api.env.BEACON_TABLE_NAME as string);
    const manifests = await inFlight(
      moved,
      HERD_IN_FLIGHT,
      async ({ agentId }) => (await registry.get(herdTenant, agentId))?.manifest,
    );
    expect(new Set(manifests.map((manifest) => manifest?.manifestId))).toEqual(new Set([manifestId]));
    expect(manifests.map((manifest) => manifest?.hash)).toEqual(
      moved.map(({ manifestHash }) => manifestHash),
    );
  }, 1_200_000);
});

describe("the hot path", () => {
  it("costs a steady heartbeat no DynamoDB request, one cache round trip and one stream put, keeping what proves effects", async () => {
    // An agent whose manifest hash is its own, as real agents' are.
    const agent = cppAgentOf("steady-cpp", "gateways");
    const agentId = agent.agentId;
    // Its light heartbeat, with the configuration checksums the C++ agent reports where configured.
    const steadyHeartbeat = () => ({
      ...agent.light(),
      configurationChecksums: {
        SHA256: { "minifi.properties": "a1".repeat(32), "config.yml": "b2".repeat(32) },
      },
    });
    const [processor] = (agent.light().flowInfo as JsonObject).processorStatuses as JsonObject[];
    await post(HEARTBEAT, agent.full());
    await post(HEARTBEAT, steadyHeartbeat());
    api.dynamoDb.reset();
    api.kinesis.reset();
    const steadyHeartbeats = 25;
    const from = Date.now();
    // Beacon does not pipeline on this path, so every command outside a script is a round trip.
    const { roundTrips } = await redis.countRoundTrips(async () => {
      for (let index = 0; index < steadyHeartbeats; index++) {
        const response = await post(HEARTBEAT, steadyHeartbeat());
        expect(operationsOf(response)).toEqual([]);
      }
    });

    expect(api.dynamoDb.counts()).toEqual({});
    expect(api.kinesis.counts()).toEqual({ "Kinesis_20131202.PutRecords": steadyHeartbeats });
    expect(roundTrips).toEqual(Array.from({ length: steadyHeartbeats }, () => "evalsha"));
    // Nor a metric line: the stream consumer counts heartbeats, a batch at a time.
    expect(await metricLines(api.functionLog, { from, to: Date.now() })).toEqual([]);
    // That one script kept the run statuses, the resource hash, the host's load and the checksums.
    const client = new Redis(redis.url);
    try {
      const kept = await client.hgetall(CacheKeys.agent(tenant, agentId));
      expect(kept).toMatchObject({ runStatus: "RUNNING", resourceHash: "" });
      expect(JSON.parse(kept.processors as string)).toEqual([{ id: processor?.id, runStatus: "RUNNING" }]);
      expect(JSON.parse(kept.system as string)).toEqual({
        cpuUtilization: 0.06179499754781756,
        cpuLoadAverage: 1.271484375,
        memoryUsage: 12681670656,
      });
      expect(JSON.parse(kept.configurationChecksums as string)).toEqual(
        steadyHeartbeat().configurationChecksums,
      );
      // And each heartbeat's load sample, newest first, in its agent's capped list (what its page charts).
      const samples = await client.lrange(CacheKeys.loadSamples(tenant, agentId), 0, -1);
      expect(samples).toHaveLength(steadyHeartbeats + 2);
      expect(samples.map(loadSampleOfText)).toEqual(
        samples.map(() => ({
          at: expect.any(Number),
          cpuUtilization: 0.062,
          cpuLoadAverage: 1.27,
          memoryUsage: 12681670656,
          queuedFlowFiles: 4,
          queuedBytes: 40,
        })),
      );
    } finally {
      client.disconnect();
    }
  });
});

describe("the hot path of an agent that needs attention", () => {
  it("costs a steady heartbeat with fresh ERROR bulletins and a back-pressured queue the same, keeping the agent in its class's attention indexes", async () => {
    const agent = cppAgentOf("troubled-cpp", "gateways");
    /** Its light heartbeat, listing an ERROR bulletin raised now and a queue at its object limit. */
    const troubledHeartbeat = () => {
      const heartbeat = agent.light();
      const flowInfo = heartbeat.flowInfo as JsonObject;
      flowInfo.queues = { "queue-1": { name: "success", size: 10_000, sizeMax: 10_000 } };
      flowInfo.processorBulletins = [
        { id: 7, timestamp: Date.now(), level: "ERROR", message: "Connection refused", sourceName: "GetTCP" },
      ];
      return heartbeat;
    };
    await post(HEARTBEAT, agent.full());
    await post(HEARTBEAT, troubledHeartbeat());
    api.dynamoDb.reset();
    api.kinesis.reset();
    const steadyHeartbeats = 25;
    const { roundTrips } = await redis.countRoundTrips(async () => {
      for (let index = 0; index < steadyHeartbeats; index++)
        expect((await post(HEARTBEAT, troubledHeartbeat())).status).toBe(200);
    });

    expect(api.dynamoDb.counts()).toEqual({});
    expect(api.kinesis.counts()).toEqual({ "Kinesis_20131202.PutRecords": steadyHeartbeats });
    expect(roundTrips).toEqual(Array.from({ length: steadyHeartbeats }, () => "evalsha"));
    const client = new Redis(redis.url);
    try {
      const errorsUntil = await client.zscore(
        CacheKeys.attention(tenant, "gateways", "errorBulletins"),
        agent.agentId,
      );
      expect(Number(errorsUntil)).toBeGreaterThan(Date.now());
      expect(
        await client.zscore(CacheKeys.attention(tenant, "gateways", "backPressure"), agent.agentId),
      ).not.toBeNull();
    } finally {
      client.disconnect();
    }
  });
});

describe("the hot path, many agents at once", () => {
  it("puts the events of steady heartbeats answered at once in shared calls: never more than one put each, none of their events missing", async () => {
    const agents = Array.from({ length: 12 }, (_, index) =>
      cppAgentOf(`steady-together-${index}`, "gateways"),
    );
    for (const agent of agents) {
      await post(HEARTBEAT, agent.full());
      await post(HEARTBEAT, agent.light());
    }
    api.kinesis.reset();
    const from = Date.now();
    const answers = await Promise.all(agents.map((agent) => post(HEARTBEAT, agent.light())));
    expect(answers.map((answer) => operationsOf(answer))).toEqual(agents.map(() => []));

    const puts = api.kinesis.counts()["Kinesis_20131202.PutRecords"] ?? 0;
    expect(puts).toBeGreaterThanOrEqual(1);
    expect(puts).toBeLessThanOrEqual(agents.length);
    const together = new Set(agents.map((agent) => agent.agentId));
    const heartbeatsPut = (
      (await readWholeStream(makeKinesisClient(api.env), api.env.BEACON_STREAM_NAME as string)) as {
        type: string;
        agentId: string;
        eventId: string;
        at: number;
      }[]
    ).filter((event) => event.type === "heartbeat" && together.has(event.agentId) && event.at >= from);
    // At least once: a put resent after a lost answer repeats an event, so each agent's are counted by id.
    const agentsPut = new Map(heartbeatsPut.map((event) => [event.eventId, event.agentId]));
    expect([...agentsPut.values()].sort()).toEqual([...together].sort());
  });
});

describe("what learning a manifest costs", () => {
  /** One heartbeat's requests: DynamoDB's by operation, and the cache's commands (MULTI…EXEC is one round trip). */
  async function costOf(body: JsonObject) {
    api.dynamoDb.reset();
    const { roundTrips } = await redis.countRoundTrips(async () =>
      expect((await post(HEARTBEAT, body)).status).toBe(200),
    );
    return { dynamoDb: api.dynamoDb.counts(), cache: roundTrips };
  }
  /** One script: the manifest kept, and the agent's offline allowance scheduled with the period it states. */
  const rememberAgentManifest = ["evalsha"];
  /**
   * A new agent's registration in the cache: the tenant's SADD, for the sweeper's look for agents gone offline,
   * beside one script that marks the agent registered, adds its class and keeps its manifest; one round trip.
   */
  const markRegistered = ["sadd", "evalsha"];

  it("is the registration's put alone for a new agent of a binary the function knows stored, a cache call, a read and a write more for a new binary", async () => {
    // The class and its flow policy are known to the cache, as the C++ example's binary is.
    const known = cppAgentOf("cost-cpp-0", "costs");
    await post(HEARTBEAT, known.full());
    await post(HEARTBEAT, known.light());

    const newBuild = cppAgentOf("cost-cpp-1", "costs").full();
    const manifest = (newBuild.agentInfo as JsonObject).agentManifest as JsonObject;
    manifest.buildInfo = { ...(manifest.buildInfo as JsonObject), revision: "0".repeat(40) };
    expect(await costOf(newBuild)).toEqual({
      // The manifest store's read; the content's and the registration's conditional puts. The tenant's groups
      // are the copy the function read at the first agent's registration, while no group holding values
      // changed. An agent new to the registry has no values of its own to read. A new agent that brings its
      // manifest costs no registry read.
      dynamoDb: {
        "DynamoDB_20120810.GetItem": 1,
        "DynamoDB_20120810.PutItem": 2,
      },
      // The sighting's script; the binary's content looked up and then known stored; the registration.
      cache: ["evalsha", "sismember", "sadd", ...markRegistered],
    });
    expect(await costOf(cppAgentOf("cost-cpp-2", "costs").full())).toEqual({
      dynamoDb: { "DynamoDB_20120810.PutItem": 1 },
      cache: ["evalsha", ...markRegistered],
    });
  });

  it("is one registry write for a known agent's new hash that brings its manifest, and a DESCRIBE for one that does not", async () => {
    const agent = cppAgentOf("cost-cpp-3", "costs");
    await post(HEARTBEAT, agent.full());
    // Restarted after UPDATE PROPERTIES, the C++ agent sends its manifest, with the new value, in its first heartbeat.
    const restarted = agent.full();
    const agentInfo = restarted.agentInfo as JsonObject;
    agentInfo.agentManifestHash = `${agent.manifestHash}-RESTARTED`;
    const manifest = agentInfo.agentManifest as JsonObject;
    agentInfo.agentManifest = {
      ...manifest,
      supportedOperations: [{ type: "describe", properties: { manifest: {} } }],
    };
    expect(await costOf(restarted)).toEqual({
      dynamoDb: { "DynamoDB_20120810.UpdateItem": 1 },
      cache: ["evalsha", ...rememberAgentManifest],
    });

    // A new flow changes the hash of a light heartbeat: the registry is asked, then the agent.
    const moved = agent.light();
    (moved.agentInfo as JsonObject).agentManifestHash = `${agent.manifestHash}-NEW-FLOW`;
    expect(await costOf(moved)).toEqual({
      dynamoDb: { "DynamoDB_20120810.Query": 1, "DynamoDB_20120810.UpdateItem": 2 },
      cache: ["evalsha", "hset"],
    });
  });
});

describe("the stream", () => {
  it("carries every accepted heartbeat and ack of this file, each valid against its schema", async () => {
    const events = (
      await readWholeStream(makeKinesisClient(api.env), api.env.BEACON_STREAM_NAME as string)
    ).filter((event) => (event as { tenant?: string }).tenant === tenant) as {
      type: string;
      eventId: string;
    }[];
    // One event per accepted heartbeat or ack, and one per operation state change besides. The stream is
    // at least once: a put whose answer timed out on a busy machine is sent again, so count distinct events.
    const agentEvents = events.filter((event) => event.type !== "operation");
    expect(new Set(agentEvents.map((event) => event.eventId)).size).toBe(accepted);
    for (const event of events) {
      const validate = eventValidator(event);
      expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    }
    // A heartbeat's event carries what proves operations' effects, compactly.
    const steady = events.filter(
      (event) => event.type === "heartbeat" && (event as { agentId?: string }).agentId === "steady-cpp",
    );
    expect(steady.at(-1)).toMatchObject({
      runStatus: "RUNNING",
      processorsByRunStatus: { RUNNING: 1 },
      resourceHash: null,
      system: { cpuUtilization: 0.06179499754781756, cpuLoadAverage: 1.271484375, memoryUsage: 12681670656 },
      configurationChecksums: { SHA256: { "minifi.properties": "a1".repeat(32) } },
      status: { backPressuredQueues: 0 },
    });
  });
});
