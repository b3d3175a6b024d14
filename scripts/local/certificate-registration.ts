/**
 * Certificates the dev CA signed outside the console API (`npm start`'s dev certificates, `npm run cert`'s)
 * recorded in the local stack's certificate store exactly as console issuance records its own: the console
 * lists, shows and revokes them, and the agent API refuses them once revoked.
 */
import { readFile, stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoCertificateStore } from "../../functions/adapters/dynamodb/certificate-store.js";
import { certificateFacts } from "../../functions/adapters/x509/certificate-authority.js";
import { certificateRecord } from "../../functions/core/identity/certificates.js";
import { makeDynamoDbClient } from "../../functions/runtime/aws-clients/dynamodb.js";
import type { ClientEnv } from "../../functions/runtime/aws-clients/environment.js";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { LocalStackNames, localAwsEnv } from "./backends.js";
import { caGenerations, clientCertificatesIn } from "./certs.js";
import { localPorts } from "./ports.js";

/** Who the records name as the issuer, with the certificate's file: no token asked for these. */
const DEV_CA_ISSUER = "beacon:dev-ca";

export interface RegisteredCertificate {
  certPath: string;
  tenant: string;
  serial: string;
  /** False when the store had it already: that record stays as it is, its revocation included. */
  added: boolean;
}

/** Records the certificates (PEM files) in the store of the stack `env` names; one it has already stays as it is. */
export async function registerCertificates(
  env: ClientEnv,
  certPaths: string[],
): Promise<RegisteredCertificate[]> {
  const client = makeDynamoDbClient(env);
  const store = new DynamoCertificateStore(
    DynamoDBDocumentClient.from(client),
    env[EnvNames.tableName] as string,
  );
  try {
    return await Promise.all(
      certPaths.map(async (certPath) => {
        const [certPem, file, cas] = await Promise.all([
          readFile(certPath, "utf8"),
          stat(certPath),
          caGenerations(dirname(certPath)),
        ]);
        // Which of the dev CA's generations signed it: once that one is retired, the console says so.
        const caPems = cas.map(({ certificate }) => certificate.toString());
        // Written once, when it was issued: the certificate's own notBefore is backdated for clock skew.
        const issuedAt = Math.floor(file.mtimeMs);
        const record = certificateRecord(
          certificateFacts(certPem, caPems),
          issuedAt,
          `${DEV_CA_ISSUER}:${basename(certPath)}`,
        );
        return { certPath, tenant: record.tenant, serial: record.serial, added: await store.add(record) };
      }),
    );
  } finally {
    client.destroy();
  }
}

/**
 * `npm start`: every client certificate in its certs folder that the dev CA signed, at every start, as
 * DynamoDB Local forgets them when it runs in memory.
 */
export async function registerDevCertificates(
  certsDir: string,
  env: ClientEnv,
  log: (line: string) => void,
): Promise<RegisteredCertificate[]> {
  const registered = await registerCertificates(env, await clientCertificatesIn(certsDir));
  const added = registered.filter((certificate) => certificate.added).length;
  log(
    `certificates: the dev CA's ${registered.length} client certificates are in the certificate store ` +
      `(${added} new): the console API lists and revokes them`,
  );
  return registered;
}

/**
 * `npm run cert`: the certificate it made, at once when the local stack answers, or else at the next
 * `npm start`. Returns what became of it, for the user.
 */
export async function registerNewCertificate(
  certPath: string,
  env: ClientEnv = localStackEnv(),
): Promise<string> {
  try {
    const [registered] = await registerCertificates(env, [certPath]);
    const { serial, tenant, added } = registered as RegisteredCertificate;
    return (
      `registered:  serial ${serial} of tenant ${tenant} ${added ? "is now" : "was already"} in the ` +
      `local stack's certificate store (GET /api/v1/certificates/${serial})`
    );
  } catch (error) {
    const cause = error instanceof Error ? error.message || error.name : String(error);
    return (
      `registered:  not yet, the local stack's DynamoDB at ${env[AwsEndpointEnvNames.dynamodb]} does not ` +
      `answer (${cause}); the next npm start registers it`
    );
  }
}

/** The local stack's DynamoDB and table as `npm start` runs them, from the same environment variables. */
export function localStackEnv(env: ClientEnv = process.env): ClientEnv {
  return {
    ...localAwsEnv,
    [AwsEndpointEnvNames.dynamodb]:
      env[AwsEndpointEnvNames.dynamodb] || `http://127.0.0.1:${localPorts(env).dynamodb}`,
    [EnvNames.tableName]: LocalStackNames.tableName,
  };
}
