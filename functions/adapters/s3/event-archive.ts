import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { ArchiveStore } from "../../core/archive/ports.js";

const gzipAsync = promisify(gzip);

/**
 * The event archive's objects, gzip-compressed (Athena reads `.gz` objects as gzip by their name) and encrypted
 * by the bucket's default encryption.
 */
export class S3EventArchive implements ArchiveStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, text: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: await gzipAsync(text),
        ContentType: "application/gzip",
      }),
    );
  }
}
