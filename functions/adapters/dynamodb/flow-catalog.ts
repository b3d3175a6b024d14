import { gunzipSync, gzipSync } from "node:zlib";
import type { FlowCatalog, FlowContent, FlowVersionRecord, NewFlowVersion } from "../../core/flows/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { type CompressedBody, readCompressedBody, writeCompressedBody } from "./compressed-body.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { failedTransactionConditions, isConditionalCheckFailure, Keys, putIfAbsent } from "./keys.js";
import { queryPartition } from "./paging.js";

const VERSION_PREFIX = "F#";

/** How often a publish reads the class's number again after another publish took it first. */
const NUMBERING_ATTEMPTS = 8;

type ContentItem = Partial<CompressedBody> & { hash: string; contentType: string };

/**
 * Flow versions as two kinds of item, each written once with a conditional put: the gzipped content per
 * tenant and hash (chunked like manifests when large), then the class's version item, which is the
 * commit point the console lists, in one transaction with the class's number item (its next number, or
 * nothing when another publish took that number first, which reads it again). Agents read the content by
 * hash alone. A class whose versions were stored before numbering has no number item: its first numbered
 * version takes the number after the count of those, which stay unnumbered.
 */
export class DynamoFlowCatalog implements FlowCatalog {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async add(tenant: string, version: NewFlowVersion, bytes: Uint8Array) {
    const { hash } = version;
    const compressed = gzipSync(bytes);
    if (!(await this.hasContent(tenant, hash))) {
      const stored = await writeCompressedBody(this.client, this.tableName, compressed, (index) =>
        Keys.flowContentChunk(tenant, hash, index),
      );
      await this.putOnce({
        ...Keys.flowContent(tenant, hash),
        hash,
        contentType: version.contentType,
        ...stored,
      });
    }
    for (let attempt = 1; ; attempt++) {
      const stored = await this.get(tenant, version.className, hash, true);
      if (stored) return { record: stored, created: false };
      const last = await this.lastNumber(tenant, version.className);
      const record: FlowVersionRecord = {
        ...version,
        gzipBytes: compressed.length,
        version: last.number + 1,
      };
      try {
        await directCalls(this.client).transactWrite({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: { ...Keys.flowVersion(tenant, version.className, hash), ...record },
                ConditionExpression: "attribute_not_exists(pk)",
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: { ...Keys.flowVersionNumber(tenant, version.className), lastVersion: record.version },
                ...(last.stored
                  ? {
                      ConditionExpression: "lastVersion = :last",
                      ExpressionAttributeValues: { ":last": last.number },
                    }
                  : { ConditionExpression: "attribute_not_exists(pk)" }),
              },
            },
          ],
        });
        return { record, created: true };
      } catch (error) {
        if (failedTransactionConditions(error) === undefined || attempt === NUMBERING_ATTEMPTS) throw error;
      }
    }
  }

  async setLabel(tenant: string, className: string, hash: string, label: string | undefined) {
    try {
      const { Attributes } = await directCalls(this.client).update({
        TableName: this.tableName,
        Key: Keys.flowVersion(tenant, className, hash),
        UpdateExpression: label === undefined ? "REMOVE label" : "SET label = :label",
        ConditionExpression: "attribute_exists(pk)",
        ...(label === undefined ? {} : { ExpressionAttributeValues: { ":label": label } }),
        ReturnValues: "ALL_NEW",
      });
      return Attributes && toVersion(Attributes);
    } catch (error) {
      if (isConditionalCheckFailure(error)) return undefined;
      throw error;
    }
  }

  async list(tenant: string, className: string, request: PageRequest) {
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk: Keys.flowVersion(tenant, className, "").pk, prefix: VERSION_PREFIX },
      request,
    );
    return { items: page.items.map(toVersion), last: page.last };
  }

  async get(tenant: string, className: string, hash: string, consistent = false) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.flowVersion(tenant, className, hash),
      ConsistentRead: consistent,
    });
    return Item ? toVersion(Item) : undefined;
  }

  async read(tenant: string, hash: string): Promise<FlowContent | undefined> {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.flowContent(tenant, hash),
      ConsistentRead: true,
    });
    const item = Item as ContentItem | undefined;
    if (!item) return undefined;
    const compressed = await readCompressedBody(
      this.client,
      this.tableName,
      item,
      (index) => Keys.flowContentChunk(tenant, hash, index),
      `Flow ${hash}`,
    );
    return { hash, contentType: item.contentType, bytes: gunzipSync(compressed) };
  }

  /**
   * The number the class's last version took, and whether the class's number item holds it; without one,
   * the count of the versions stored before numbering.
   */
  private async lastNumber(tenant: string, className: string): Promise<{ number: number; stored: boolean }> {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.flowVersionNumber(tenant, className),
      ConsistentRead: true,
    });
    if (Item) return { number: Item.lastVersion as number, stored: true };
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await directCalls(this.client).query({
        TableName: this.tableName,
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: {
          ":pk": Keys.flowVersionNumber(tenant, className).pk,
          ":prefix": VERSION_PREFIX,
        },
        Select: "COUNT",
        ConsistentRead: true,
        ExclusiveStartKey: start,
      });
      count += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    return { number: count, stored: false };
  }

  private async hasContent(tenant: string, hash: string): Promise<boolean> {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.flowContent(tenant, hash),
      ProjectionExpression: "pk",
      ConsistentRead: true,
    });
    return Item !== undefined;
  }

  /** False when the item exists already: content-addressed items never change once written. */
  private putOnce(item: Record<string, unknown>): Promise<boolean> {
    return putIfAbsent(this.client, this.tableName, item);
  }
}

function toVersion(item: Record<string, unknown>): FlowVersionRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record as unknown as FlowVersionRecord;
}
