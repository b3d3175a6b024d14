import type { Page, PageRequest } from "../paging.js";
import type { StoredContent, StreamedContent } from "../ports.js";
import type { AssetRecord, AssetUploadRecord } from "./model.js";
import type { ResourceSet } from "./resource-set.js";

/** Assets' bytes per tenant and id (S3 on AWS, an S3-compatible server locally). */
export interface AssetContentStore {
  /** Writes the bytes under the asset's id; the same id always holds the same bytes, so writing again is harmless. */
  put(tenant: string, assetId: string, bytes: Uint8Array, contentType: string): Promise<void>;
  read(tenant: string, assetId: string): Promise<StoredContent | undefined>;
  /** The bytes as a stream with their length, for downloads of assets of any size; undefined when absent. */
  stream(tenant: string, assetId: string): Promise<StreamedContent | undefined>;
  /**
   * A link that serves the bytes by a plain GET, with `contentType` and saved as `fileName`, until it expires:
   * no caller's credentials needed, and no Lambda answer's size limit in the way.
   */
  downloadUrl(
    tenant: string,
    assetId: string,
    download: { fileName: string; contentType: string },
    expiresInSeconds: number,
  ): Promise<string>;
  /** Removes the bytes; removing bytes that are not there is no error. */
  remove(tenant: string, assetId: string): Promise<void>;

  /**
   * Starts an upload in parts, staged apart from the tenant's assets, and keeps `upload` beside it. Its parts
   * are sent by the caller straight to the store, to the URLs `partUrls` hands out.
   */
  startUpload(tenant: string, upload: AssetUploadRecord): Promise<void>;
  /** The upload as it was started, while it is staged: another tenant's id is none. */
  upload(tenant: string, uploadId: string): Promise<AssetUploadRecord | undefined>;
  /**
   * When the credentials the store signs links with expire (epoch milliseconds), or undefined when they do not
   * or the store is not told: a link works until then at most, whatever lifetime it was signed for.
   */
  signingCredentialsExpireAt(): Promise<number | undefined>;
  /** URLs that each take one part (numbered from 1) by a plain HTTP PUT of its bytes, until they expire. */
  partUrls(
    tenant: string,
    uploadId: string,
    partNumbers: number[],
    expiresInSeconds: number,
  ): Promise<string[]>;
  /** The parts stored so far, by part number. */
  uploadedParts(tenant: string, uploadId: string): Promise<{ partNumber: number; sizeBytes: number }[]>;
  /**
   * Joins the stored parts into the staged object and reads it whole, streamed (never held whole), for its
   * real size and SHA-256.
   */
  assemble(tenant: string, uploadId: string): Promise<{ sizeBytes: number; sha256: string }>;
  /** Makes the assembled bytes the asset `assetId`'s and removes the staged upload. */
  promote(tenant: string, uploadId: string, assetId: string, contentType: string): Promise<void>;
  /** Removes the staged upload, its parts and its bytes; removing an upload that is gone is no error. */
  abortUpload(tenant: string, uploadId: string): Promise<void>;
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

/** Each class's resource set, and which classes use each asset. */
export interface ResourceSetStore {
  get(tenant: string, className: string): Promise<ResourceSet | undefined>;
  /**
   * Replaces the class's set with `set` and, in the same transaction, marks the assets it adds as used by
   * the class and those it drops as no longer. `conflict` when the class's set is no longer `previous`,
   * or an asset it adds is gone: nothing changed.
   */
  replace(
    tenant: string,
    set: ResourceSet,
    previous: ResourceSet | undefined,
  ): Promise<"replaced" | "conflict">;
}
