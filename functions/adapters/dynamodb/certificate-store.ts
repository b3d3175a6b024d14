import { expiryKeyOf } from "../../core/identity/certificates.js";
import type { CertificateRecord, CertificateStore, RevocationReason } from "../../core/identity/ports.js";
import { dropUndefined } from "../../core/json.js";
import type { PageRequest } from "../../core/paging.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { isConditionalCheckFailure, Keys } from "./keys.js";
import { queryAll, queryPartition } from "./paging.js";
import { TableSchema } from "./table-schema.js";

const { byClass, byTenant, due } = TableSchema.indexes;

const SERIAL_PREFIX = "S#";

/** Issued-certificate records and the revocation list the agent API reads; never a private key. */
export class DynamoCertificateStore implements CertificateStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async add(record: CertificateRecord) {
    try {
      await directCalls(this.client).put({
        TableName: this.tableName,
        Item: { ...Keys.certificate(record.tenant, record.serial), ...record, ...indexKeysOf(record) },
        ConditionExpression: "attribute_not_exists(pk)",
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  async list(tenant: string, request: PageRequest) {
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk: Keys.certificate(tenant, "").pk, prefix: SERIAL_PREFIX },
      request,
    );
    return { items: page.items.map(toCertificate), last: page.last };
  }

  async get(tenant: string, serial: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.certificate(tenant, serial),
      ConsistentRead: true,
    });
    return Item ? toCertificate(Item) : undefined;
  }

  async ofAgent(tenant: string, agentId: string) {
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk",
      FilterExpression: "kind = :agent AND agentId = :agentId",
      ExpressionAttributeValues: {
        ":pk": Keys.certificate(tenant, "").pk,
        ":agent": "agent",
        ":agentId": agentId,
      },
    });
    return items.map(toCertificate);
  }

  async agentCertificates(tenant: string, agentId: string) {
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: byClass.indexName,
      KeyConditionExpression: "gsi1pk = :pk",
      ExpressionAttributeValues: { ":pk": Keys.certificatesOfAgent(tenant, agentId) },
    });
    return items.map(toCertificate);
  }

  /** Pages continue from the last key returned, rebuilt into the index's key from the caller's tenant. */
  async expiring(tenant: string, window: { from: number; until: number }, request: PageRequest) {
    const pk = Keys.certificatesByExpiry(tenant);
    const after = request.after;
    const page = await directCalls(this.client).query({
      TableName: this.tableName,
      IndexName: byTenant.indexName,
      KeyConditionExpression: "gsi2pk = :pk AND gsi2sk BETWEEN :from AND :until",
      ExpressionAttributeValues: {
        ":pk": pk,
        ":from": expiryKeyOf({ notAfter: window.from, serial: "" }),
        // Every key of a notAfter up to `until`, whatever its serial ("~" sorts after hex digits).
        ":until": expiryKeyOf({ notAfter: window.until, serial: "~" }),
      },
      ExclusiveStartKey:
        after === undefined
          ? undefined
          : {
              gsi2pk: pk,
              gsi2sk: after,
              ...Keys.certificate(tenant, after.slice(after.indexOf("#") + 1)),
            },
      Limit: request.limit,
    });
    return {
      items: (page.Items ?? []).map(toCertificate),
      last: page.LastEvaluatedKey?.gsi2sk as string | undefined,
    };
  }

  async dueForExpiryNotice(until: number, limit: number) {
    const page = await directCalls(this.client).query({
      TableName: this.tableName,
      IndexName: due.indexName,
      KeyConditionExpression: "gsi3pk = :pk AND gsi3sk <= :until",
      ExpressionAttributeValues: { ":pk": Keys.dueCertificates(), ":until": Keys.dueAt(until) },
      Limit: limit,
    });
    return (page.Items ?? []).map(toCertificate);
  }

  /** Leaves the due index in the same write, so the next run's query does not find it again. */
  async markExpiryAnnounced(tenant: string, serial: string, at: number) {
    try {
      await directCalls(this.client).update({
        TableName: this.tableName,
        Key: Keys.certificate(tenant, serial),
        UpdateExpression: "SET expiryAnnouncedAt = :at REMOVE gsi3pk, gsi3sk",
        ConditionExpression:
          "attribute_exists(pk) AND attribute_not_exists(expiryAnnouncedAt) AND attribute_not_exists(revokedAt)",
        ExpressionAttributeValues: { ":at": at },
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }

  /** The record and the revocation list change together, so the agent API never sees one without the other. */
  async revoke(tenant: string, serial: string, now: number, reason: RevocationReason) {
    const record = await this.get(tenant, serial);
    if (!record) return undefined;
    const revokedAt = record.revokedAt ?? now;
    // A certificate revoked before reasons were kept keeps none.
    const revocationReason = record.revokedAt === undefined ? reason : record.revocationReason;
    await directCalls(this.client).transactWrite({
      TransactItems: [
        {
          Update: {
            TableName: this.tableName,
            Key: Keys.certificate(tenant, serial),
            // A revoked certificate is neither expiring nor due for an announcement.
            UpdateExpression: `SET revokedAt = :revokedAt${revocationReason ? ", revocationReason = :reason" : ""} REMOVE gsi2pk, gsi2sk, gsi3pk, gsi3sk`,
            ConditionExpression: "attribute_exists(pk)",
            ExpressionAttributeValues: {
              ":revokedAt": revokedAt,
              ...(revocationReason ? { ":reason": revocationReason } : {}),
            },
          },
        },
        {
          Put: {
            TableName: this.tableName,
            Item: { ...Keys.revokedCertificate(tenant, serial), tenant, serial, revokedAt },
          },
        },
      ],
    });
    return dropUndefined({ ...record, revokedAt, revocationReason });
  }
}

function toCertificate(item: Record<string, unknown>): CertificateRecord {
  return dropUndefined({
    tenant: item.tenant as string,
    serial: item.serial as string,
    kind: item.kind as CertificateRecord["kind"],
    agentId: item.agentId as string | undefined,
    fleetName: item.fleetName as string | undefined,
    subjectDN: item.subjectDN as string,
    notBefore: item.notBefore as number,
    notAfter: item.notAfter as number,
    issuedAt: item.issuedAt as number,
    issuedBy: item.issuedBy as string,
    revokedAt: item.revokedAt as number | undefined,
    revocationReason: item.revocationReason as RevocationReason | undefined,
    signedBy: item.signedBy as string | undefined,
    expiryAnnouncedAt: item.expiryAnnouncedAt as number | undefined,
  });
}

/**
 * The indexes a certificate is in: its agent's (agent certificates), and while it is not revoked the
 * tenant's expiry order and, until announced, the due index.
 */
function indexKeysOf(record: CertificateRecord): Record<string, string> {
  return {
    ...(record.kind === "agent" && record.agentId !== undefined
      ? { gsi1pk: Keys.certificatesOfAgent(record.tenant, record.agentId), gsi1sk: `S#${record.serial}` }
      : {}),
    ...(record.revokedAt === undefined
      ? { gsi2pk: Keys.certificatesByExpiry(record.tenant), gsi2sk: expiryKeyOf(record) }
      : {}),
    ...(record.revokedAt === undefined && record.expiryAnnouncedAt === undefined
      ? { gsi3pk: Keys.dueCertificates(), gsi3sk: Keys.dueAt(record.notAfter) }
      : {}),
  };
}
