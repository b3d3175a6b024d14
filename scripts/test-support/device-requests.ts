// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API loaded first.
import "reflect-metadata";
import { KeyObject, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

/**
 * A key pair and a PKCS#10 certificate signing request made as a device's own code makes them (WebCrypto
 * keys, @peculiar/x509), asking for a subject and a DNS name of its own choosing: another tenant's fleet
 * certificate. Beacon must certify the key and take nothing else from the request.
 */
export async function deviceSigningRequest(
  signingAlgorithm:
    | webcrypto.AlgorithmIdentifier
    | webcrypto.EcKeyGenParams
    | webcrypto.RsaHashedKeyGenParams,
) {
  x509.cryptoProvider.set(webcrypto);
  const keys = (await webcrypto.subtle.generateKey(signingAlgorithm as webcrypto.EcKeyGenParams, true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: "CN=intruder,OU=fleet,O=another-tenant",
    keys,
    signingAlgorithm: signingAlgorithm as webcrypto.EcdsaParams,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: "dns", value: "intruder.example" }])],
  });
  return {
    pem: request.toString("pem"),
    der: Buffer.from(request.rawData),
    keys,
    privateKeyPem: KeyObject.from(keys.privateKey).export({ type: "pkcs8", format: "pem" }) as string,
  };
}
