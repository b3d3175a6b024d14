import { afterAll, inject } from "vitest";
import { makeS3Client } from "../../runtime/aws-clients/s3.js";
import { EnvNames } from "../../shared/env-names.js";
import { MemoryOperationResults } from "../memory/operation-results.js";
import { S3OperationResults } from "../s3/operation-results.js";
import { operationResultsContract } from "./operation-results.contract.js";

const env = inject("beaconEnv");
const s3 = makeS3Client(env);
afterAll(() => s3.destroy());

// The local stack's asset bucket, under the results' prefix: each case has a tenant of its own.
operationResultsContract(
  "S3 (S3Proxy)",
  () => new S3OperationResults(s3, env[EnvNames.assetBucket] as string),
);
operationResultsContract("the memory fake", () => new MemoryOperationResults());
