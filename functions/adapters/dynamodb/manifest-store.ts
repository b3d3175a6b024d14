import { gunzipSync, gzipSync } from "node:zlib";
import type { ManifestSummary } from "../../core/c2/manifest.js";
import type { ManifestStore } from "../../core/manifests/ports.js";
import { type CompressedBody, readCompressedBody, writeCompressedBody } from "./compressed-body.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { isConditionalCheckFailure, Keys } from "./keys.js";

type ManifestItem = Partial<CompressedBody> & { manifestId: string };

/**
 * Binaries' content, once per tenant and canonical identity, written once. The summary item is the commit
 * point: chunks (identical bytes for identical content, so rewriting them is harmless) go first, the
 * summary last with a conditional put, and readers only ever start from the summary.
 */
export class DynamoManifestStore implements ManifestStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async has(tenant: string, manifestId: string): Promise<boolean> {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.manifest(tenant, manifestId),
      ProjectionExpression: "manifestId",
    });
    return Item !== undefined;
  }

  async store(
    tenant: string,
    manifestId: string,
    contentJson: string,
    summary: ManifestSummary,
    now: number,
  ) {
    const compressed = gzipSync(contentJson);
    const stored = await writeCompressedBody(this.client, this.tableName, compressed, (index) =>
      Keys.manifestChunk(tenant, manifestId, index),
    );
    try {
      await directCalls(this.client).put({
        TableName: this.tableName,
        Item: {
          ...Keys.manifest(tenant, manifestId),
          tenant,
          manifestId,
          ...summary,
          jsonBytes: Buffer.byteLength(contentJson),
          gzipBytes: compressed.length,
          createdAt: now,
          ...stored,
        },
        ConditionExpression: "attribute_not_exists(pk)",
      });
      return "stored" as const;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return "exists" as const;
      throw error;
    }
  }

  async read(tenant: string, manifestId: string): Promise<string | undefined> {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.manifest(tenant, manifestId),
      ConsistentRead: true,
    });
    const item = Item as ManifestItem | undefined;
    if (!item) return undefined;
    const compressed = await readCompressedBody(
      this.client,
      this.tableName,
      item,
      (index) => Keys.manifestChunk(tenant, manifestId, index),
      `Manifest ${manifestId}`,
    );
    return gunzipSync(compressed).toString("utf8");
  }
}
