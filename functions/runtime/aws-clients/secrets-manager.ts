import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import type { ClientEnv } from "./environment.js";
import { madeOnFirstUse, settingsFor } from "./settings.js";

/**
 * Secrets Manager client, for the console's agent CA and the secrets of sensitive parameters; talks to
 * AWS_ENDPOINT_URL_SECRETS_MANAGER when set (the local stack's moto server).
 */
export function makeSecretsManagerClient(env: ClientEnv = process.env): SecretsManagerClient {
  const settings = settingsFor(env, env[AwsEndpointEnvNames.secretsManager]);
  return madeOnFirstUse(() => new SecretsManagerClient(settings()));
}
