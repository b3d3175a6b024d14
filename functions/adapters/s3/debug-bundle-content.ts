import { Readable } from "node:stream";
import { DeleteObjectCommand, GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { DEBUG_BUNDLE_CONTENT_TYPE, DEBUG_BUNDLES_PREFIX } from "../../core/bundles/model.js";
import type { DebugBundleContent, DebugBundleObject } from "../../core/bundles/ports.js";

/** S3's smallest part: one part in memory at a time bounds what an upload holds to this, whatever its size. */
const PART_BYTES = 5 * 1024 * 1024;

/** Where a bundle lives: the tenant is a whole segment of the key, built from the caller's certificate. */
export const debugBundleKey = (object: DebugBundleObject): string =>
  `${DEBUG_BUNDLES_PREFIX}/${object.tenant}/${object.operationId}/${object.uploadId}.tar.gz`;

/** Debug bundles in the asset bucket under DEBUG_BUNDLES_PREFIX, encrypted at rest as the bucket is (SSE-S3). */
export class S3DebugBundleContent implements DebugBundleContent {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  /**
   * One PutObject for a bundle within a part, a multipart upload for a larger one, one part held at a time; a
   * source that fails aborts the multipart upload, so that no part is left stored.
   */
  async put(object: DebugBundleObject, source: AsyncIterable<Uint8Array>): Promise<void> {
    const upload = new Upload({
      client: this.s3,
      params: {
        Bucket: this.bucket,
        Key: debugBundleKey(object),
        Body: Readable.from(source, { objectMode: false }),
        ContentType: DEBUG_BUNDLE_CONTENT_TYPE,
      },
      partSize: PART_BYTES,
      queueSize: 1,
      leavePartsOnError: false,
    });
    await upload.done();
  }

  async remove(object: DebugBundleObject): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: debugBundleKey(object) }));
  }

  async *read(object: DebugBundleObject): AsyncIterable<Uint8Array> {
    const { Body } = await this.s3.send(
      new GetObjectCommand({ Bucket: this.bucket, Key: debugBundleKey(object) }),
    );
    if (!Body) throw new Error(`No bundle stored at ${debugBundleKey(object)}`);
    yield* Body as AsyncIterable<Uint8Array>;
  }

  downloadUrl(object: DebugBundleObject, fileName: string, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(
      this.s3,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: debugBundleKey(object),
        ResponseContentType: DEBUG_BUNDLE_CONTENT_TYPE,
        ResponseContentDisposition: `attachment; filename="${fileName}"`,
      }),
      { expiresIn: expiresInSeconds },
    );
  }
}
