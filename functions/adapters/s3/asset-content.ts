import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import type { AssetContentStore } from "../../core/assets/ports.js";
import type { StoredContent, StreamedContent } from "../../core/ports.js";

/** The user metadata key (`x-amz-meta-content-type`) of the content type the upload declared. */
export const CONTENT_TYPE_METADATA = "content-type";

/**
 * Assets' bytes in the bucket, each under `<tenant>/assets/<sha256>`: the tenant is the key's first segment,
 * so a read built from a credential's tenant cannot reach another tenant's bytes. The object carries the
 * content type the upload declared, which downloads answer with, as user metadata: S3Proxy's web server
 * rewrites a Content-Type header's `charset=utf-8` to `UTF-8` before checking the request's signature, so
 * the header would be refused there for the very media types text files come with.
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

  async remove(tenant: string, assetId: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: assetKey(tenant, assetId) }));
  }
}

/** Where an asset's bytes live in the bucket. */
export const assetKey = (tenant: string, assetId: string): string => `${tenant}/assets/${assetId}`;
