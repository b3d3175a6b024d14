import { randomUUID } from "node:crypto";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type CountingProxy, startCountingProxy } from "../../scripts/local/counting-proxy.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeat } from "../../scripts/test-support/console-seed.js";
import { readShardRecords } from "../../scripts/test-support/stream-reader.js";
import type { BeaconEvent } from "../core/events/model.js";
import type { StreamRecord } from "../core/events/ports.js";
import { keptForAgent } from "../core/history/agent-log.js";
import { bucketsOf } from "../core/history/aggregate.js";
import { makeDynamoDbClient } from "../runtime/aws-clients/dynamodb.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { composeHistoryConsumer } from "../runtime/history-consumer.js";
import { AwsEndpointEnvNames, EnvNames } from "../shared/env-names.js";

const MINUTE = 60_000;

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let documents: DynamoDBDocumentClient;
/** Counts what the consumer asks DynamoDB. */
let dynamoDb: CountingProxy;
const run = randomUUID().slice(0, 6);
const a = {
  tenant: `ha-${run}`,
  className: `ha-${run}-pumps`,
  agentIds: [1, 2, 3].map((n) => `ha-${run}-pump-${n}`),
};
const b = { tenant: `hb-${run}`, className: `hb-${run}-pumps`, agentIds: [`hb-${run}-pump-1`] };
/** Every heartbeat this file sends, per tenant. */
const sent = new Map<string, number>();
let startedAt: number;
let records: StreamRecord[];
let operationId: string;

const beat = async (tenant: typeof a, certificate: string, agentId: string) => {
  expect(await heartbeat(agentApi, certificate, agentId, tenant.className, `${tenant.tenant}-manifest`)).toBe(
    200,
  );
  sent.set(tenant.tenant, (sent.get(tenant.tenant) ?? 0) + 1);
};

/** This file's events as the stream holds them, once every heartbeat sent is there. */
async function streamRecords(): Promise<StreamRecord[]> {
  const kinesis = makeKinesisClient(agentApi.env);
  try {
    for (;;) {
      const mine = (await readShardRecords(kinesis, agentApi.env[EnvNames.streamName] as string))
        .map(({ shard, sequenceNumber, data }) => ({
          shard,
          position: sequenceNumber,
          event: data as BeaconEvent,
        }))
        .filter(({ event }) => event.tenant === a.tenant || event.tenant === b.tenant);
      const heartbeats = mine.filter(({ event }) => event.type === "heartbeat").length;
      if (heartbeats === (sent.get(a.tenant) ?? 0) + (sent.get(b.tenant) ?? 0)) return mine;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    kinesis.destroy();
  }
}

/** One shard's records cut into batches of `size`, in their order, as the stream hands a consumer a shard's. */
function batchesOf(shardRecords: StreamRecord[], size: number): StreamRecord[][] {
  const batches: StreamRecord[][] = [];
  for (let start = 0; start < shardRecords.length; start += size) {
    batches.push(shardRecords.slice(start, start + size));
  }
  return batches;
}

const shardsOf = (all: StreamRecord[]) =>
  [...new Set(all.map((record) => record.shard))].map((shard) =>
    all.filter((record) => record.shard === shard),
  );

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  dynamoDb = await startCountingProxy(inject("beaconEnv")[AwsEndpointEnvNames.dynamodb] as string);
  documents = DynamoDBDocumentClient.from(
    makeDynamoDbClient({ ...agentApi.env, [AwsEndpointEnvNames.dynamodb]: dynamoDb.url }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  startedAt = Date.now();
  const [aFleet, bFleet] = await Promise.all([
    agentApi.issueCertificate({ tenant: a.tenant, fleet: true }),
    agentApi.issueCertificate({ tenant: b.tenant, fleet: true }),
  ]);
  // Each agent registers (answering the DESCRIBE it is asked), then heartbeats twice more.
  for (let round = 0; round < 3; round++) {
    for (const agentId of a.agentIds) await beat(a, aFleet, agentId);
  }
  await beat(b, bFleet, b.agentIds[0] as string);
  // An operation a person asks for: delivered at the agent's next heartbeat, acknowledged, done.
  const admin = await consoleApi.token({ tenant: a.tenant, role: "admin" });
  const queued = await consoleApi.request("POST", "/api/v1/operations", {
    token: admin,
    body: { agentId: a.agentIds[0], operation: "DESCRIBE", operand: "MANIFEST" },
  });
  expect(queued.status, queued.body).toBe(201);
  operationId = (queued.json().items as { operationId: string }[])[0]?.operationId as string;
  await beat(a, aFleet, a.agentIds[0] as string);
  records = await streamRecords();
});

afterAll(async () => {
  documents?.destroy();
  await dynamoDb?.close();
  await consoleApi?.close();
  await agentApi?.close();
});

describe("fleet history from the real stream, consumed twice in different splits", () => {
  /** What the last delivery, every record of which had been counted, cost DynamoDB. */
  let redeliveryCost: Record<string, number>;

  beforeAll(async () => {
    const consumer = composeHistoryConsumer(
      { tableName: agentApi.env[EnvNames.tableName] as string, retentionDays: 14 },
      documents,
    );
    const shards = shardsOf(records);
    // The first delivery fails partway: half of each shard's batches of 3 get through, the shards at once.
    await Promise.all(
      shards.map(async (shardRecords) => {
        const batches = batchesOf(shardRecords, 3);
        for (const batch of batches.slice(0, Math.ceil(batches.length / 2))) await consumer.consume(batch);
      }),
    );
    // Then everything comes again, cut in batches of 5.
    await Promise.all(
      shards.map(async (shardRecords) => {
        for (const batch of batchesOf(shardRecords, 5)) await consumer.consume(batch);
      }),
    );
    // And once more, whole.
    dynamoDb.reset();
    await consumer.consume(records);
    redeliveryCost = dynamoDb.counts();
  });

  it("reads each bucket once and writes none when every record was counted already", () => {
    const kept = records.filter(({ event }) => keptForAgent(event)).length;
    expect(redeliveryCost).toEqual({
      "DynamoDB_20120810.GetItem": bucketsOf(records).length,
      // The agents' events are written again, as the same items.
      "DynamoDB_20120810.BatchWriteItem": Math.ceil(kept / 25),
    });
  });

  /** What the stream says each minute of the tenant's class holds, counted here from its events. */
  function expectedMinutes(tenant: string) {
    const minutes = new Map<number, { heartbeats: number; agents: Set<string>; registrations: number }>();
    for (const { event } of records) {
      if (event.tenant !== tenant || event.type !== "heartbeat") continue;
      const minute = Math.floor(event.at / MINUTE) * MINUTE;
      const counted = minutes.get(minute) ?? { heartbeats: 0, agents: new Set(), registrations: 0 };
      counted.heartbeats++;
      counted.agents.add(event.agentId);
      if (event.firstSight) counted.registrations++;
      minutes.set(minute, counted);
    }
    return minutes;
  }

  const historyOf = async (tenant: string, query: string) => {
    const token = await consoleApi.token({ tenant, role: "viewer" });
    const response = await consoleApi.request("GET", `/api/v1/fleet/history?${query}`, { token });
    expect(response.status, response.body).toBe(200);
    return response.json() as { points: Record<string, number | string>[]; from: string; to: string };
  };
  const range = () =>
    `from=${new Date(startedAt - MINUTE).toISOString()}&to=${new Date(Date.now() + MINUTE).toISOString()}`;

  it("answers each minute's heartbeats, distinct agents and registrations, once however often they were consumed", async () => {
    const history = await historyOf(a.tenant, `class=${a.className}&${range()}`);
    const expected = expectedMinutes(a.tenant);
    for (const point of history.points) {
      const minute = expected.get(Date.parse(point.at as string));
      expect(point).toMatchObject({
        heartbeats: minute?.heartbeats ?? 0,
        agentsSeen: minute?.agents.size ?? 0,
        registrations: minute?.registrations ?? 0,
      });
    }
    const total = (field: string) => history.points.reduce((sum, point) => sum + (point[field] as number), 0);
    expect(total("heartbeats")).toBe(sent.get(a.tenant));
    expect(total("registrations")).toBe(3);
    // The class's own operations count in its series: each event names the class its agent had.
    const done = records.filter(
      ({ event }) =>
        event.tenant === a.tenant &&
        event.type === "operation" &&
        event.state === "done" &&
        (event as { agentClass?: string }).agentClass === a.className,
    );
    expect(done.map(({ event }) => (event as { operationId: string }).operationId)).toContain(operationId);
    expect(total("operationsDone")).toBe(done.length);
  });

  it("counts the whole fleet's operations by their closing state, and its distinct agents over a longer step", async () => {
    const history = await historyOf(a.tenant, `${range()}&step=3600`);
    const done = records.filter(
      ({ event }) => event.tenant === a.tenant && event.type === "operation" && event.state === "done",
    );
    expect(done.map(({ event }) => (event as { operationId: string }).operationId)).toContain(operationId);
    const total = (field: string) => history.points.reduce((sum, point) => sum + (point[field] as number), 0);
    expect(total("operationsDone")).toBe(done.length);
    expect(total("heartbeats")).toBe(sent.get(a.tenant));
    // The first hour from a minute before the first heartbeat holds them all: three agents, each once.
    expect(history.points[0]?.agentsSeen).toBe(3);
  });

  it("shows another tenant nothing of it, by the class name or for the whole fleet", async () => {
    const byName = await historyOf(b.tenant, `class=${a.className}&${range()}`);
    expect(byName.points.every((point) => point.heartbeats === 0 && point.agentsSeen === 0)).toBe(true);
    const whole = await historyOf(b.tenant, range());
    const total = whole.points.reduce((sum, point) => sum + (point.heartbeats as number), 0);
    expect(total).toBe(sent.get(b.tenant));
  });

  it("keeps the agent's registration, its operation's changes and its acknowledgements, newest first, not its steady heartbeats", async () => {
    const token = await consoleApi.token({ tenant: a.tenant, role: "viewer" });
    const agentId = a.agentIds[0] as string;
    const items: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    do {
      const query = cursor === undefined ? "limit=2" : `limit=2&cursor=${cursor}`;
      const page = await consoleApi.request("GET", `/api/v1/agents/${agentId}/events?${query}`, { token });
      expect(page.status, page.body).toBe(200);
      items.push(...(page.json().items as Record<string, unknown>[]));
      cursor = page.json().nextCursor as string | undefined;
    } while (cursor !== undefined);
    const times = items.map((item) => Date.parse(item.at as string));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    expect(new Set(items.map((item) => item.eventId)).size).toBe(items.length);
    const heartbeats = items.filter((item) => item.type === "heartbeat");
    expect(heartbeats).toEqual([expect.objectContaining({ firstSight: true, agentId })]);
    const states = items
      .filter((item) => item.type === "operation" && item.operationId === operationId)
      .map((item) => item.state);
    expect(states).toEqual(["done", "delivered", "queued"]);
    expect(items.filter((item) => item.type === "ack").length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(items)).not.toContain(`"tenant"`);

    const other = await consoleApi.token({ tenant: b.tenant, role: "admin" });
    const refused = await consoleApi.request("GET", `/api/v1/agents/${agentId}/events`, { token: other });
    expect(refused.status).toBe(404);
  });

  it("refuses a step that is no whole number of minutes and a range over a day, with a JSON error", async () => {
    const token = await consoleApi.token({ tenant: a.tenant, role: "viewer" });
    for (const query of [
      "step=90",
      "from=2026-01-01T00:00:00Z&to=2026-01-02T00:01:00Z",
      "from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z",
    ]) {
      const response = await consoleApi.request("GET", `/api/v1/fleet/history?${query}`, { token });
      expect(response.status, query).toBe(400);
      expect(response.json()).toEqual({ error: { code: "invalid_request", message: expect.any(String) } });
    }
  });
});
