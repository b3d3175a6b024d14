import "reflect-metadata";
import { webcrypto, X509Certificate } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { describe, expect, it } from "vitest";
import { authorityKeyIdOf, certificateIdentity, derOf } from "./certificate-identity.js";
import { distinguishedName } from "./distinguished-name.js";

x509.cryptoProvider.set(webcrypto);
const algorithm = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
const keys = await webcrypto.subtle.generateKey(algorithm, false, ["sign", "verify"]);

/** A certificate with this serial (hex, as its DER INTEGER's bytes), signed by `issuer`'s name. */
async function certificate(
  serialNumber: string,
  issuer = "CN=Acme Devices CA, O=Acme",
  extensions: x509.Extension[] = [],
): Promise<string> {
  const signed = await x509.X509CertificateGenerator.create({
    extensions,
    serialNumber,
    subject: "CN=pump-7, OU=agent, O=acme",
    issuer,
    notBefore: new Date("2026-01-01T00:00:00Z"),
    notAfter: new Date("2027-01-01T00:00:00Z"),
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    signingAlgorithm: algorithm,
  });
  return signed.toString("pem");
}

/** What reading the whole certificate says. */
function wholeReading(pem: string) {
  const certificate = new X509Certificate(pem);
  return { serialNumber: certificate.serialNumber, issuerDN: distinguishedName(certificate.issuer) };
}

describe("a client certificate's serial and issuer", () => {
  it.each([
    ["a one-byte serial", "01"],
    ["a serial with its high bit set", "0080"],
    ["a serial with leading zero bytes", "00000a1b"],
    ["a 128-bit serial", "7a3f9c0e5d1b2a4c6e8f0a1b2c3d4e5f"],
    ["a 20-byte serial", "00c4e2a1b3d5f7092b4d6f8a0c1e3f5a7b9d0e2f"],
    ["a negative serial", "ff"],
    ["a zero serial", "00"],
  ])("are what reading the whole certificate says, for %s", async (_label, serial) => {
    const pem = await certificate(serial);
    expect(certificateIdentity(pem)).toEqual(wholeReading(pem));
  });

  it("are each certificate's own, whichever issuers were read before", async () => {
    const issuers = [
      "CN=Acme Devices CA, O=Acme",
      "CN=Umbrella CA + OU=Edge, O=Umbrella",
      "CN=Beacon Agent CA",
    ];
    for (const round of [1, 2])
      for (const [index, issuer] of issuers.entries()) {
        const pem = await certificate(`0${round}${index}`, issuer);
        expect(certificateIdentity(pem)).toEqual(wholeReading(pem));
      }
  });

  it.each([
    ["text", "edge-gw-0001"],
    [
      "a truncated certificate",
      "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUJ3\n-----END CERTIFICATE-----\n",
    ],
    ["base64 that is no certificate", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"],
  ])("are unknown for %s", (_label, pem) => {
    expect(certificateIdentity(pem)).toBeUndefined();
  });
});

describe("a client certificate's authority key identifier", () => {
  const keyIdOf = async (extensions: x509.Extension[]) =>
    authorityKeyIdOf(derOf(await certificate("0a1b", undefined, extensions)) as Buffer);

  it.each([
    ["alone", false, "0f1e2d3c4b5a69788796a5b4c3d2e1f001020304"],
    ["marked critical", true, "a1b2c3d4"],
  ])(
    "is the key id the extension states, %s, as a whole reading of it says",
    async (_label, critical, keyId) => {
      const pem = await certificate("0a1b", undefined, [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.AuthorityKeyIdentifierExtension(keyId, critical),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ]);
      const whole = new x509.X509Certificate(pem).getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
      expect(whole).toBe(keyId);
      expect(authorityKeyIdOf(derOf(pem) as Buffer)).toBe(keyId);
    },
  );

  it("is unknown for a certificate that states none, or only other extensions", async () => {
    expect(await keyIdOf([])).toBeUndefined();
    expect(await keyIdOf([new x509.BasicConstraintsExtension(false, undefined, true)])).toBeUndefined();
    expect(authorityKeyIdOf(Buffer.from("not a certificate"))).toBeUndefined();
  });
});
