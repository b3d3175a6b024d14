import type { StoredContent } from "../downloads.js";
import type { Page, PageRequest } from "../paging.js";
import type { AssetRecord } from "./model.js";

/** Assets' bytes per tenant and id (S3 on AWS, an S3-compatible server locally). */
export interface AssetContentStore {
  /** Writes the bytes under the asset's id; the same id always holds the same bytes, so writing again is harmless. */
  put(tenant: string, assetId: string, bytes: Uint8Array, contentType: string): Promise<void>;
  read(tenant: string, assetId: string): Promise<StoredContent | undefined>;
  /** Removes the bytes; removing bytes that are not there is no error. */
  remove(tenant: string, assetId: string): Promise<void>;
}

/** What Beacon knows of a tenant's assets: the record the console lists, which is the commit point of an upload. */
export interface AssetCatalog {
  /** Written once per tenant and id; when the tenant has the asset already, the stored record comes back. */
  add(tenant: string, record: AssetRecord): Promise<{ record: AssetRecord; created: boolean }>;
  get(tenant: string, assetId: string): Promise<AssetRecord | undefined>;
  list(tenant: string, page: PageRequest): Promise<Page<AssetRecord>>;
  /** Removes the record unless a class's resource set uses the asset. */
  remove(tenant: string, assetId: string): Promise<"removed" | "in_use" | "absent">;
}
