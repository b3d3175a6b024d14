import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import { GetParameterCommand, ParameterNotFound, type SSMClient } from "@aws-sdk/client-ssm";
import type { SecretStore } from "../../core/parameters/ports.js";
import { jsonKeyOf, type SecretReference } from "../../core/parameters/secret-refs.js";

/**
 * Secrets read where they are kept: a Secrets Manager secret's current SecretString (or one key of it), an SSM
 * parameter's value, a SecureString decrypted. Each read is given up after `timeoutMs`, retries included, so a
 * store that hangs fails the download in time for the agent's request.
 */
export class AwsSecretStore implements SecretStore {
  constructor(
    private readonly secretsManager: SecretsManagerClient,
    private readonly ssm: SSMClient,
    private readonly timeoutMs: number,
  ) {}

  read(reference: SecretReference): Promise<string | undefined> {
    const abortSignal = AbortSignal.timeout(this.timeoutMs);
    return reference.store === "ssm"
      ? this.parameter(reference.parameterName, abortSignal)
      : this.secret(reference.secretArn, reference.jsonKey, abortSignal);
  }

  private async secret(secretArn: string, jsonKey: string | undefined, abortSignal: AbortSignal) {
    try {
      const { SecretString } = await this.secretsManager.send(
        new GetSecretValueCommand({ SecretId: secretArn }),
        { abortSignal },
      );
      if (SecretString === undefined) return undefined;
      return jsonKey === undefined ? SecretString : jsonKeyOf(SecretString, jsonKey);
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  }

  private async parameter(name: string, abortSignal: AbortSignal) {
    try {
      const { Parameter } = await this.ssm.send(
        new GetParameterCommand({ Name: name, WithDecryption: true }),
        {
          abortSignal,
        },
      );
      return Parameter?.Value;
    } catch (error) {
      if (error instanceof ParameterNotFound) return undefined;
      throw error;
    }
  }
}
