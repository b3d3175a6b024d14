import { randomUUID } from "node:crypto";
import { DynamoDBDocumentClient, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cppAckOf, cppHeartbeatOf } from "../../scripts/common/c2-examples.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type PrivateRedis, startPrivateRedis } from "../../scripts/test-support/private-redis.js";
import { Keys } from "../adapters/dynamodb/keys.js";
import { DynamoOperationStore } from "../adapters/dynamodb/operation-store.js";
import { CacheKeys } from "../adapters/redis/cache-keys.js";
import type { ClassFlowPolicy } from "../core/flows/policy.js";
import type { JsonObject } from "../core/json.js";
import { CATCH_UP_CREATOR } from "../core/operations/delivery.js";
import { makeDynamoDbClient } from "../runtime/aws-clients/dynamodb.js";
import { EnvNames } from "../shared/env-names.js";

const HEARTBEAT = "/c2/api/heartbeat";
const ACKNOWLEDGE = "/c2/api/acknowledge";
const CLASS = "gateways";
const target = "c4".repeat(32);
const policy: ClassFlowPolicy = { target, accepted: [target], ackTimeoutMs: 120_000 };

let api: AgentApiUnderTest;
let redis: PrivateRedis;
/** The test's own connection to the agent API's cache, to look at and drop what Beacon keeps there. */
let cache: Redis;
let documents: DynamoDBDocumentClient;
let tenant: string;
let fleet: string;

/** A C++ agent's heartbeat from the examples: full (with its manifest) or light, on its own flow or `flowId`. */
async function heartbeat(agentId: string, options: { full?: boolean; flowId?: string } = {}) {
  const body = cppHeartbeatOf(agentId, CLASS, options.full);
  if (options.flowId) (body.flowInfo as JsonObject).flowId = options.flowId;
  const response = await api.post(HEARTBEAT, body, { certificate: fleet });
  expect(response.status).toBe(200);
  return response.json().requestedOperations as {
    identifier: string;
    operation: string;
    operand?: string;
    args?: Record<string, string>;
  }[];
}

/** The C++ agent's acknowledgement of an operation it could not apply. */
async function failed(agentId: string, operationId: string) {
  const response = await api.post(
    ACKNOWLEDGE,
    cppAckOf(agentId, operationId, "NOT_APPLIED", { details: "flow download failed" }),
    { certificate: fleet },
  );
  expect(response.status).toBe(200);
}

beforeAll(async () => {
  redis = await startPrivateRedis();
  api = await startAgentApi({ [EnvNames.redisUrl]: redis.url });
  cache = new Redis(redis.url);
  tenant = `catch-up-${randomUUID().slice(0, 8)}`;
  fleet = await api.issueCertificate({ tenant, fleet: true });
  documents = DynamoDBDocumentClient.from(makeDynamoDbClient(api.env));
});

afterAll(async () => {
  await cache?.quit();
  await api?.close();
  await redis?.stop();
});

describe("catch-up on the heartbeat", () => {
  it("loads a new class policy, sends a lagging agent one UPDATE CONFIGURATION, and leaves a current one be", async () => {
    const lagging = "cpp-lagging";
    const current = "cpp-current";
    expect(await heartbeat(lagging, { full: true })).toEqual([]);
    expect(await heartbeat(current, { full: true, flowId: target })).toEqual([]);

    // A flow published to a class whose agents get 2 minutes to acknowledge, as the rollout store writes it; the cache's copy of the class having
    // no policy is dropped as its expiry would drop it (the console writes new policies through at once).
    await documents.send(
      new UpdateCommand({
        TableName: api.env[EnvNames.tableName],
        Key: Keys.agentClass(tenant, CLASS),
        UpdateExpression: "SET flowPolicy = :policy, ackTimeoutSeconds = :ackTimeoutSeconds",
        ExpressionAttributeValues: { ":policy": policy, ":ackTimeoutSeconds": 120 },
      }),
    );
    await cache.del(CacheKeys.classFlow(tenant, CLASS));
    api.dynamoDb.reset();
    expect(await heartbeat(lagging)).toEqual([]);
    // The class's record, and its version, for whether it declares parameters the class's values render.
    expect(api.dynamoDb.counts()).toEqual({ "DynamoDB_20120810.GetItem": 2 });
    expect(await cache.hgetall(CacheKeys.classFlow(tenant, CLASS))).toEqual({
      loaded: "1",
      target,
      targetFlowId: target,
      accepted: target,
      ackTimeoutMs: "120000",
      // The class sets no heartbeat interval: its agents stating none are held to Beacon's default.
      heartbeatPeriodMs: "60000",
    });

    api.dynamoDb.reset();
    const [update, ...more] = await heartbeat(lagging);
    expect(more).toEqual([]);
    // The catch-up's cost: the one query delivery makes anyway, its creation and its move to delivered, each
    // with its event staged in the same transaction, and the events cleared from the outbox once on the stream.
    expect(api.dynamoDb.counts()).toEqual({
      "DynamoDB_20120810.Query": 1,
      "DynamoDB_20120810.TransactWriteItems": 2,
      "DynamoDB_20120810.BatchWriteItem": 1,
    });
    expect(update).toEqual({
      identifier: expect.any(String),
      operation: "UPDATE",
      operand: "CONFIGURATION",
      args: { location: `${api.url}/c2/api/flows/${target}/content`, flowId: target, persist: "true" },
    });
    const record = await new DynamoOperationStore(documents, api.env[EnvNames.tableName] as string).get(
      tenant,
      lagging,
      update?.identifier as string,
    );
    expect(record).toMatchObject({
      state: "delivered",
      createdBy: CATCH_UP_CREATOR,
      ackTimeoutMs: 120_000,
    });
    expect((record?.timeoutAt ?? 0) - (record?.deliveredAt ?? 0)).toBe(120_000);

    expect(await heartbeat(lagging)).toEqual([]);
    expect(await heartbeat(current, { flowId: target })).toEqual([]);

    // A failed update is sent again once the claim's retry window (30 minutes by default) has passed: the
    // claim is dropped here as its expiry would drop it.
    await failed(lagging, update?.identifier as string);
    expect(await heartbeat(lagging)).toEqual([]);
    const retryWindow = await cache.pttl(CacheKeys.catchUp(tenant, lagging));
    expect(retryWindow).toBeGreaterThan(0);
    expect(retryWindow).toBeLessThanOrEqual(1_800_000);
    await cache.del(CacheKeys.catchUp(tenant, lagging));
    const [again] = await heartbeat(lagging);
    expect(again).toMatchObject({
      operation: "UPDATE",
      operand: "CONFIGURATION",
      args: { flowId: target },
    });
    expect(again?.identifier).not.toBe(update?.identifier);
  });

  it("costs a steady heartbeat on an accepted flow no DynamoDB request and one cache round trip", async () => {
    const agentId = "cpp-steady";
    // The class's policy, published in the test above, is in the cache.
    expect(await cache.hget(CacheKeys.classFlow(tenant, CLASS), "target")).toBe(target);
    await heartbeat(agentId, { full: true, flowId: target });
    await heartbeat(agentId, { flowId: target });
    api.dynamoDb.reset();
    api.kinesis.reset();
    const steadyHeartbeats = 10;
    const { roundTrips } = await redis.countRoundTrips(async () => {
      for (let index = 0; index < steadyHeartbeats; index++)
        expect(await heartbeat(agentId, { flowId: target })).toEqual([]);
    });

    expect(api.dynamoDb.counts()).toEqual({});
    expect(api.kinesis.counts()).toEqual({ "Kinesis_20131202.PutRecords": steadyHeartbeats });
    expect(roundTrips).toEqual(Array.from({ length: steadyHeartbeats }, () => "evalsha"));
  });
});
