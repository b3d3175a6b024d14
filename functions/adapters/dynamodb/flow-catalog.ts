import { gunzipSync, gzipSync } from "node:zlib";
import { type DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import type { FlowCatalog, FlowContent, FlowVersionRecord } from "../../core/flows/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { type CompressedBody, readCompressedBody, writeCompressedBody } from "./compressed-body.js";
import { Keys, putIfAbsent } from "./keys.js";
import { queryPartition } from "./paging.js";

const VERSION_PREFIX = "F#";

type ContentItem = Partial<CompressedBody> & { hash: string; contentType: string };

/**
 * Flow versions as two kinds of item, each written once with a conditional put: the gzipped content per
 * tenant and hash (chunked like manifests when large), then the class's version item, which is the
 * commit point the console lists. Agents read the content by hash alone.
 */
export class DynamoFlowCatalog implements FlowCatalog {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async add(tenant: string, version: Omit<FlowVersionRecord, "gzipBytes">, bytes: Uint8Array) {
    const { hash } = version;
    const compressed = gzipSync(bytes);
    const record: FlowVersionRecord = { ...version, gzipBytes: compressed.length };
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
    if (await this.putOnce({ ...Keys.flowVersion(tenant, version.className, hash), ...record })) {
      return { record, created: true };
    }
    return { record: (await this.get(tenant, version.className, hash)) as FlowVersionRecord, created: false };
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

  async get(tenant: string, className: string, hash: string) {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: Keys.flowVersion(tenant, className, hash) }),
    );
    return Item ? toVersion(Item) : undefined;
  }

  async read(tenant: string, hash: string): Promise<FlowContent | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: Keys.flowContent(tenant, hash),
        ConsistentRead: true,
      }),
    );
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

  private async hasContent(tenant: string, hash: string): Promise<boolean> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: Keys.flowContent(tenant, hash),
        ProjectionExpression: "pk",
        ConsistentRead: true,
      }),
    );
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
