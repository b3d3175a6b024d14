import { CreateSecretCommand } from "@aws-sdk/client-secrets-manager";
import { makeSecretsManagerClient } from "../../functions/runtime/aws-clients/secrets-manager.js";

/**
 * Creates a secret of the tenant's in Secrets Manager (moto, locally), where Beacon reads them: `beacon/<tenant>/<name>`,
 * holding `fields` as JSON. Returns its ARN, which a secret reference names.
 */
export async function createTenantSecret(
  env: Record<string, string | undefined>,
  tenant: string,
  name: string,
  fields: Record<string, string>,
): Promise<string> {
  const secretsManager = makeSecretsManagerClient(env);
  try {
    const secret = await secretsManager.send(
      new CreateSecretCommand({ Name: `beacon/${tenant}/${name}`, SecretString: JSON.stringify(fields) }),
    );
    return secret.ARN as string;
  } finally {
    secretsManager.destroy();
  }
}
