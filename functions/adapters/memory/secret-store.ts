import type { SecretStore } from "../../core/parameters/ports.js";
import { jsonKeyOf, type SecretReference } from "../../core/parameters/secret-refs.js";

/**
 * Secrets held in memory, by Secrets Manager ARN or SSM parameter name, read as the AWS store reads them: a
 * JSON key of a secret holding a JSON object. `reads` counts the reads that reached it.
 */
export class MemorySecretStore implements SecretStore {
  private readonly secrets = new Map<string, string>();
  reads = 0;

  /** Keeps a secret under its ARN (`arn:aws:secretsmanager:…`) or its SSM name (`/beacon/…`). */
  put(id: string, value: string): void {
    this.secrets.set(id, value);
  }

  async read(reference: SecretReference): Promise<string | undefined> {
    this.reads += 1;
    if (reference.store === "ssm") return this.secrets.get(reference.parameterName);
    const secret = this.secrets.get(reference.secretArn);
    if (secret === undefined || reference.jsonKey === undefined) return secret;
    return jsonKeyOf(secret, reference.jsonKey);
  }
}
