/**
 * Measures the units of a steady heartbeat that Beacon's own code gives without a stack: the request a C++
 * agent sends, the reply, the stream event and its partition key, the metric line, the agent's registry
 * item as the DynamoDB adapter writes it, and (with the redis-server setup installs) its memory in the cache.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { Redis } from "ioredis";
import { DynamoAgentRegistry } from "../../functions/adapters/dynamodb/agent-registry.js";
import { TableSchema } from "../../functions/adapters/dynamodb/table-schema.js";
import { RedisHotState } from "../../functions/adapters/redis/hot-state.js";
import { heartbeatEvent, sightingOf } from "../../functions/core/agent-requests/sighting.js";
import type { AgentRecord } from "../../functions/core/agents/ports.js";
import { normalizeHeartbeat } from "../../functions/core/c2/heartbeat.js";
import { type BeaconEvent, partitionKeyOf } from "../../functions/core/events/model.js";
import { asArray, type JsonObject } from "../../functions/core/json.js";
import { knownManifestOf } from "../../functions/core/manifests/agent-manifest.js";
import { binaryOf } from "../../functions/core/manifests/canonical.js";
import { jsonResponse } from "../../functions/shared/http.js";
import { MetricNames } from "../../functions/shared/observability.js";
import { findFreePort } from "../local/ports.js";
import { startRedisServer } from "../local/redis-server.js";
import { kinesisStreamEventOf } from "../local/stream-poller.js";
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
  const capturing = {
    send: async (command: { input: { Item: Record<string, unknown> } }) => {
      items.push(command.input.Item);
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
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
  const heartbeat = { ...normalizeHeartbeat(light), agentId: "9628acfe-b9fe-11ef-a0c0-10f60a596f64" };
  const requestBody = gzipSync(JSON.stringify(light));
  const headers = readFileSync(new URL("java-2.3.0/request-headers.txt", examples), "utf8")
    .split("\n\n")
    .find((block) => block.includes("Content-Encoding: gzip")) as string;
  const reply = jsonResponse(200, { requestedOperations: [] });
  const event = heartbeatEvent(
    heartbeat,
    {
      registered: true,
      agentClass: heartbeat.agentClass,
      manifestHash: heartbeat.manifestHash,
      manifestId: "f".repeat(64),
      flowId: heartbeat.flowId,
      checkpointDue: false,
    },
    {
      eventId: "01JDXYZ0000000000000000000",
      tenant: TENANT,
      at: NOW,
      agentClass: "gateways",
      firstSight: false,
    },
    [],
  );
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
      value: Buffer.byteLength(reply.body),
      how: "the body jsonResponse(200, {requestedOperations: []}) gives a steady heartbeat (functions/shared/http.ts)",
    },
    eventBytes: {
      value: Buffer.byteLength(JSON.stringify(event)),
      how: "JSON.stringify of heartbeatEvent() (functions/core/agents/sighting.ts) for the C++ light heartbeat of a known agent, as the Kinesis sink sends it",
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
 * Memory per agent in a real Redis (the one setup installs): a private server, then the steady heartbeat's
 * script, the registration mark and the known manifest for `agents` agents of one tenant, as the agent API
 * leaves them; the growth of `used_memory` divided by the agents.
 */
export async function measureCacheMemory(agents = 2_000): Promise<{ value: number; how: string }> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "beacon-capacity-"));
  const port = await findFreePort();
  const server = await startRedisServer({ port, stateDir });
  const redis = new Redis(`redis://127.0.0.1:${port}`);
  try {
    const hotState = new RedisHotState(redis);
    const light = normalizeHeartbeat(readJson("cpp/heartbeat-light.json"));
    const manifest = normalizeHeartbeat(readJson("cpp/heartbeat-full.json")).manifest as JsonObject;
    const known = knownManifestOf({
      hash: light.manifestHash as string,
      manifestId: binaryOf(manifest).manifestId,
      supportedOperations: asArray(manifest.supportedOperations),
    });
    const credential = { kind: "fleet" as const, tenant: TENANT, fleetName: "fleet", serialNumber: "01" };
    const intervals = { checkpointIntervalMs: 600_000, catchUpRetryMs: 1_800_000 };
    await hotState.rememberRevocations(TENANT, []);
    const agentId = (index: number) => `${String(index).padStart(8, "0")}-b9fe-11ef-a0c0-10f60a596f64`;
    const heartbeat = async (index: number) =>
      hotState.recordSighting(
        sightingOf(TENANT, credential, { ...light, agentId: agentId(index) }, NOW, intervals),
      );
    await heartbeat(0);
    const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1]);
    const before = await usedMemory();
    for (let index = 1; index <= agents; index++) {
      await heartbeat(index);
      await hotState.markRegistered(TENANT, agentId(index), NOW);
      await hotState.rememberAgentManifest(TENANT, agentId(index), known);
      await heartbeat(index);
    }
    return {
      value: Math.round(((await usedMemory()) - before) / agents),
      how: `growth of a real redis-server's used_memory over ${agents} agents of one tenant, each after its registration mark, known manifest (rememberAgentManifest) and a steady C++ light heartbeat's script (functions/adapters/redis/hot-state.ts)`,
    };
  } finally {
    redis.disconnect();
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
