import { createHash } from "node:crypto";
import type { AssetUploadRecord } from "../../core/assets/model.js";
import type { AssetContentStore } from "../../core/assets/ports.js";
import type { StoredContent, StreamedContent } from "../../core/ports.js";

/** What a stream hands over at a time, as a socket would: never the whole of a large asset. */
const CHUNK_BYTES = 64 * 1024;

/** An upload in parts as the fake keeps it: the parts sent so far, and the bytes once assembled. */
interface MemoryUpload {
  upload: AssetUploadRecord;
  parts: Map<number, Uint8Array>;
  assembled?: Uint8Array;
}

/** The fake's part URLs: `memory://<tenant>/<uploadId>/<partNumber>`, which `receivePart` takes as S3 takes a PUT. */
const PART_URL = /^memory:\/\/([^/]+)\/([^/]+)\/(\d+)$/;

export class MemoryAssetContent implements AssetContentStore {
  readonly objects = new Map<string, StoredContent>();
  readonly uploads = new Map<string, MemoryUpload>();
  /** When the fake's signing credentials expire: never unless a test says so. */
  credentialsExpireAt: number | undefined;

  async signingCredentialsExpireAt() {
    return this.credentialsExpireAt;
  }

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

  async downloadUrl(
    tenant: string,
    assetId: string,
    download: { fileName: string; contentType: string },
    expiresInSeconds: number,
  ) {
    const query = new URLSearchParams({ ...download, expires: String(expiresInSeconds) });
    return `memory://${tenant}/${assetId}?${query}`;
  }

  /** What a GET of a download link answers: the bytes, their media type and the name they are saved under. */
  followDownload(url: string): { bytes: Uint8Array; contentType: string; disposition: string } | undefined {
    const link = new URL(url);
    const stored = this.objects.get(`${link.host}${link.pathname}`);
    return (
      stored && {
        bytes: Uint8Array.from(stored.bytes),
        contentType: link.searchParams.get("contentType") ?? "",
        disposition: `attachment; filename="${link.searchParams.get("fileName")}"`,
      }
    );
  }

  async remove(tenant: string, assetId: string) {
    this.objects.delete(`${tenant}/${assetId}`);
  }

  async startUpload(tenant: string, upload: AssetUploadRecord) {
    this.uploads.set(`${tenant}/${upload.uploadId}`, { upload: { ...upload }, parts: new Map() });
  }

  async upload(tenant: string, uploadId: string) {
    const staged = this.uploads.get(`${tenant}/${uploadId}`);
    return staged && { ...staged.upload };
  }

  async partUrls(tenant: string, uploadId: string, partNumbers: number[]) {
    this.staged(tenant, uploadId);
    return partNumbers.map((partNumber) => `memory://${tenant}/${uploadId}/${partNumber}`);
  }

  /** What a PUT of `bytes` to a part URL does; a part sent again replaces the one before, as in S3. */
  receivePart(url: string, bytes: Uint8Array) {
    const [, tenant = "", uploadId = "", partNumber = ""] = PART_URL.exec(url) ?? [];
    const staged = this.staged(tenant, uploadId);
    if (staged.assembled) throw new Error(`Upload ${uploadId} is assembled already`);
    staged.parts.set(Number(partNumber), Uint8Array.from(bytes));
  }

  async uploadedParts(tenant: string, uploadId: string) {
    return [...this.staged(tenant, uploadId).parts]
      .sort(([a], [b]) => a - b)
      .map(([partNumber, bytes]) => ({ partNumber, sizeBytes: bytes.length }));
  }

  async assemble(tenant: string, uploadId: string) {
    const staged = this.staged(tenant, uploadId);
    staged.assembled ??= Buffer.concat([...staged.parts].sort(([a], [b]) => a - b).map(([, bytes]) => bytes));
    const sha256 = createHash("sha256").update(staged.assembled).digest("hex");
    return { sizeBytes: staged.assembled.length, sha256 };
  }

  async promote(tenant: string, uploadId: string, assetId: string, contentType: string) {
    const { assembled } = this.staged(tenant, uploadId);
    if (!assembled) throw new Error(`Upload ${uploadId} is not assembled`);
    await this.put(tenant, assetId, assembled, contentType);
    this.uploads.delete(`${tenant}/${uploadId}`);
  }

  async abortUpload(tenant: string, uploadId: string) {
    this.uploads.delete(`${tenant}/${uploadId}`);
  }

  private staged(tenant: string, uploadId: string): MemoryUpload {
    const staged = this.uploads.get(`${tenant}/${uploadId}`);
    if (!staged) throw new Error(`No upload ${uploadId} is staged for tenant ${tenant}`);
    return staged;
  }
}
