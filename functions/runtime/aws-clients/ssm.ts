import { SSMClient } from "@aws-sdk/client-ssm";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import type { ClientEnv } from "./environment.js";
import { madeOnFirstUse, settingsFor } from "./settings.js";

/** SSM client, for Parameter Store's secrets; talks to AWS_ENDPOINT_URL_SSM when set (the local stack's moto). */
export function makeSsmClient(env: ClientEnv = process.env): SSMClient {
  const settings = settingsFor(env, env[AwsEndpointEnvNames.ssm]);
  return madeOnFirstUse(() => new SSMClient(settings()));
}
