import { gunzipSync, gzipSync } from "node:zlib";
import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { ManifestSummary, SupportedOperations } from "../../core/c2/manifest.js";
import type { ManifestStore } from "../../core/ports.js";
import { isConditionalCheckFailure, Keys } from "./keys.js";

/**
 * Gzipped bytes kept in one item. DynamoDB items stop at 400 KB including names and the summary;
 * a full C++ manifest gzips to ~54 KB, so chunks are for manifests far beyond today's largest.
 */
const CHUNK_BYTES = 300 * 1024;

interface ManifestItem {
  hash: string;
  supportedOperations: SupportedOperations;
  body?: Uint8Array;
  chunkCount?: number;
}

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
    const chunks: Buffer[] = [];
    if (compressed.length > CHUNK_BYTES) {
      for (let offset = 0; offset < compressed.length; offset += CHUNK_BYTES) {
        chunks.push(compressed.subarray(offset, offset + CHUNK_BYTES));
      }
      for (const [index, data] of chunks.entries()) {
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...Keys.manifestChunk(tenant, hash, index), data },
          }),
        );
      }
    }
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
            ...(chunks.length > 0 ? { chunkCount: chunks.length } : { body: compressed }),
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
    const compressed = item.body
      ? Buffer.from(item.body)
      : await this.readChunks(tenant, hash, item.chunkCount ?? 0);
    return gunzipSync(compressed).toString("utf8");
  }

  private async readChunks(tenant: string, hash: string, chunkCount: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let exclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": Keys.manifestChunk(tenant, hash, 0).pk },
          ConsistentRead: true,
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) chunks.push(Buffer.from(item.data as Uint8Array));
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey);
    if (chunks.length !== chunkCount)
      throw new Error(`Manifest ${hash} has ${chunks.length} of ${chunkCount} chunks`);
    return Buffer.concat(chunks);
  }
}
