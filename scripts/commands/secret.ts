/**
 * Keeps a secret in the secret store `npm start` runs (moto's Parameter Store, as on AWS a SecureString) and prints
 * the reference a sensitive parameter's value takes: `npm run secret -- --tenant dev --name gateways/kafka-password
 * --value <text>` stores `/beacon/dev/gateways/kafka-password` and prints `ssm:/beacon/dev/gateways/kafka-password`.
 */
import { PutParameterCommand } from "@aws-sdk/client-ssm";
import { isValidIdentifier } from "../../functions/core/identity/credentials.js";
import { tenantSecretReference } from "../../functions/core/parameters/secret-refs.js";
import { makeSsmClient } from "../../functions/runtime/aws-clients/ssm.js";
import { AwsEndpointEnvNames } from "../../functions/shared/env-names.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { localAwsEnv } from "../local/backends.js";
import { localPorts } from "../local/ports.js";

const USAGE = `Usage: npm run secret -- --tenant <tenant> --name <path> --value <text>

Keeps a secret in the local secret store (npm start's Parameter Store) as the SecureString /beacon/<tenant>/<path>,
replacing any it held, and prints its reference for a sensitive parameter's secretRef.
  --tenant  the tenant whose secret it is (its secrets are below /beacon/<tenant>/)
  --name    its path below that, e.g. gateways/kafka-password
  --value   the secret`;

async function main(): Promise<void> {
  const { values } = parseCommandLine(USAGE, {
    options: { tenant: { type: "string" }, name: { type: "string" }, value: { type: "string" } },
  });
  const { tenant, name, value } = values;
  if (tenant === undefined || !isValidIdentifier(tenant)) exitWithUsage(USAGE, "--tenant needs a tenant id");
  if (value === undefined || value === "") exitWithUsage(USAGE, "--value needs the secret");
  const reference = `ssm:/beacon/${tenant}/${name ?? ""}`;
  if (name === undefined || !tenantSecretReference(tenant, reference))
    exitWithUsage(USAGE, "--name needs a Parameter Store path: letters, digits and . _ - / between slashes");
  const ssm = makeSsmClient({
    ...localAwsEnv,
    [AwsEndpointEnvNames.ssm]: `http://127.0.0.1:${localPorts().eventbridge}`,
  });
  try {
    await ssm.send(
      new PutParameterCommand({
        Name: reference.slice("ssm:".length),
        Value: value,
        Type: "SecureString",
        Overwrite: true,
      }),
    );
  } finally {
    ssm.destroy();
  }
  console.log(reference);
}

await main();
