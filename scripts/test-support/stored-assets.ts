import { createHash, randomBytes } from "node:crypto";
import { S3AssetContent } from "../../functions/adapters/s3/asset-content.js";
import { makeS3Client } from "../../functions/runtime/aws-clients/s3.js";
import { EnvNames } from "../../functions/shared/env-names.js";

export interface StoredAsset {
  assetId: string;
  bytes: Buffer;
}

/**
 * Puts assets of random bytes straight into the asset bucket `env` names, under a tenant's prefix, as the console
 * leaves them once an upload is checked: their id is their SHA-256.
 */
export function assetStore(env: Record<string, string>): {
  put(tenant: string, sizeBytes: number): Promise<StoredAsset>;
} {
  const assets = new S3AssetContent(makeS3Client(env), env[EnvNames.assetBucket] as string);
  return {
    async put(tenant, sizeBytes) {
      const bytes = randomBytes(sizeBytes);
      const assetId = createHash("sha256").update(bytes).digest("hex");
      await assets.put(tenant, assetId, bytes, "application/octet-stream");
      return { assetId, bytes };
    },
  };
}
