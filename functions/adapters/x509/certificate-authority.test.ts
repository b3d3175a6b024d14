import { X509Certificate } from "node:crypto";
import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, describe, expect, it } from "vitest";
import { SecretsManagerCertificateAuthority } from "./certificate-authority.js";
import { createCertificateAuthority } from "./issuer.js";

const secrets = mockClient(SecretsManagerClient);
const subject = { commonName: "pump-7", organizationalUnit: "agent", organization: "acme" } as const;

afterEach(() => secrets.reset());

describe("SecretsManagerCertificateAuthority", () => {
  it("issues client certificates signed by the CA in the secret, reading the secret once", async () => {
    const ca = await createCertificateAuthority("Beacon Agent CA");
    secrets
      .on(GetSecretValueCommand, { SecretId: "arn:agent-ca" })
      .resolves({ SecretString: JSON.stringify({ certificatePem: ca.certPem, privateKeyPem: ca.keyPem }) });
    const authority = new SecretsManagerCertificateAuthority(new SecretsManagerClient({}), "arn:agent-ca");
    const first = await authority.issueClientCertificate(subject, 30);
    await authority.issueClientCertificate(subject, 30);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);

    const certificate = new X509Certificate(first.certificatePem);
    expect(certificate.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(first).toMatchObject({
      caCertificatePem: ca.certPem,
      serialNumber: certificate.serialNumber,
      subjectDN: "CN=pump-7,OU=agent,O=acme",
    });
    expect(first.notAfter - first.notBefore).toBeLessThanOrEqual(30 * 86_400_000 + 5 * 60_000);
    expect(first.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it("reports a secret that holds no CA as the CA being unavailable", async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: "generated-placeholder" });
    const authority = new SecretsManagerCertificateAuthority(new SecretsManagerClient({}), "arn:agent-ca");
    await expect(authority.issueClientCertificate(subject, 30)).rejects.toMatchObject({
      code: "certificate_authority_unavailable",
    });
  });
});
