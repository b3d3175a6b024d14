import { createHash } from "node:crypto";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListPartsCommand,
  NoSuchKey,
  NoSuchUpload,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { ASSET_UPLOADS_PREFIX, type AssetUploadRecord } from "../../core/assets/model.js";
import type { AssetContentStore } from "../../core/assets/ports.js";
import type { StoredContent, StreamedContent } from "../../core/ports.js";

/** The user metadata key (`x-amz-meta-content-type`) of the content type the upload declared. */
export const CONTENT_TYPE_METADATA = "content-type";

/** What is kept beside a staged upload: the upload as started and the id S3 gave its multipart upload. */
interface StagedUpload extends AssetUploadRecord {
  multipartUploadId: string;
}

/**
 * Assets' bytes in the bucket, each under `<tenant>/assets/<sha256>`: the tenant is the key's first segment,
 * so a read built from a credential's tenant cannot reach another tenant's bytes. The object carries the
 * content type the upload declared, which downloads answer with, as user metadata: S3Proxy's web server
 * rewrites a Content-Type header's `charset=utf-8` to `UTF-8` before checking the request's signature, so
 * the header would be refused there for the very media types text files come with.
 *
 * Uploads in parts are S3 multipart uploads staged under `asset-uploads/<tenant>/<uploadId>/` (the bytes, and
 * beside them the upload as started), whose parts callers PUT to presigned URLs; an upload is copied to its
 * asset's key only once its bytes are checked.
 */
export class S3AssetContent implements AssetContentStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(tenant: string, assetId: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: assetKey(tenant, assetId),
        Body: bytes,
        Metadata: { [CONTENT_TYPE_METADATA]: contentType },
      }),
    );
  }

  async read(tenant: string, assetId: string): Promise<StoredContent | undefined> {
    try {
      const object = await this.s3.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: assetKey(tenant, assetId) }),
      );
      const bytes = await object.Body?.transformToByteArray();
      if (!bytes) return undefined;
      return {
        hash: assetId,
        contentType: object.Metadata?.[CONTENT_TYPE_METADATA] ?? "application/octet-stream",
        bytes,
      };
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  }

  /** The object's body as S3 sends it, never held whole: the SDK reads it off the socket as the caller does. */
  async stream(tenant: string, assetId: string): Promise<StreamedContent | undefined> {
    try {
      const object = await this.s3.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: assetKey(tenant, assetId) }),
      );
      if (!object.Body || object.ContentLength === undefined) return undefined;
      return {
        hash: assetId,
        contentType: object.Metadata?.[CONTENT_TYPE_METADATA] ?? "application/octet-stream",
        length: object.ContentLength,
        body: object.Body.transformToWebStream(),
      };
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  }

  downloadUrl(
    tenant: string,
    assetId: string,
    download: { fileName: string; contentType: string },
    expiresInSeconds: number,
  ): Promise<string> {
    return getSignedUrl(
      this.s3,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: assetKey(tenant, assetId),
        // The object's own Content-Type is not the asset's (that is kept in its metadata): the link says it.
        ResponseContentType: download.contentType,
        ResponseContentDisposition: `attachment; filename="${download.fileName}"`,
      }),
      { expiresIn: expiresInSeconds },
    );
  }

  async remove(tenant: string, assetId: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: assetKey(tenant, assetId) }));
  }

  async startUpload(tenant: string, upload: AssetUploadRecord): Promise<void> {
    const started = await this.s3.send(
      new CreateMultipartUploadCommand({
        Bucket: this.bucket,
        Key: stagedBytesKey(tenant, upload.uploadId),
        ContentType: "application/octet-stream",
      }),
    );
    const staged: StagedUpload = { ...upload, multipartUploadId: started.UploadId as string };
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: stagedUploadKey(tenant, upload.uploadId),
        Body: JSON.stringify(staged),
        ContentType: "application/json",
      }),
    );
  }

  async upload(tenant: string, uploadId: string): Promise<AssetUploadRecord | undefined> {
    const staged = await this.staged(tenant, uploadId);
    if (!staged) return undefined;
    const { multipartUploadId: _, ...upload } = staged;
    return upload;
  }

  /** The expiration the client's credentials carry: session credentials from a provider that knows it have one. */
  async signingCredentialsExpireAt(): Promise<number | undefined> {
    const { expiration } = await this.s3.config.credentials();
    return expiration?.getTime();
  }

  async partUrls(
    tenant: string,
    uploadId: string,
    partNumbers: number[],
    expiresInSeconds: number,
  ): Promise<string[]> {
    const staged = await this.requireStaged(tenant, uploadId);
    return Promise.all(
      partNumbers.map((partNumber) =>
        getSignedUrl(
          this.s3,
          new UploadPartCommand({
            Bucket: this.bucket,
            Key: stagedBytesKey(tenant, uploadId),
            UploadId: staged.multipartUploadId,
            PartNumber: partNumber,
          }),
          { expiresIn: expiresInSeconds },
        ),
      ),
    );
  }

  async uploadedParts(
    tenant: string,
    uploadId: string,
  ): Promise<{ partNumber: number; sizeBytes: number }[]> {
    const staged = await this.requireStaged(tenant, uploadId);
    return (await this.listParts(tenant, staged)).map((part) => ({
      partNumber: part.PartNumber as number,
      sizeBytes: part.Size as number,
    }));
  }

  async assemble(tenant: string, uploadId: string): Promise<{ sizeBytes: number; sha256: string }> {
    const staged = await this.requireStaged(tenant, uploadId);
    const Key = stagedBytesKey(tenant, uploadId);
    const parts = await this.listParts(tenant, staged);
    await this.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.bucket,
        Key,
        UploadId: staged.multipartUploadId,
        MultipartUpload: { Parts: parts.map(({ PartNumber, ETag }) => ({ PartNumber, ETag })) },
      }),
    );
    const { Body } = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
    const hash = createHash("sha256");
    let sizeBytes = 0;
    for await (const chunk of (Body ?? []) as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      sizeBytes += chunk.length;
    }
    return { sizeBytes, sha256: hash.digest("hex") };
  }

  async promote(tenant: string, uploadId: string, assetId: string, contentType: string): Promise<void> {
    await this.s3.send(
      new CopyObjectCommand({
        Bucket: this.bucket,
        CopySource: `${this.bucket}/${stagedBytesKey(tenant, uploadId)}`,
        Key: assetKey(tenant, assetId),
        MetadataDirective: "REPLACE",
        Metadata: { [CONTENT_TYPE_METADATA]: contentType },
      }),
    );
    await this.removeStaged(tenant, uploadId);
  }

  async abortUpload(tenant: string, uploadId: string): Promise<void> {
    const staged = await this.staged(tenant, uploadId);
    if (staged) {
      try {
        await this.s3.send(
          new AbortMultipartUploadCommand({
            Bucket: this.bucket,
            Key: stagedBytesKey(tenant, uploadId),
            UploadId: staged.multipartUploadId,
          }),
        );
      } catch (error) {
        // Completed (assembled) already, or aborted by the bucket's lifecycle: its bytes are removed below.
        if (!(error instanceof NoSuchUpload)) throw error;
      }
    }
    await this.removeStaged(tenant, uploadId);
  }

  private async removeStaged(tenant: string, uploadId: string): Promise<void> {
    await Promise.all(
      [stagedBytesKey(tenant, uploadId), stagedUploadKey(tenant, uploadId)].map((Key) =>
        this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key })),
      ),
    );
  }

  private async listParts(tenant: string, staged: StagedUpload) {
    const parts = [];
    let marker: string | undefined;
    do {
      const page = await this.s3.send(
        new ListPartsCommand({
          Bucket: this.bucket,
          Key: stagedBytesKey(tenant, staged.uploadId),
          UploadId: staged.multipartUploadId,
          PartNumberMarker: marker,
        }),
      );
      parts.push(...(page.Parts ?? []));
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
    } while (marker);
    return parts.sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
  }

  private async staged(tenant: string, uploadId: string): Promise<StagedUpload | undefined> {
    try {
      const object = await this.s3.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: stagedUploadKey(tenant, uploadId) }),
      );
      return JSON.parse((await object.Body?.transformToString()) ?? "null") ?? undefined;
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  }

  private async requireStaged(tenant: string, uploadId: string): Promise<StagedUpload> {
    const staged = await this.staged(tenant, uploadId);
    if (!staged) throw new Error(`No upload ${uploadId} is staged for tenant ${tenant}`);
    return staged;
  }
}

/** Where an asset's bytes live in the bucket. */
export const assetKey = (tenant: string, assetId: string): string => `${tenant}/assets/${assetId}`;

/** Where an upload in parts is staged: the tenant is a whole segment, built from the caller's credentials. */
const stagedPrefix = (tenant: string, uploadId: string): string =>
  `${ASSET_UPLOADS_PREFIX}/${tenant}/${uploadId}`;
const stagedBytesKey = (tenant: string, uploadId: string): string =>
  `${stagedPrefix(tenant, uploadId)}/bytes`;
const stagedUploadKey = (tenant: string, uploadId: string): string =>
  `${stagedPrefix(tenant, uploadId)}/upload.json`;
