import { BeaconError } from "../../core/errors.js";
import type {
  CertificateAuthority,
  CertificateSubject,
  IssuedCertificate,
  SignedCertificate,
  SigningRequest,
} from "../../core/identity/ports.js";

/**
 * Issues recognisable placeholder PEMs with serials 0A, 0B, … (as a certificate would spell them). Its
 * certificate signing requests are placeholders too: `csr <algorithm> <bits or curve>`, and a trailing
 * `forged` for one whose signature does not verify; anything else is no request.
 */
export class FakeCertificateAuthority implements CertificateAuthority {
  private next = 10;
  /** The CA it signs with, by the fingerprint its certificates name. */
  signer = "fake-ca-1";
  /** The CAs the agent ingress trusts; undefined: not told. */
  trusted: Set<string> | undefined = new Set([this.signer]);

  async trustedSigners(): Promise<ReadonlySet<string> | undefined> {
    return this.trusted;
  }

  async issueClientCertificate(
    subject: CertificateSubject,
    validityDays: number,
  ): Promise<IssuedCertificate> {
    const signed = this.sign(subject, validityDays);
    return { ...signed, privateKeyPem: `private key ${signed.serialNumber}` };
  }

  async readSigningRequest(pem: string): Promise<SigningRequest> {
    const [label, algorithm, size, forged] = pem.split(" ");
    if (label !== "csr" || algorithm === undefined || size === undefined)
      throw new BeaconError("invalid_csr", "not a placeholder certificate signing request");
    const publicKey =
      algorithm === "rsa" ? { algorithm, modulusBits: Number(size) } : { algorithm, namedCurve: size };
    return { pem, publicKey, signatureValid: forged !== "forged" };
  }

  async signClientCertificate(
    _request: SigningRequest,
    subject: CertificateSubject,
    validityDays: number,
  ): Promise<SignedCertificate> {
    return this.sign(subject, validityDays);
  }

  private sign(subject: CertificateSubject, validityDays: number): SignedCertificate {
    const serialNumber = (this.next++).toString(16).toUpperCase().padStart(2, "0");
    const notBefore = Date.UTC(2026, 10, 21);
    return {
      certificatePem: `certificate ${serialNumber}`,
      caCertificatePem: "ca certificate",
      serialNumber,
      signedBy: this.signer,
      subjectDN: `CN=${subject.commonName},OU=${subject.organizationalUnit},O=${subject.organization}`,
      notBefore,
      notAfter: notBefore + validityDays * 86_400_000,
    };
  }
}
