import { type AuditRecord, auditKey, DEFAULT_AUDIT_RETENTION_DAYS } from "../../core/audit/model.js";
import type { AuditLog, AuditQuery } from "../../core/audit/ports.js";
import { timeKeyPrefix } from "../../core/paging.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { expiresAtSeconds, Keys } from "./keys.js";
import { queryPartition } from "./paging.js";
import { TableSchema } from "./table-schema.js";

/** After every time a key can hold (15 digits of epoch ms), so that `to` absent reads up to the newest. */
const END_OF_TIME = "9".repeat(15);

/**
 * One item per record in the tenant's audit partition, keyed by its time and request id: written again, it
 * is the same item with the same content, so no condition is needed. Items expire `retentionDays` after the
 * request. A tenant's changes are people's and scripts' requests, a few a second at most: one partition
 * takes them, and reading a time range newest first is one key query.
 */
export class DynamoAuditLog implements AuditLog {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
    private readonly retention: { retentionDays: number } = { retentionDays: DEFAULT_AUDIT_RETENTION_DAYS },
  ) {}

  async add(record: AuditRecord) {
    await directCalls(this.client).put({
      TableName: this.tableName,
      Item: {
        ...record,
        ...Keys.auditRecord(record.tenant, auditKey(record)),
        [TableSchema.timeToLiveAttribute]: expiresAtSeconds(record.at, this.retention),
      },
    });
  }

  async list(tenant: string, query: AuditQuery) {
    // `to` is exclusive: its prefix sorts before every record of its millisecond ("<time>#<id>").
    const between: [string, string] = [
      timeKeyPrefix(query.from ?? 0),
      query.to === undefined ? END_OF_TIME : timeKeyPrefix(query.to),
    ];
    const filters = [
      ...(query.actor === undefined ? [] : ["#actor.#subject = :actor"]),
      ...(query.operationId === undefined ? [] : ["#operationId = :operationId"]),
    ];
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk: Keys.auditRecord(tenant, "").pk, prefix: "E#", between },
      { limit: query.limit, after: query.after, descending: true },
      filters.length === 0
        ? {}
        : {
            FilterExpression: filters.join(" AND "),
            ExpressionAttributeNames: {
              ...(query.actor === undefined ? {} : { "#actor": "actor", "#subject": "subject" }),
              ...(query.operationId === undefined ? {} : { "#operationId": "operationId" }),
            },
            ExpressionAttributeValues: {
              ...(query.actor === undefined ? {} : { ":actor": query.actor }),
              ...(query.operationId === undefined ? {} : { ":operationId": query.operationId }),
            },
          },
    );
    return { items: page.items.map(toRecord), last: page.last };
  }
}

function toRecord(item: Record<string, unknown>): AuditRecord {
  const { pk: _pk, sk: _sk, [TableSchema.timeToLiveAttribute]: _expiresAt, ...record } = item;
  return record as unknown as AuditRecord;
}
