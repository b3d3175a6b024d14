import "reflect-metadata";
import { KeyObject, sign, verify, X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import * as x509 from "@peculiar/x509";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { deviceSigningRequest } from "../../../scripts/test-support/device-requests.js";
import {
  LocalFileCertificateAuthority,
  SECRET_MAX_AGE_MS,
  SecretsManagerCertificateAuthority,
} from "./certificate-authority.js";
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

  it("reads the secret again once it is five minutes old, so a rotated CA signs from then on", async () => {
    const [first, second] = [
      await createCertificateAuthority("Beacon Agent CA"),
      await createCertificateAuthority("Beacon Agent CA 2"),
    ];
    const value = (ca: typeof first) =>
      JSON.stringify({ certificatePem: ca.certPem, privateKeyPem: ca.keyPem });
    secrets
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: value(first) })
      .resolves({ SecretString: value(second) });
    let now = 0;
    const authority = new SecretsManagerCertificateAuthority(
      new SecretsManagerClient({}),
      "arn:agent-ca",
      () => now,
    );
    const issuerOf = async () =>
      new X509Certificate((await authority.issueClientCertificate(subject, 30)).certificatePem).issuer;
    expect(await issuerOf()).toBe("CN=Beacon Agent CA\nO=Beacon");
    now = SECRET_MAX_AGE_MS - 1;
    expect(await issuerOf()).toBe("CN=Beacon Agent CA\nO=Beacon");
    now = SECRET_MAX_AGE_MS;
    expect(await issuerOf()).toBe("CN=Beacon Agent CA 2\nO=Beacon");
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it("knows the CAs the ingress trusts where the deployment tells them, and not otherwise", async () => {
    const trusted = new Set(["AB:CD"]);
    const told = new SecretsManagerCertificateAuthority(
      new SecretsManagerClient({}),
      "arn:agent-ca",
      Date.now,
      trusted,
    );
    expect(await told.trustedSigners()).toBe(trusted);
    const untold = new SecretsManagerCertificateAuthority(new SecretsManagerClient({}), "arn:agent-ca");
    expect(await untold.trustedSigners()).toBeUndefined();
  });

  it("reports a secret that holds no CA as the CA being unavailable", async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: "generated-placeholder" });
    const authority = new SecretsManagerCertificateAuthority(new SecretsManagerClient({}), "arn:agent-ca");
    await expect(authority.issueClientCertificate(subject, 30)).rejects.toMatchObject({
      code: "certificate_authority_unavailable",
    });
  });
});

describe("certificate signing requests", () => {
  const algorithms = {
    "EC P-256": { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" },
    "EC P-384": { name: "ECDSA", namedCurve: "P-384", hash: "SHA-384" },
    "EC P-521": { name: "ECDSA", namedCurve: "P-521", hash: "SHA-512" },
    "RSA 2048": rsa(2048),
    "RSA 1024": rsa(1024),
    Ed25519: { name: "Ed25519" },
  };
  let directory: string;
  let authority: LocalFileCertificateAuthority;
  let caPem: string;

  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), "beacon-ca-"));
    const ca = await createCertificateAuthority("Beacon Agent CA");
    writeFileSync(path.join(directory, "ca.pem"), ca.certPem);
    writeFileSync(path.join(directory, "ca.key"), ca.keyPem);
    caPem = ca.certPem;
    authority = new LocalFileCertificateAuthority(directory);
  });

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const deviceRequest = (algorithm: keyof typeof algorithms) => deviceSigningRequest(algorithms[algorithm]);

  it.each([
    ["EC P-256", { algorithm: "ec", namedCurve: "prime256v1" }],
    ["EC P-384", { algorithm: "ec", namedCurve: "secp384r1" }],
    ["EC P-521", { algorithm: "ec", namedCurve: "secp521r1" }],
    ["RSA 2048", { algorithm: "rsa", modulusBits: 2048 }],
    ["RSA 1024", { algorithm: "rsa", modulusBits: 1024 }],
    ["Ed25519", { algorithm: "ed25519" }],
  ] as const)("reads the key of a %s request and checks its signature", async (algorithm, publicKey) => {
    const { pem } = await deviceRequest(algorithm);
    expect(await authority.readSigningRequest(pem)).toEqual({
      pem: pem.trim(),
      publicKey,
      signatureValid: true,
    });
  });

  it("finds a request whose signature does not verify", async () => {
    const { der } = await deviceRequest("EC P-256");
    der[der.length - 3] = (der[der.length - 3] as number) ^ 1;
    const forged = new x509.Pkcs10CertificateRequest(der).toString("pem");
    expect((await authority.readSigningRequest(forged)).signatureValid).toBe(false);
  });

  it.each([
    ["a certificate", () => caPem],
    [
      "two requests",
      async () => `${(await deviceRequest("EC P-256")).pem}\n${(await deviceRequest("EC P-256")).pem}`,
    ],
    [
      "base64 that is no request",
      async () => "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----",
    ],
    ["text", async () => "edge-gw-0001"],
  ])("refuses %s as invalid_csr", async (_label, make) => {
    await expect(authority.readSigningRequest(await make())).rejects.toMatchObject({ code: "invalid_csr" });
  });

  it.each(["EC P-256", "RSA 2048"] as const)(
    "certifies a %s request's key under the subject Beacon gives it, and nothing else of the request",
    async (algorithm) => {
      const { pem, keys } = await deviceRequest(algorithm);
      const signed = await authority.signClientCertificate(
        await authority.readSigningRequest(pem),
        subject,
        30,
      );
      expect(signed).not.toHaveProperty("privateKeyPem");
      const certificate = new X509Certificate(signed.certificatePem);
      expect(certificate.verify(new X509Certificate(caPem).publicKey)).toBe(true);
      expect(signed).toMatchObject({ subjectDN: "CN=pump-7,OU=agent,O=acme", caCertificatePem: caPem });
      expect(certificate.subjectAltName).toBeUndefined();
      const spki = (key: KeyObject) => key.export({ type: "spki", format: "der" });
      expect(spki(certificate.publicKey)).toEqual(spki(KeyObject.from(keys.publicKey)));
      // The device's own key completes the pair: it signs what the certificate's key verifies.
      const challenge = Buffer.from("handshake");
      const signature = sign(null, challenge, KeyObject.from(keys.privateKey));
      expect(verify(null, challenge, certificate.publicKey, signature)).toBe(true);
    },
  );
});

describe("LocalFileCertificateAuthority's trust", () => {
  it("names the CA that signed what it issues, and trusts the dev CA's generations its folder holds, as the gateway does", async () => {
    const directory = mkdtempSync(path.join(tmpdir(), "beacon-ca-"));
    try {
      const [first, second] = [await createCertificateAuthority(), await createCertificateAuthority()];
      const fingerprintOf = (pem: string) => new X509Certificate(pem).fingerprint256;
      const write = (file: string, content: string) => writeFileSync(path.join(directory, file), content);
      write("ca.pem", first.certPem);
      write("ca.key", first.keyPem);
      const authority = new LocalFileCertificateAuthority(directory);
      const issued = await authority.issueClientCertificate(subject, 30);
      expect(issued.signedBy).toBe(fingerprintOf(first.certPem));
      expect(await authority.trustedSigners()).toEqual(new Set([fingerprintOf(first.certPem)]));
      // Rotated: the second issues, the first is the previous one; retired: only the second is left.
      write("ca.pem", second.certPem);
      write("ca.key", second.keyPem);
      write("ca-previous.pem", first.certPem);
      expect(await authority.trustedSigners()).toEqual(
        new Set([fingerprintOf(first.certPem), fingerprintOf(second.certPem)]),
      );
      rmSync(path.join(directory, "ca-previous.pem"));
      expect(await authority.trustedSigners()).toEqual(new Set([fingerprintOf(second.certPem)]));
      expect((await authority.issueClientCertificate(subject, 30)).signedBy).toBe(
        fingerprintOf(second.certPem),
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

function rsa(modulusLength: number) {
  return {
    name: "RSASSA-PKCS1-v1_5",
    hash: "SHA-256",
    publicExponent: new Uint8Array([1, 0, 1]),
    modulusLength,
  };
}
