import { S3Client } from "@aws-sdk/client-s3";
import { connectionTimeoutMs, s3RequestTimeoutFor } from "../../adapters/aws/call-timeouts.js";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import { type ClientEnv, isCustomEndpoint, maxAttempts } from "./environment.js";
import { endpointSettings, madeOnFirstUse } from "./settings.js";

/**
 * S3 client; talks to AWS_ENDPOINT_URL_S3 when set (the local S3Proxy, LocalStack), with path-style
 * addressing (`http://host:port/<bucket>/<key>`: a local server has no DNS name per bucket). Against such a
 * server it adds checksums only where S3 requires them, as S3Proxy refuses the SDK's default streamed
 * (aws-chunked) checksums; on AWS the SDK's defaults stay.
 */
export function makeS3Client(env: ClientEnv = process.env): S3Client {
  const endpoint = env[AwsEndpointEnvNames.s3];
  const local = isCustomEndpoint(endpoint);
  const fromEnvironment = endpointSettings(env, endpoint);
  return madeOnFirstUse(
    () =>
      new S3Client({
        maxAttempts,
        requestHandler: {
          connectionTimeout: connectionTimeoutMs,
          requestTimeout: s3RequestTimeoutFor(local),
          throwOnRequestTimeout: true,
        },
        ...(local
          ? {
              forcePathStyle: true,
              requestChecksumCalculation: "WHEN_REQUIRED",
              responseChecksumValidation: "WHEN_REQUIRED",
            }
          : {}),
        ...fromEnvironment,
      }),
  );
}
