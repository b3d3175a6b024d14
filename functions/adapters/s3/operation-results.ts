import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { OperationResultStore } from "../../core/operations/ports.js";
import { RESULT_CONTENT_TYPE, RESULTS_PREFIX } from "../../core/operations/results.js";

/** Where an operation's answer lives: the tenant is a whole segment of the key, built from the caller's own. */
export const resultKey = (tenant: string, operationId: string): string =>
  `${RESULTS_PREFIX}/${tenant}/${operationId}.json`;

/** DESCRIBE answers in the asset bucket under RESULTS_PREFIX, encrypted at rest as the bucket is (SSE-S3). */
export class S3OperationResults implements OperationResultStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(tenant: string, operationId: string, bytes: Uint8Array): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: resultKey(tenant, operationId),
        Body: bytes,
        ContentType: RESULT_CONTENT_TYPE,
      }),
    );
  }

  async read(tenant: string, operationId: string): Promise<Uint8Array | undefined> {
    try {
      const object = await this.s3.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: resultKey(tenant, operationId) }),
      );
      return await object.Body?.transformToByteArray();
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  }
}
