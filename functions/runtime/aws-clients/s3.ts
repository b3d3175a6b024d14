import { S3Client } from "@aws-sdk/client-s3";
import { connectionTimeoutMs, emulatorRequestTimeoutMs } from "../../adapters/aws/call-timeouts.js";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import { type ClientEnv, isCustomEndpoint, maxAttempts } from "./environment.js";
import { endpointSettings, madeOnFirstUse } from "./settings.js";

/** Assets of up to 4 MiB go up and down in one request, a few seconds at worst from a function's subnet. */
const s3RequestTimeoutMs = 10_000;

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
          // The larger of the two: an emulator's pauses come on top of moving the bytes.
          requestTimeout: local ? emulatorRequestTimeoutMs : s3RequestTimeoutMs,
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
