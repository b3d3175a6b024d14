import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { expect, it } from "vitest";
import { DynamoAuditLog } from "../dynamodb/audit-log.js";
import { Keys } from "../dynamodb/keys.js";
import { MemoryAuditLog } from "../memory/audit-log.js";
import { auditLogContract } from "./audit-log.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();

auditLogContract("DynamoDB", () => new DynamoAuditLog(table.documents, table.name, { retentionDays: 400 }));
auditLogContract("the memory fake", () => new MemoryAuditLog());

it("keeps a DynamoDB record for its retention, by the table's time to live", async () => {
  const at = Date.UTC(2026, 10, 21, 12);
  const log = new DynamoAuditLog(table.documents, table.name, { retentionDays: 30 });
  await log.add({
    tenant: "retention",
    at,
    requestId: "request-1",
    actor: { subject: "alice", role: "admin" },
    operationId: "deleteAsset",
    method: "DELETE",
    route: "/api/v1/assets/{assetId}",
    target: { assetId: "a".repeat(64) },
    status: 200,
  });
  const { Item } = await table.documents.send(
    new GetCommand({
      TableName: table.name,
      Key: Keys.auditRecord("retention", `${String(at).padStart(15, "0")}#request-1`),
    }),
  );
  expect(Item?.expiresAt).toBe(at / 1000 + 30 * 24 * 3600);
});
