import { randomUUID } from "node:crypto";
import type { KinesisClient } from "@aws-sdk/client-kinesis";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, inject } from "vitest";
import { provisionStream, provisionTable } from "../../../scripts/local/provision.js";
import { makeDocumentClient, makeDynamoDbClient } from "../../runtime/aws-clients/dynamodb.js";
import { makeKinesisClient } from "../../runtime/aws-clients/kinesis.js";
import { makeRedisClient } from "../../runtime/redis-client.js";
import { EnvNames } from "../../shared/env-names.js";

/**
 * The local stack's parts as a contract file's real adapters use them, each opened before the file's cases
 * and closed after them. Tables and streams are the file's own: the sweeper's reads (due operations, active
 * rollouts) span every tenant, and a shared table would hand them every other test's items.
 */
export function tableOfItsOwn(): { readonly documents: DynamoDBDocumentClient; readonly name: string } {
  const table = { documents: undefined as unknown as DynamoDBDocumentClient, name: "" };
  beforeAll(async () => {
    const backends = inject("beaconEnv");
    table.name = `beacon-contract-${randomUUID().slice(0, 8)}`;
    await provisionTable(makeDynamoDbClient(backends), table.name);
    // As the functions make theirs.
    table.documents = makeDocumentClient(backends);
  });
  afterAll(() => table.documents?.destroy());
  return table;
}

/** The tests' Redis; every key Beacon writes carries its tenant, so cases with their own tenants share it. */
export function sharedRedis(): { readonly client: Redis | Cluster } {
  const redis = { client: undefined as unknown as Redis | Cluster };
  beforeAll(() => {
    const url = inject("beaconEnv")[EnvNames.redisUrl] as string;
    redis.client = makeRedisClient({ url, commandTimeoutMs: 2_000 });
  });
  afterAll(async () => {
    await redis.client?.quit();
  });
  return redis;
}

export function streamOfItsOwn(): { readonly kinesis: KinesisClient; readonly name: string } {
  const stream = { kinesis: undefined as unknown as KinesisClient, name: "" };
  beforeAll(async () => {
    stream.kinesis = makeKinesisClient(inject("beaconEnv"));
    stream.name = `beacon-contract-${randomUUID().slice(0, 8)}`;
    await provisionStream(stream.kinesis, stream.name);
  });
  afterAll(() => stream.kinesis?.destroy());
  return stream;
}
