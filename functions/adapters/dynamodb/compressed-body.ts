import { type DocumentClient, directCalls } from "./direct-calls.js";
import { queryAll } from "./paging.js";

/**
 * Gzipped bytes kept in one item. DynamoDB items stop at 400 KB including names and the summary;
 * a full C++ manifest gzips to ~54 KB, so chunks are for documents far beyond today's largest.
 */
const CHUNK_BYTES = 300 * 1024;

/** Where a document's gzip lives: in its own item, or in `chunkCount` chunk items beside it. */
export type CompressedBody =
  | { body: Uint8Array; chunkCount?: undefined }
  | { body?: undefined; chunkCount: number };

type ChunkKey = (index: number) => { pk: string; sk: string };

/**
 * Content-addressed documents (manifests, flows) are stored gzipped and written once. Chunks (identical
 * bytes for identical content, so rewriting them is harmless) go first; the caller then writes the item
 * that names them with a conditional put, which is the commit point readers start from.
 */
export async function writeCompressedBody(
  client: DocumentClient,
  tableName: string,
  compressed: Buffer,
  chunkKey: ChunkKey,
): Promise<CompressedBody> {
  if (compressed.length <= CHUNK_BYTES) return { body: compressed };
  let chunkCount = 0;
  for (let offset = 0; offset < compressed.length; offset += CHUNK_BYTES) {
    const data = compressed.subarray(offset, offset + CHUNK_BYTES);
    await directCalls(client).put({ TableName: tableName, Item: { ...chunkKey(chunkCount), data } });
    chunkCount++;
  }
  return { chunkCount };
}

/** The gzip a committed item names, from the item itself or its chunks. */
export async function readCompressedBody(
  client: DocumentClient,
  tableName: string,
  item: Partial<CompressedBody>,
  chunkKey: ChunkKey,
  what: string,
): Promise<Buffer> {
  if (item.body) return Buffer.from(item.body);
  const chunkCount = item.chunkCount ?? 0;
  const { items } = await queryAll(client, {
    TableName: tableName,
    KeyConditionExpression: "pk = :pk",
    ExpressionAttributeValues: { ":pk": chunkKey(0).pk },
    ConsistentRead: true,
  });
  const chunks = items.map((chunk) => Buffer.from(chunk.data as Uint8Array));
  if (chunks.length !== chunkCount) throw new Error(`${what} has ${chunks.length} of ${chunkCount} chunks`);
  return Buffer.concat(chunks);
}
