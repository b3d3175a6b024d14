/**
 * Beacon's delivery guarantees under concurrency, on the local stack (DynamoDB Local, Redis, the stream)
 * through the mutual-TLS gateway: agents never de-duplicate operations and never send an acknowledgement
 * twice, so what two requests of one agent race for must change once. Each race runs many rounds, with
 * concurrency varied round by round; some rounds drop the agent's cache entry first, so that the heartbeats
 * race on the registry's path too. Nothing waits for a fixed time.
 */
import { DynamoDBDocumentClient, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cppAckOf, cppHeartbeatOf } from "../../scripts/common/c2-examples.js";
import type { AgentApiUnderTest } from "../../scripts/test-support/agent-api-harness.js";
import type { ConsoleApiUnderTest } from "../../scripts/test-support/console-api-harness.js";
import { onRolloutStack, publishFlow } from "../../scripts/test-support/rollout-stack.js";
import { readShardRecords } from "../../scripts/test-support/stream-reader.js";
import { until } from "../../scripts/test-support/until.js";
import { Keys } from "../adapters/dynamodb/keys.js";
import { CacheKeys } from "../adapters/redis/cache-keys.js";
import type { BeaconEvent, OperationEvent } from "../core/events/model.js";
import type { StreamRecord } from "../core/events/ports.js";
import type { JsonObject } from "../core/json.js";
import { makeDynamoDbClient } from "../runtime/aws-clients/dynamodb.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { composeHistoryConsumer } from "../runtime/history-consumer.js";
import { EnvNames } from "../shared/env-names.js";

const HEARTBEAT = "/c2/api/heartbeat";
const ACKNOWLEDGE = "/c2/api/acknowledge";
/** Concurrent requests of one agent in a round: 2 to 8, round by round. */
const concurrencyOf = (round: number) => 2 + (round % 7);
/** Every third round races with the agent's cache entry gone, as an eviction or a flush leaves it. */
const bypassesCache = (round: number) => round % 3 === 0;

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let fleet: string;
let operator: string;
/** The test's own connection to the agent API's cache, to drop what Beacon keeps there. */
let cache: Redis;
let documents: DynamoDBDocumentClient;

interface RequestedOperation {
  identifier: string;
  operation: string;
  operand?: string;
  args?: Record<string, string>;
}

onRolloutStack("races", (stack) => {
  ({ agentApi, consoleApi, tenant, fleet, operator } = stack);
});

beforeAll(() => {
  cache = new Redis(agentApi.env[EnvNames.redisUrl] as string);
  documents = DynamoDBDocumentClient.from(makeDynamoDbClient(agentApi.env));
});

afterAll(async () => {
  await cache?.quit();
  documents?.destroy();
});

/** A C++ agent's light heartbeat (or its first, with the manifest), on the example's flow or `flowId`. */
async function beat(
  agentId: string,
  agentClass: string,
  options: { full?: boolean; flowId?: string } = {},
): Promise<RequestedOperation[]> {
  const body = cppHeartbeatOf(agentId, agentClass, options.full);
  if (options.flowId) (body.flowInfo as JsonObject).flowId = options.flowId;
  const response = await agentApi.post(HEARTBEAT, body, { certificate: fleet });
  expect(response.status, response.body).toBe(200);
  return response.json().requestedOperations as RequestedOperation[];
}

/** `count` heartbeats of one agent at once, as a retry racing its original or two processes sharing its id. */
async function beatsAtOnce(agentId: string, agentClass: string, count: number, flowId?: string) {
  const replies = await Promise.all(
    Array.from({ length: count }, () => beat(agentId, agentClass, { flowId })),
  );
  return replies.flat();
}

async function acknowledge(agentId: string, operationId: string, state: string) {
  const response = await agentApi.post(ACKNOWLEDGE, cppAckOf(agentId, operationId, state), {
    certificate: fleet,
  });
  expect(response.status, response.body).toBe(200);
}

async function queue(agentId: string, operation: string, operand: string): Promise<string> {
  const response = await consoleApi.request("POST", "/api/v1/operations", {
    token: operator,
    body: { agentId, operation, operand, confirm: true },
  });
  expect(response.status, response.body).toBe(201);
  return (response.json().items as { operationId: string }[])[0]?.operationId as string;
}

const operationOf = async (operationId: string) =>
  (await consoleApi.request("GET", `/api/v1/operations/${operationId}`, { token: operator })).json();

/** Queued operations of the agent, as the console lists them. */
const queuedFor = async (agentId: string) =>
  (
    await consoleApi.request("GET", `/api/v1/operations?agentId=${agentId}&state=queued&limit=100`, {
      token: operator,
    })
  ).json().items as unknown[];

/** This file's records on the stream, as the stream's consumers get them, once `enough` holds of their events. */
async function streamRecords(what: string, enough: (events: BeaconEvent[]) => boolean) {
  const kinesis = makeKinesisClient(agentApi.env);
  try {
    return await until(what, async () => {
      const records: StreamRecord[] = (
        await readShardRecords(kinesis, agentApi.env[EnvNames.streamName] as string)
      )
        .map(({ shard, sequenceNumber, data }) => ({
          shard,
          position: sequenceNumber,
          event: data as BeaconEvent,
        }))
        .filter(({ event }) => event.tenant === tenant);
      return enough(records.map(({ event }) => event)) ? records : undefined;
    });
  } finally {
    kinesis.destroy();
  }
}

/** Registers agents at once, each with its full manifest: their first heartbeat. */
async function register(agentIds: string[], agentClass: string) {
  await Promise.all(agentIds.map((agentId) => beat(agentId, agentClass, { full: true })));
}

const range = (rounds: number) => Array.from({ length: rounds }, (_, round) => round);

describe("concurrent heartbeats of one agent", () => {
  const ROUNDS = 42;
  const CLASS = "beating";

  it("deliver each queued operation exactly once across all their replies, from the cache's path and the registry's", async () => {
    const agentIds = range(ROUNDS).map((round) => `beat-${round}`);
    await register(agentIds, CLASS);
    for (const round of range(ROUNDS)) {
      const agentId = agentIds[round] as string;
      const queued = [
        await queue(agentId, "CLEAR", "REPOSITORIES"),
        await queue(agentId, "DESCRIBE", "METRICS"),
        await queue(agentId, "DESCRIBE", "CONFIGURATION"),
      ];
      if (bypassesCache(round)) await cache.del(CacheKeys.agent(tenant, agentId));
      const delivered = (await beatsAtOnce(agentId, CLASS, concurrencyOf(round))).map(
        (operation) => operation.identifier,
      );
      // What the race left queued (none should be) goes out on the heartbeats that follow.
      while ((await queuedFor(agentId)).length > 0)
        delivered.push(...(await beat(agentId, CLASS)).map((operation) => operation.identifier));
      expect(delivered.sort(), `round ${round}`).toEqual([...queued].sort());
    }
  });
});

describe("concurrent acknowledgements of one operation", () => {
  const ROUNDS = 36;
  const CLASS = "acking";

  it("change it once: one final state, one event of each transition, counted once in history", async () => {
    const agentIds = range(ROUNDS).map((round) => `ack-${round}`);
    await register(agentIds, CLASS);
    const outcomes = new Map<string, string>();
    for (const round of range(ROUNDS)) {
      const agentId = agentIds[round] as string;
      const operationId = await queue(agentId, "CLEAR", "REPOSITORIES");
      expect((await beat(agentId, CLASS)).map((operation) => operation.identifier)).toEqual([operationId]);
      // Odd rounds race an applied acknowledgement against one that was not.
      const conflicting = round % 2 === 1;
      const count = concurrencyOf(round);
      const states = range(count).map((index) =>
        conflicting && index % 2 === 1 ? "NOT_APPLIED" : "FULLY_APPLIED",
      );
      await Promise.all(states.map((state) => acknowledge(agentId, operationId, state)));
      const closed = await operationOf(operationId);
      expect(["done", "failed"], `round ${round}`).toContain(closed.state);
      expect(closed.ackState).toBe(closed.state === "done" ? "FULLY_APPLIED" : "NOT_APPLIED");
      outcomes.set(operationId, closed.state as string);
    }

    const acks = range(ROUNDS).reduce((sum, round) => sum + concurrencyOf(round), 0);
    const records = await streamRecords(
      "every acknowledgement's event on the stream",
      (seen) =>
        seen.filter((event) => event.type === "ack" && outcomes.has(event.operationId)).length >= acks,
    );
    const events = records.map(({ event }) => event);
    for (const [operationId, state] of outcomes) {
      const changes = events.filter(
        (event): event is OperationEvent => event.type === "operation" && event.operationId === operationId,
      );
      expect(changes.map((event) => `${event.from ?? "-"}→${event.state}`)).toEqual([
        "-→queued",
        "queued→delivered",
        `delivered→${state}`,
      ]);
      const matched = events.filter(
        (event) => event.type === "ack" && event.operationId === operationId && event.matched,
      );
      expect(matched).toHaveLength(1);
    }

    // The fleet history, fed the tenant's whole stream, counts each closed operation once.
    const consumer = composeHistoryConsumer(
      { tableName: agentApi.env[EnvNames.tableName] as string, retentionDays: 14 },
      documents,
    );
    await consumer.consume(records);
    const from = new Date(Math.min(...events.map((event) => event.at)) - 60_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const history = await consoleApi.request(
      "GET",
      `/api/v1/fleet/history?class=${CLASS}&from=${from}&to=${to}&step=3600`,
      { token: operator },
    );
    expect(history.status, history.body).toBe(200);
    const total = (field: string) =>
      (history.json().points as Record<string, number>[]).reduce(
        (sum, point) => sum + (point[field] ?? 0),
        0,
      );
    const count = (state: string) => [...outcomes.values()].filter((closed) => closed === state).length;
    expect({ done: total("operationsDone"), failed: total("operationsFailed") }).toEqual({
      done: count("done"),
      failed: count("failed"),
    });
  });
});

describe("a rollout's batch racing a catch-up for one agent", () => {
  const ROUNDS = 30;
  /** A canary of the one agent of the class, taken on the rollout's first look. */
  const CANARY_OF_ONE = { canary: { count: 1 }, batchSize: 1, batchIntervalSeconds: 0, soakSeconds: 0 };

  const publish = (className: string, name: string) => publishFlow(consoleApi, operator, className, name);

  /** The class brought to `target` before the round, as a finished rollout leaves it, its policy loaded by its agent. */
  async function classOn(className: string, agentId: string, target: string) {
    await documents.send(
      new UpdateCommand({
        TableName: agentApi.env[EnvNames.tableName],
        Key: Keys.agentClass(tenant, className),
        UpdateExpression: "SET flowPolicy = :policy",
        ExpressionAttributeValues: { ":policy": { target, accepted: [target] } },
      }),
    );
    await cache.del(CacheKeys.classFlow(tenant, className));
    expect(await beat(agentId, className)).toEqual([]);
  }

  async function startRollout(className: string, flowHash: string) {
    const response = await consoleApi.request("POST", "/api/v1/rollouts", {
      token: operator,
      body: { className, flowHash, plan: CANARY_OF_ONE },
    });
    expect(response.status, response.body).toBe(201);
  }

  it("sends the agent one UPDATE CONFIGURATION across all its heartbeat replies", async () => {
    const classes = range(ROUNDS).map((round) => `flip-${round}`);
    const agentIds = classes.map((className) => `${className}-agent`);
    await Promise.all(classes.map((className, round) => register([agentIds[round] as string], className)));
    for (const round of range(ROUNDS)) {
      const className = classes[round] as string;
      const agentId = agentIds[round] as string;
      const previous = await publish(className, `previous-${round}`);
      const next = await publish(className, `next-${round}`);
      // The agent runs neither version: catch-up is due for it, and the rollout's canary takes it.
      await classOn(className, agentId, previous);
      if (bypassesCache(round)) await cache.del(CacheKeys.agent(tenant, agentId));
      const [, raced] = await Promise.all([
        startRollout(className, next),
        beatsAtOnce(agentId, className, concurrencyOf(round)),
      ]);
      const updates = raced.filter(isUpdateConfiguration);
      // The heartbeats that follow carry what the race queued, until one carries nothing.
      for (
        let reply = await beat(agentId, className);
        reply.length > 0;
        reply = await beat(agentId, className)
      )
        updates.push(...reply.filter(isUpdateConfiguration));
      expect(
        updates.map((update) => update.args?.flowId),
        `round ${round}`,
      ).toHaveLength(1);
    }
  });
});

const isUpdateConfiguration = (operation: RequestedOperation) =>
  operation.operation === "UPDATE" && operation.operand === "CONFIGURATION";
