import { CreateSecretCommand } from "@aws-sdk/client-secrets-manager";
import { PutParameterCommand } from "@aws-sdk/client-ssm";
import { afterAll, inject } from "vitest";
import { makeSecretsManagerClient } from "../../runtime/aws-clients/secrets-manager.js";
import { makeSsmClient } from "../../runtime/aws-clients/ssm.js";
import { MemorySecretStore } from "../memory/secret-store.js";
import { AwsSecretStore } from "../secrets/secret-store.js";
import { secretStoreContract } from "./secret-store.contract.js";

/** The local stack's moto, which serves Secrets Manager and SSM as the agent API reads them. */
const backends = inject("beaconEnv");
const secretsManager = makeSecretsManagerClient(backends);
const ssm = makeSsmClient(backends);
afterAll(() => {
  secretsManager.destroy();
  ssm.destroy();
});

secretStoreContract("Secrets Manager and SSM on moto", () => ({
  store: new AwsSecretStore(secretsManager, ssm, 5_000),
  createSecret: async (name, secretString) =>
    (await secretsManager.send(new CreateSecretCommand({ Name: name, SecretString: secretString })))
      .ARN as string,
  putSecureString: async (name, value) => {
    await ssm.send(new PutParameterCommand({ Name: name, Value: value, Type: "SecureString" }));
  },
}));

/** A six-character suffix, as Secrets Manager adds to every secret's ARN. */
const SUFFIX = "-AbCdEf";

secretStoreContract("the memory fake", () => {
  const store = new MemorySecretStore();
  return {
    store,
    createSecret: async (name, secretString) => {
      const arn = `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${name}${SUFFIX}`;
      store.put(arn, secretString);
      return arn;
    },
    putSecureString: async (name, value) => store.put(name, value),
  };
});
