import type { PageRequest } from "../paging.js";
import type { DebugBundle } from "./model.js";

/** Where a bundle's bytes are: one object per upload, under its tenant. */
export type DebugBundleObject = Pick<DebugBundle, "tenant" | "operationId" | "uploadId">;

/**
 * What is known of the kept bundles, one per TRANSFER DEBUG operation, by tenant and operation id (which
 * sorts by creation time). The store forgets an entry some time after it expires.
 */
export interface DebugBundleStore {
  /** Records the bundle unless its operation has one already: false then, and nothing is written. */
  create(bundle: DebugBundle): Promise<boolean>;
  get(tenant: string, operationId: string): Promise<DebugBundle | undefined>;
  /**
   * Newest first, of one agent when `agentId` is given (read by agent, not filtered from the tenant's); `after`
   * is the operation id of the last one returned. Expired ones are left out.
   */
  list(
    tenant: string,
    page: PageRequest,
    now: number,
    agentId?: string,
  ): Promise<{ items: DebugBundle[]; last?: string }>;
}

/** The bundles' bytes, which the bucket's lifecycle deletes after the retention. */
export interface DebugBundleContent {
  /**
   * Writes the bytes as `source` yields them, without holding them all; when `source` throws, nothing is left
   * stored (a multipart upload under way is aborted) and the error is rethrown.
   */
  put(object: DebugBundleObject, source: AsyncIterable<Uint8Array>): Promise<void>;
  remove(object: DebugBundleObject): Promise<void>;
  /** The bytes as stored, a chunk at a time, so that a reader holds no more of them than it keeps. */
  read(object: DebugBundleObject): AsyncIterable<Uint8Array>;
  /** A URL that serves the bytes, as `fileName`, for `expiresInSeconds`, to whoever holds it. */
  downloadUrl(object: DebugBundleObject, fileName: string, expiresInSeconds: number): Promise<string>;
}
