import { gunzipSync, gzipSync } from "node:zlib";
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { ManifestSummary, SupportedOperations } from "../../core/c2/manifest.js";
import type { ManifestStore } from "../../core/manifests/ports.js";
import { type CompressedBody, readCompressedBody, writeCompressedBody } from "./compressed-body.js";
import { isConditionalCheckFailure, Keys } from "./keys.js";

type ManifestItem = Partial<CompressedBody> & {
  hash: string;
  supportedOperations: SupportedOperations;
};

/**
 * Manifests are content-addressed and written once. The summary item is the commit point: chunks
 * (identical bytes for identical hashes, so rewriting them is harmless) go first, the summary last
 * with a conditional put, and readers only ever start from the summary.
 */
export class DynamoManifestStore implements ManifestStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async find(tenant: string, hash: string): Promise<SupportedOperations | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: Keys.manifest(tenant, hash),
        ProjectionExpression: "supportedOperations",
      }),
    );
    return (Item as Pick<ManifestItem, "supportedOperations"> | undefined)?.supportedOperations;
  }

  async store(tenant: string, hash: string, manifestJson: string, summary: ManifestSummary, now: number) {
    const compressed = gzipSync(manifestJson);
    const stored = await writeCompressedBody(this.client, this.tableName, compressed, (index) =>
      Keys.manifestChunk(tenant, hash, index),
    );
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...Keys.manifest(tenant, hash),
            tenant,
            hash,
            ...summary,
            jsonBytes: Buffer.byteLength(manifestJson),
            gzipBytes: compressed.length,
            createdAt: now,
            ...stored,
          },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return "stored" as const;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return "exists" as const;
      throw error;
    }
  }

  async read(tenant: string, hash: string): Promise<string | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: Keys.manifest(tenant, hash), ConsistentRead: true }),
    );
    const item = Item as ManifestItem | undefined;
    if (!item) return undefined;
    const compressed = await readCompressedBody(
      this.client,
      this.tableName,
      item,
      (index) => Keys.manifestChunk(tenant, hash, index),
      `Manifest ${hash}`,
    );
    return gunzipSync(compressed).toString("utf8");
  }
}
