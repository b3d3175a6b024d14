import { afterAll, inject } from "vitest";
import { makeS3Client } from "../../runtime/aws-clients/s3.js";
import { EnvNames } from "../../shared/env-names.js";
import { MemoryAssetContent } from "../memory/asset-content.js";
import { S3AssetContent } from "../s3/asset-content.js";
import { assetContentContract } from "./asset-content.contract.js";

const env = inject("beaconEnv");
const s3 = makeS3Client(env);
afterAll(() => s3.destroy());

// The local stack's bucket: every key starts with its tenant, and each case has a tenant of its own.
assetContentContract("S3 (S3Proxy)", () => new S3AssetContent(s3, env[EnvNames.assetBucket] as string));
assetContentContract("the memory fake", () => new MemoryAssetContent());
