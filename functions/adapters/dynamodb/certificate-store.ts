import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
} from "@aws-sdk/lib-dynamodb";
import { dropUndefined } from "../../core/c2/json.js";
import type { CertificateRecord, CertificateStore } from "../../core/identity/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { isConditionalCheckFailure, Keys } from "./keys.js";
import { queryAll, queryPartition } from "./paging.js";

const SERIAL_PREFIX = "S#";

/** Issued-certificate records and the revocation list the agent API reads; never a private key. */
export class DynamoCertificateStore implements CertificateStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async add(record: CertificateRecord) {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...Keys.certificate(record.tenant, record.serial), ...record },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
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
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: Keys.certificate(tenant, serial),
        ConsistentRead: true,
      }),
    );
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

  /** The record and the revocation list change together, so the agent API never sees one without the other. */
  async revoke(tenant: string, serial: string, now: number) {
    const record = await this.get(tenant, serial);
    if (!record) return undefined;
    const revokedAt = record.revokedAt ?? now;
    await this.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: this.tableName,
              Key: Keys.certificate(tenant, serial),
              UpdateExpression: "SET revokedAt = :revokedAt",
              ConditionExpression: "attribute_exists(pk)",
              ExpressionAttributeValues: { ":revokedAt": revokedAt },
            },
          },
          {
            Put: {
              TableName: this.tableName,
              Item: { ...Keys.revokedCertificate(tenant, serial), tenant, serial, revokedAt },
            },
          },
        ],
      }),
    );
    return { ...record, revokedAt };
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
  });
}
