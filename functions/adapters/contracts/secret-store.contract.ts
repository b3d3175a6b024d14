import { expect, it } from "vitest";
import type { SecretStore } from "../../core/parameters/ports.js";
import { parseSecretReference, type SecretReference } from "../../core/parameters/secret-refs.js";
import { contract } from "./contract.js";

/** A secret store, and how a case keeps secrets in it as an operator would, outside Beacon. */
export interface SecretStoreUnderTest {
  store: SecretStore;
  /** Creates a Secrets Manager secret by name: its ARN. */
  createSecret(name: string, secretString: string): Promise<string>;
  /** Puts an SSM SecureString parameter. */
  putSecureString(name: string, value: string): Promise<void>;
}

const reference = (text: string): SecretReference => {
  const parsed = parseSecretReference(text);
  if (!parsed) throw new Error(`${text} is no reference`);
  return parsed;
};

/** Secrets read by reference: a SecretString whole or one JSON key of it, an SSM SecureString decrypted. */
export const secretStoreContract = contract<SecretStoreUnderTest>("the secret store", (the) => {
  it("reads a Secrets Manager secret's SecretString whole, or one key of the JSON object it holds", async () => {
    const { store, createSecret } = the.subject;
    const plain = await createSecret(`beacon/${the.tenant}/plain`, "s3cret!");
    const json = await createSecret(
      `beacon/${the.tenant}/json`,
      JSON.stringify({ password: "pw", port: 9092 }),
    );
    expect(await store.read(reference(plain))).toBe("s3cret!");
    expect(await store.read(reference(`${json}:SecretString:password`))).toBe("pw");
    expect(await store.read(reference(`${json}:SecretString:port`))).toBe("9092");
    expect(await store.read(reference(`${json}:SecretString:absent`))).toBeUndefined();
    expect(await store.read(reference(`${plain}:SecretString:password`))).toBeUndefined();
  });

  it("reads an SSM SecureString decrypted", async () => {
    const { store, putSecureString } = the.subject;
    await putSecureString(`/beacon/${the.tenant}/kafka/password`, "hunter2");
    expect(await store.read(reference(`ssm:/beacon/${the.tenant}/kafka/password`))).toBe("hunter2");
  });

  it("finds no secret nor parameter that was never kept", async () => {
    const { store, createSecret } = the.subject;
    const kept = await createSecret(`beacon/${the.tenant}/kept`, "x");
    expect(await store.read(reference(kept.replace("/kept-", "/never-")))).toBeUndefined();
    expect(await store.read(reference(`ssm:/beacon/${the.tenant}/never`))).toBeUndefined();
  });
});
