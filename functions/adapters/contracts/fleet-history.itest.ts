import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { expect, it } from "vitest";
import { zeroCounts } from "../../core/history/model.js";
import { emptySketch } from "../../core/history/sketch.js";
import { DynamoAgentEventLog, DynamoFleetHistory } from "../dynamodb/history.js";
import { Keys } from "../dynamodb/keys.js";
import { TableSchema } from "../dynamodb/table-schema.js";
import { MemoryAgentEventLog, MemoryFleetHistory } from "../memory/history.js";
import { fleetHistoryContract } from "./fleet-history.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();
const retention = { retentionDays: 14 };

fleetHistoryContract("DynamoDB", () => ({
  history: new DynamoFleetHistory(table.documents, table.name, retention),
  agentEvents: new DynamoAgentEventLog(table.documents, table.name, retention),
}));
fleetHistoryContract("the memory fake", () => ({
  history: new MemoryFleetHistory(),
  agentEvents: new MemoryAgentEventLog(),
}));

it("expires a minute's bucket the retention after the minute ends", async () => {
  const history = new DynamoFleetHistory(table.documents, table.name, { retentionDays: 3 });
  const key = { tenant: "ttl", agentClass: "pumps", minute: 29_000_000 };
  await history.update(key, () => ({
    ...key,
    counts: zeroCounts(),
    agentsSeen: emptySketch(),
    positions: {},
  }));
  const { Item } = await table.documents.send(
    new GetCommand({ TableName: table.name, Key: Keys.historyBucket("ttl", "pumps", key.minute) }),
  );
  expect(Item?.[TableSchema.timeToLiveAttribute]).toBe((key.minute + 1) * 60 + 3 * 86_400);
});
