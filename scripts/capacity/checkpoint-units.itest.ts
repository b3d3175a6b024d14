import type { ConsumedCapacity } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DynamoAgentRegistry } from "../../functions/adapters/dynamodb/agent-registry.js";
import { makeDynamoDbClient } from "../../functions/runtime/aws-clients/dynamodb.js";
import { watchConsumedCapacity } from "../bench/dynamodb-meter.js";
import { provisionTable } from "../local/provision.js";
import { measuredAgentRecord } from "./measure.js";

/**
 * What the registry's writes for one agent consume in DynamoDB Local, which answers ReturnConsumedCapacity
 * (INDEXES) as DynamoDB does: the profile a change rewrites, and the last-seen item each periodic
 * checkpoint writes. The figures in scripts/capacity/units.json and docs/capacity.md come from these.
 */
describe("a registry checkpoint's write units", () => {
  const consumed: ConsumedCapacity[] = [];
  let registry: DynamoAgentRegistry;
  let documents: DynamoDBDocumentClient;

  beforeAll(async () => {
    const backends = inject("beaconEnv");
    const client = makeDynamoDbClient(backends);
    const tableName = `beacon-capacity-${Date.now()}`;
    await provisionTable(client, tableName);
    documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    watchConsumedCapacity(documents, "INDEXES", (_request, reported) => {
      if (reported) consumed.push(...[reported].flat());
    });
    registry = new DynamoAgentRegistry(documents, tableName);
  });
  afterAll(() => documents?.destroy());

  /** The capacity one registry call consumed, in the table and in each index. */
  const unitsOf = async (write: () => Promise<unknown>) => {
    consumed.length = 0;
    await write();
    expect(consumed).toHaveLength(1);
    const [capacity] = consumed as [ConsumedCapacity];
    return {
      total: capacity.CapacityUnits,
      table: capacity.Table?.CapacityUnits,
      indexes: Object.fromEntries(
        Object.entries(capacity.GlobalSecondaryIndexes ?? {}).map(([name, each]) => [
          name,
          each.CapacityUnits,
        ]),
      ),
    };
  };

  it("is 1 for the last-seen item, which no index holds; a change rewrites the profile in both indexes", async () => {
    const record = measuredAgentRecord();
    const { tenant, agentId } = record;
    const registered = await unitsOf(() => registry.register(record));
    // The profile the C++ full heartbeat's agent registers with is over 1 KB: 2 units in each copy.
    expect(registered).toEqual({ total: 6, table: 2, indexes: { gsi1: 2, gsi2: 2 } });

    // What each periodic checkpoint wrote before: the profile again, its values unchanged.
    const profileCheckpoint = await unitsOf(() =>
      registry.checkpoint(tenant, agentId, {
        lastSeen: record.lastSeen + 600_000,
        agentClass: record.agentClass,
        manifestHash: record.manifestHash,
        flowId: record.flowId,
        device: record.device,
      }),
    );
    expect(profileCheckpoint).toEqual({ total: 6, table: 2, indexes: { gsi1: 2, gsi2: 2 } });

    // What it writes now.
    const lastSeen = await unitsOf(() => registry.recordSeen(tenant, agentId, record.lastSeen + 1_200_000));
    expect(lastSeen).toEqual({ total: 1, table: 1, indexes: {} });
    expect((await registry.get(tenant, agentId))?.lastSeen).toBe(record.lastSeen + 1_200_000);
  });
});
