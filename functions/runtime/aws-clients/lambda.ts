import { LambdaClient } from "@aws-sdk/client-lambda";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { connectionTimeoutMs } from "../../adapters/aws/call-timeouts.js";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import type { ClientEnv } from "./environment.js";
import { endpointSettings, madeOnFirstUse } from "./settings.js";

/**
 * Lambda client, for the console to invoke the function that posts webhook tests; talks to
 * AWS_ENDPOINT_URL_LAMBDA when set (the local stack's Invoke endpoint). One attempt, given up after
 * `requestTimeoutMs`: an invocation timed out may have posted the test already, and a second would post it again.
 */
export function makeLambdaClient(requestTimeoutMs: number, env: ClientEnv = process.env): LambdaClient {
  const fromEnvironment = endpointSettings(env, env[AwsEndpointEnvNames.lambda]);
  return madeOnFirstUse(
    () =>
      new LambdaClient({
        maxAttempts: 1,
        requestHandler: new NodeHttpHandler({
          connectionTimeout: connectionTimeoutMs,
          requestTimeout: requestTimeoutMs,
          throwOnRequestTimeout: true,
        }),
        ...fromEnvironment,
      }),
  );
}
