import type { AssetContentStore } from "../../core/assets/ports.js";
import type { StoredContent } from "../../core/ports.js";

export class MemoryAssetContent implements AssetContentStore {
  readonly objects = new Map<string, StoredContent>();

  async put(tenant: string, assetId: string, bytes: Uint8Array, contentType: string) {
    this.objects.set(`${tenant}/${assetId}`, { hash: assetId, contentType, bytes: Uint8Array.from(bytes) });
  }

  async read(tenant: string, assetId: string) {
    const stored = this.objects.get(`${tenant}/${assetId}`);
    return stored && { ...stored, bytes: Uint8Array.from(stored.bytes) };
  }

  async remove(tenant: string, assetId: string) {
    this.objects.delete(`${tenant}/${assetId}`);
  }
}
