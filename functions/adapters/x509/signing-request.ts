// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API loaded first.
import "reflect-metadata";
import { createPublicKey } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { BeaconError } from "../../core/errors.js";
import type { SigningRequest } from "../../core/identity/ports.js";

/** One PEM block labelled as OpenSSL (`CERTIFICATE REQUEST`) or older tools (`NEW CERTIFICATE REQUEST`) write it. */
const CSR_PEM =
  /^-----BEGIN (NEW )?CERTIFICATE REQUEST-----\r?\n[A-Za-z0-9+/=\r\n]+-----END (NEW )?CERTIFICATE REQUEST-----$/;

/** Reads a PEM PKCS#10 request: its public key, and whether the request is signed with that key's private key. */
export async function readSigningRequest(pem: string): Promise<SigningRequest> {
  const trimmed = pem.trim();
  let request: x509.Pkcs10CertificateRequest;
  try {
    if (!CSR_PEM.test(trimmed)) throw new Error("not one PEM certificate request block");
    request = new x509.Pkcs10CertificateRequest(trimmed);
  } catch {
    throw new BeaconError(
      "invalid_csr",
      "csrPem is not a PEM PKCS#10 certificate signing request (-----BEGIN CERTIFICATE REQUEST-----)",
    );
  }
  const key = createPublicKey({ key: Buffer.from(request.publicKey.rawData), format: "der", type: "spki" });
  const details = key.asymmetricKeyDetails ?? {};
  return {
    pem: trimmed,
    publicKey: {
      algorithm: key.asymmetricKeyType ?? "unknown",
      ...(details.modulusLength === undefined ? {} : { modulusBits: details.modulusLength }),
      ...(details.namedCurve === undefined ? {} : { namedCurve: details.namedCurve }),
    },
    signatureValid: await request.verify().catch(() => false),
  };
}

/** The request's public key, for the certificate: re-read from the PEM, which is all the port carries. */
export function publicKeyOf(request: SigningRequest): x509.PublicKey {
  return new x509.Pkcs10CertificateRequest(request.pem).publicKey;
}
