/**
 * Measures the units of a steady heartbeat that Beacon's own code gives without a stack: the request a C++
 * agent sends, the reply, the stream event and its partition key, the metric line, the agent's registry
 * item as the DynamoDB adapter writes it, and its memory in the cache. The reply, the event and the memory are
 * the agent API's own heartbeat's (composeHeartbeat), over the hot-state adapter and the redis-server setup
 * installs.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { Redis } from "ioredis";
import { DynamoAgentRegistry } from "../../functions/adapters/dynamodb/agent-registry.js";
import { fromAttributeValues } from "../../functions/adapters/dynamodb/attribute-values.js";
import { type DirectCallWatch, directCallWatch } from "../../functions/adapters/dynamodb/direct-calls.js";
import { TableSchema } from "../../functions/adapters/dynamodb/table-schema.js";
import { MemoryAgentClassRegistry } from "../../functions/adapters/memory/agent-class-registry.js";
import { MemoryAgentRegistry } from "../../functions/adapters/memory/agent-registry.js";
import { MemoryCertificateStore } from "../../functions/adapters/memory/certificate-store.js";
import { MemoryClassFlowPolicies } from "../../functions/adapters/memory/class-flow-policies.js";
import { MemoryEventSink } from "../../functions/adapters/memory/event-sink.js";
import { MemoryFlowCatalog } from "../../functions/adapters/memory/flow-catalog.js";
import { MemoryManifestStore } from "../../functions/adapters/memory/manifest-store.js";
import { MemoryOperationStore } from "../../functions/adapters/memory/operation-store.js";
import { MemoryParameterStore } from "../../functions/adapters/memory/parameter-store.js";
import { MemoryRevocationList } from "../../functions/adapters/memory/revocation-list.js";
import { RedisHotState } from "../../functions/adapters/redis/hot-state.js";
import { composeHeartbeat } from "../../functions/agent-api/composition.js";
import type { AgentRecord } from "../../functions/core/agents/ports.js";
import { normalizeHeartbeat } from "../../functions/core/c2/heartbeat.js";
import { type BeaconEvent, partitionKeyOf } from "../../functions/core/events/model.js";
import type { AgentCredential } from "../../functions/core/identity/credentials.js";
import { asArray, type JsonObject } from "../../functions/core/json.js";
import { binaryOf } from "../../functions/core/manifests/canonical.js";
import { randomIds, systemClock } from "../../functions/runtime/system.js";
import { agentApiConfig } from "../../functions/shared/config.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { jsonResponse } from "../../functions/shared/http.js";
import { MetricNames } from "../../functions/shared/observability.js";
import { cppHeartbeatOf } from "../common/c2-examples.js";
import { findFreePort } from "../local/ports.js";
import { startRedisServer } from "../local/redis-server.js";
import { kinesisStreamEventOf } from "../local/stream-poller.js";
import { valuesOverClassIn } from "../test-support/group-values.js";
import { readUnits, type UnitName } from "./inputs.js";

const examples = new URL("../../schemas/c2/examples/", import.meta.url);
const readJson = (path: string) => JSON.parse(readFileSync(new URL(path, examples), "utf8")) as JsonObject;

/** A tenant name of a length tenants have (`acme-industrial`); ids come from the real fixtures. */
const TENANT = "acme-industrial";
/** The most a Lambda invocation's payload holds: a stream consumer's batch is full at this many bytes of records. */
const LAMBDA_INVOCATION_PAYLOAD_BYTES = 6 * 1024 * 1024;
/** The most records one batch of Lambda's Kinesis event source mapping holds. */
const STREAM_BATCH_MAX_RECORDS = 10_000;
const NOW = Date.UTC(2026, 10, 24);

/**
 * An item's size as DynamoDB counts it for write units: attribute names plus values (strings and binary by
 * their bytes, numbers by about one byte per two digits plus one, maps and lists 3 bytes plus one per
 * element and their contents).
 */
export function dynamoDbItemBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce(
    (total, [name, value]) => total + Buffer.byteLength(name) + attributeValueBytes(value),
    0,
  );
}

function attributeValueBytes(value: unknown): number {
  if (typeof value === "string") return Buffer.byteLength(value);
  if (typeof value === "number")
    return Math.ceil(String(Math.abs(value)).replace(/[.-]/g, "").length / 2) + 1;
  if (typeof value === "boolean" || value === null) return 1;
  if (Array.isArray(value))
    return 3 + value.reduce((total, each) => total + 1 + attributeValueBytes(each), 0);
  if (typeof value === "object")
    return (
      3 +
      Object.entries(value as Record<string, unknown>).reduce(
        (total, [name, each]) => total + 1 + Buffer.byteLength(name) + attributeValueBytes(each),
        0,
      )
    );
  return 0;
}

/** The registry entry of the C++ full heartbeat's agent, with the manifest it brought. */
export function measuredAgentRecord(): AgentRecord {
  const heartbeat = normalizeHeartbeat(readJson("cpp/heartbeat-full.json"));
  const manifest = heartbeat.manifest as JsonObject;
  return {
    tenant: TENANT,
    agentId: heartbeat.agentId as string,
    agentClass: heartbeat.agentClass as string,
    manifestHash: heartbeat.manifestHash,
    manifest: {
      hash: heartbeat.manifestHash as string,
      manifestId: binaryOf(manifest).manifestId,
      supportedOperations: asArray(manifest.supportedOperations),
    },
    flowId: heartbeat.flowId,
    device: heartbeat.device,
    firstSeen: NOW,
    lastSeen: NOW,
  };
}

/**
 * The items the registry writes for the measured agent: its profile on first sight with its manifest
 * (rewritten whenever something changes), and its last-seen item (each periodic checkpoint's write).
 */
async function registryItems(): Promise<{
  profile: Record<string, unknown>;
  lastSeen: Record<string, unknown>;
}> {
  const items: Record<string, unknown>[] = [];
  // Watched and never sent: the registry's writes are sent directly (direct-calls.ts), their items as DynamoDB has them.
  const watch: DirectCallWatch = async (_operation, input) => {
    items.push(fromAttributeValues(input.Item as Record<string, unknown>));
    return {};
  };
  const capturing = { [directCallWatch]: watch } as unknown as DynamoDBDocumentClient;
  const registry = new DynamoAgentRegistry(capturing, "beacon");
  const record = measuredAgentRecord();
  await registry.register(record);
  await registry.recordSeen(record.tenant, record.agentId, NOW + 600_000);
  const [profile, lastSeen] = items as [Record<string, unknown>, Record<string, unknown>];
  return { profile, lastSeen };
}

/** A stream event as Lambda's Kinesis event source mapping hands it to the stream consumer. */
const lambdaKinesisRecordOf = (event: BeaconEvent) =>
  kinesisStreamEventOf(
    "arn:aws:kinesis:us-east-1:123456789012:stream/beacon-events-prod",
    "shardId-000000000001",
    [
      {
        SequenceNumber: "49590338271490256608559692538361571095921575989136588898",
        PartitionKey: partitionKeyOf(event),
        ApproximateArrivalTimestamp: new Date(NOW),
        Data: Buffer.from(JSON.stringify(event)),
      },
    ],
  ).Records[0];

/**
 * The metric line that counts steady heartbeats, as Powertools prints it: the stream consumer's, one per batch of
 * events it reads (functions/stream-consumer/batch.ts); the agent API writes none for a steady heartbeat.
 */
function consumerMetricLine(batchRecords: number): string {
  const metrics = new Metrics({ namespace: "Beacon", serviceName: "stream-consumer-prod" });
  const written: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    metrics.addMetric(MetricNames.eventsConsumed, MetricUnit.Count, batchRecords);
    metrics.addMetric(MetricNames.heartbeats, MetricUnit.Count, batchRecords);
    metrics.publishStoredMetrics();
  } finally {
    process.stdout.write = write;
  }
  return written.join("");
}

export async function measureBytes(): Promise<Partial<Record<UnitName, { value: number; how: string }>>> {
  const light = readJson("cpp/heartbeat-light.json");
  const requestBody = gzipSync(JSON.stringify(light));
  const headers = readFileSync(new URL("java-2.3.0/request-headers.txt", examples), "utf8")
    .split("\n\n")
    .find((block) => block.includes("Content-Encoding: gzip")) as string;
  const { reply, event } = await withMeasuredHeartbeat(async (agentApi) => {
    await agentApi.register(MEASURED_AGENT_ID);
    return agentApi.steadyHeartbeat(MEASURED_AGENT_ID);
  });
  const recordBytes = Buffer.byteLength(JSON.stringify(lambdaKinesisRecordOf(event)));
  const batchRecords = Math.min(
    STREAM_BATCH_MAX_RECORDS,
    Math.floor(LAMBDA_INVOCATION_PAYLOAD_BYTES / recordBytes),
  );
  const consumerLineBytes = Buffer.byteLength(consumerMetricLine(batchRecords));
  const logEventOverheadBytes = readUnits().logEventOverheadBytes.value;
  const { profile, lastSeen } = await registryItems();
  const indexesHolding = (item: Record<string, unknown>) =>
    Object.values(TableSchema.indexes).filter((index) => item[index.partitionKey] !== undefined);
  const profileIndexes = indexesHolding(profile);
  return {
    requestBodyBytes: {
      value: requestBody.length,
      how: "schemas/c2/examples/cpp/heartbeat-light.json as compact JSON, gzipped (the C++ agent's nifi.c2.rest.request.encoding=gzip docs/agents.md sets)",
    },
    requestHeaderBytes: {
      value: Buffer.byteLength(`${headers.trim()}\r\n\r\n`),
      how: "the request line and headers the Apache NiFi C2 client library sent with gzip (schemas/c2/examples/java-2.3.0/request-headers.txt)",
    },
    responseBodyBytes: {
      value: Buffer.byteLength(jsonResponse(200, reply).body),
      how: "the body jsonResponse (functions/shared/http.ts) gives the reply of the agent API's heartbeat (composeHeartbeat) to a steady C++ light heartbeat, as the handler answers it",
    },
    eventBytes: {
      value: Buffer.byteLength(JSON.stringify(event)),
      how: "JSON.stringify of the event the agent API's heartbeat (composeHeartbeat, over RedisHotState and a redis-server) puts on the stream for a steady C++ light heartbeat of a known agent, as the Kinesis sink sends it",
    },
    partitionKeyBytes: {
      value: Buffer.byteLength(partitionKeyOf(event)),
      how: `partitionKeyOf() of that event, tenant "${TENANT}" and the fixture's agent id`,
    },
    metricLineBytesPerHeartbeat: {
      value: Number(((consumerLineBytes + logEventOverheadBytes) / batchRecords).toFixed(3)),
      how: `a steady heartbeat writes no log line in the agent API (prod's log level is WARN, and it counts nothing); the stream consumer counts Heartbeats in its one EMF line per batch (${consumerLineBytes} B and CloudWatch's ${logEventOverheadBytes} B per event, both counted here), shared by the ${batchRecords} heartbeat events of a batch that its 6 MB invocation payload fills (each record ${recordBytes} B there, the event base64-encoded in Lambda's Kinesis record; at 10,000 agents and more, a shard's minute of batching window holds more than that)`,
    },
    agentItemBytes: {
      value: dynamoDbItemBytes(profile),
      how: "DynamoDB item size of the registry profile DynamoAgentRegistry.register writes for the C++ full heartbeat's agent (its manifest's supportedOperations kept as text), which a change of class, manifest, flow or device rewrites; periodic checkpoints leave it alone",
    },
    indexesHoldingAgentItem: {
      value: profileIndexes.length,
      how: `indexes whose partition key the agent's profile carries (${profileIndexes.map((index) => index.indexName).join(", ")}), each projecting all attributes (TableSchema, functions/adapters/dynamodb/table-schema.ts)`,
    },
    lastSeenItemBytes: {
      value: dynamoDbItemBytes(lastSeen),
      how: "DynamoDB item size of the last-seen item DynamoAgentRegistry.recordSeen writes at each periodic checkpoint of that agent; DynamoDB Local's ReturnConsumedCapacity (INDEXES) gives 1 write unit for it, in the table only, against 6 (2 in the table, 2 in each of gsi1 and gsi2) for the profile rewrite each checkpoint was before (scripts/capacity/checkpoint-units.itest.ts)",
    },
    indexesHoldingLastSeenItem: {
      value: indexesHolding(lastSeen).length,
      how: "indexes whose partition key the last-seen item carries: none, so a checkpoint writes the table only",
    },
  };
}

/**
 * Memory per agent in a real Redis (the one setup installs): the agent API's heartbeats of `agents` agents of
 * one tenant, each its registration (the C++ full heartbeat) and a steady light heartbeat, as the agent API
 * leaves them; the growth of `used_memory` divided by the agents.
 */
export async function measureCacheMemory(agents = 2_000): Promise<{ value: number; how: string }> {
  return withMeasuredHeartbeat(async (agentApi) => {
    const agentId = (index: number) => `${String(index).padStart(8, "0")}-b9fe-11ef-a0c0-10f60a596f64`;
    const heartbeats = async (index: number) => {
      await agentApi.register(agentId(index));
      await agentApi.steadyHeartbeat(agentId(index));
    };
    // The tenant's own entries (its revocation list, class, class flow, manifest) come with its first agent.
    await heartbeats(0);
    const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await agentApi.redis.info("memory"))?.[1]);
    const before = await usedMemory();
    for (let index = 1; index <= agents; index++) await heartbeats(index);
    return {
      value: Math.round(((await usedMemory()) - before) / agents),
      how: `growth of a real redis-server's used_memory over ${agents} agents of one tenant, each after the agent API's heartbeat (composeHeartbeat, over RedisHotState) of its registration (the C++ full heartbeat) and of a steady C++ light heartbeat`,
    };
  });
}

/** The agent whose steady heartbeat the bytes are measured of: the C++ examples' own. */
const MEASURED_AGENT_ID = "9628acfe-b9fe-11ef-a0c0-10f60a596f64";
const MEASURED_CLASS = "gateways";
const CREDENTIAL: AgentCredential = { kind: "fleet", tenant: TENANT, fleetName: "fleet", serialNumber: "01" };

/**
 * The agent API's heartbeat as composeAgentApi wires it (composeHeartbeat, its settings from agentApiConfig's
 * defaults) over the hot-state adapter and a private redis-server. The registry and stores are the in-memory
 * ones, which a steady heartbeat does not ask (steadyHeartbeat fails if it does), and the sink keeps the
 * events the heartbeat puts on the stream.
 */
async function withMeasuredHeartbeat<T>(
  measure: (agentApi: {
    redis: Redis;
    /** Agent `agentId`'s first heartbeat, the C++ full one: its registration. */
    register: (agentId: string) => Promise<void>;
    /** Agent `agentId`'s light heartbeat, which the cache alone answers: its reply and its one event. */
    steadyHeartbeat: (
      agentId: string,
    ) => Promise<{ reply: { requestedOperations: unknown[] }; event: BeaconEvent }>;
  }) => Promise<T>,
): Promise<T> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "beacon-capacity-"));
  const port = await findFreePort();
  const server = await startRedisServer({ port, stateDir });
  const redisUrl = `redis://127.0.0.1:${port}`;
  const redis = new Redis(redisUrl);
  try {
    const registry = new MemoryAgentRegistry();
    const parameters = new MemoryParameterStore();
    const events = new MemoryEventSink();
    const { recordHeartbeat } = composeHeartbeat(
      {
        registry,
        revocations: new MemoryRevocationList(),
        certificates: new MemoryCertificateStore(),
        classes: new MemoryAgentClassRegistry(),
        classFlows: new MemoryClassFlowPolicies(),
        flows: new MemoryFlowCatalog(),
        parameters,
        valuesOverClass: valuesOverClassIn({ parameters, registry }),
        manifestStore: new MemoryManifestStore(),
        operationStore: new MemoryOperationStore(),
        hotState: new RedisHotState(redis),
        events,
        clock: systemClock,
        ids: randomIds,
      },
      agentApiConfig({
        [EnvNames.tableName]: "beacon",
        [EnvNames.streamName]: "beacon-events",
        [EnvNames.redisUrl]: redisUrl,
        [EnvNames.assetBucket]: "beacon-assets",
        [EnvNames.agentApiUrl]: "https://agents.example.com",
      }),
    );
    return await measure({
      redis,
      register: async (agentId) => {
        const outcome = await recordHeartbeat(CREDENTIAL, cppHeartbeatOf(agentId, MEASURED_CLASS, true));
        if (!outcome.firstSight) throw new Error(`${agentId}'s full heartbeat did not register it`);
      },
      steadyHeartbeat: async (agentId) => {
        const [registryCalls, published] = [registry.calls, events.events.length];
        const { reply, firstSight } = await recordHeartbeat(
          CREDENTIAL,
          cppHeartbeatOf(agentId, MEASURED_CLASS),
        );
        const [event, ...more] = events.events.slice(published);
        if (
          firstSight ||
          reply.requestedOperations.length > 0 ||
          registry.calls !== registryCalls ||
          !event ||
          more.length > 0
        )
          throw new Error(`${agentId}'s light heartbeat was not a steady one`);
        return { reply, event };
      },
    });
  } finally {
    redis.disconnect();
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
