import type { AssetContentStore } from "../../core/assets/ports.js";
import type { StoredContent, StreamedContent } from "../../core/ports.js";

/** What a stream hands over at a time, as a socket would: never the whole of a large asset. */
const CHUNK_BYTES = 64 * 1024;

export class MemoryAssetContent implements AssetContentStore {
  readonly objects = new Map<string, StoredContent>();

  async put(tenant: string, assetId: string, bytes: Uint8Array, contentType: string) {
    this.objects.set(`${tenant}/${assetId}`, { hash: assetId, contentType, bytes: Uint8Array.from(bytes) });
  }

  async read(tenant: string, assetId: string) {
    const stored = this.objects.get(`${tenant}/${assetId}`);
    return stored && { ...stored, bytes: Uint8Array.from(stored.bytes) };
  }

  async stream(tenant: string, assetId: string): Promise<StreamedContent | undefined> {
    const stored = this.objects.get(`${tenant}/${assetId}`);
    if (!stored) return undefined;
    const { bytes } = stored;
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(offset, offset + CHUNK_BYTES));
        offset += CHUNK_BYTES;
      },
    });
    return { hash: assetId, contentType: stored.contentType, length: bytes.length, body };
  }

  async remove(tenant: string, assetId: string) {
    this.objects.delete(`${tenant}/${assetId}`);
  }
}
