import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { BeaconError } from "../../core/errors.js";
import { distinguishedName } from "../../core/identity/distinguished-name.js";
import type {
  CertificateAuthority,
  CertificateFacts,
  CertificateSubject,
  IssuedCertificate,
  SignedCertificate,
  SigningRequest,
} from "../../core/identity/ports.js";
import type { SigningAuthority } from "./issuer.js";
import { trustedSignersIn } from "./trusted-signers.js";

/**
 * The X.509 library (with the metadata and ASN.1 schemas it sets up as it loads) is loaded by the first request
 * that issues a certificate or reads a signing request, not when a function starts: few requests do either.
 */
const issuer = () => import("./issuer.js");
const signingRequests = () => import("./signing-request.js");

/** Issues client certificates with whatever signing authority `load` produces. */
abstract class IssuingAuthority implements CertificateAuthority {
  protected abstract load(): Promise<SigningAuthority>;
  abstract trustedSigners(): Promise<ReadonlySet<string> | undefined>;

  async issueClientCertificate(
    subject: CertificateSubject,
    validityDays: number,
  ): Promise<IssuedCertificate> {
    const ca = await this.load();
    const { issueWithCa } = await issuer();
    const issued = await issueWithCa(ca, { subject, usage: "clientAuth", validityDays });
    return { ...signed(issued.certPem, ca), privateKeyPem: issued.keyPem };
  }

  async readSigningRequest(pem: string): Promise<SigningRequest> {
    const { readSigningRequest } = await signingRequests();
    return readSigningRequest(pem);
  }

  async signClientCertificate(
    request: SigningRequest,
    subject: CertificateSubject,
    validityDays: number,
  ): Promise<SignedCertificate> {
    const ca = await this.load();
    const [{ certifyWithCa }, { publicKeyOf }] = await Promise.all([issuer(), signingRequests()]);
    const certPem = await certifyWithCa(ca, publicKeyOf(request), {
      subject,
      usage: "clientAuth",
      validityDays,
    });
    return signed(certPem, ca);
  }
}

const signed = (certificatePem: string, ca: SigningAuthority): SignedCertificate => ({
  ...certificateFacts(certificatePem, [ca.certPem]),
  certificatePem,
  caCertificatePem: ca.certPem,
});

/**
 * Serial, subject and validity as the certificate (PEM) states them, the subject as API Gateway prints it, and
 * which of `caPems` signed it, by its fingerprint, when one did.
 */
export function certificateFacts(certificatePem: string, caPems: string[] = []): CertificateFacts {
  const certificate = new X509Certificate(certificatePem);
  const signer = caPems
    .map((pem) => new X509Certificate(pem))
    .find((ca) => certificate.checkIssued(ca) && certificate.verify(ca.publicKey));
  return {
    serialNumber: certificate.serialNumber,
    signedBy: signer?.fingerprint256,
    subjectDN: distinguishedName(certificate.subject),
    notBefore: Date.parse(certificate.validFrom),
    notAfter: Date.parse(certificate.validTo),
  };
}

/** The local stack's dev CA (`ca.pem`, `ca.key` in a folder), the same one its gateway trusts. */
export class LocalFileCertificateAuthority extends IssuingAuthority {
  constructor(private readonly directory: string) {
    super();
  }

  trustedSigners(): Promise<ReadonlySet<string>> {
    return trustedSignersIn(this.directory);
  }

  // Read per issue: the local stack renews its dev CA in place when it nears expiry, and rotates it.
  protected async load(): Promise<SigningAuthority> {
    let authority: SigningAuthority;
    try {
      const [certPem, keyPem] = await Promise.all([
        readFile(join(this.directory, "ca.pem"), "utf8"),
        readFile(join(this.directory, "ca.key"), "utf8"),
      ]);
      authority = { certPem, keyPem };
    } catch (error) {
      throw new BeaconError(
        "certificate_authority_unavailable",
        `The agent CA in ${this.directory} cannot be read: ${(error as Error).message}`,
      );
    }
    // A rotation replaces the two files one after the other: never sign with one CA's key in another's name.
    if (!new X509Certificate(authority.certPem).checkPrivateKey(createPrivateKey(authority.keyPem))) {
      throw new BeaconError(
        "certificate_authority_unavailable",
        `The agent CA in ${this.directory} is being rotated: its certificate and key do not match yet`,
      );
    }
    return authority;
  }
}

/** How long a container signs with the CA it read before reading the secret again: a rotation's delay. */
export const SECRET_MAX_AGE_MS = 5 * 60_000;

/**
 * The agent CA on AWS: a Secrets Manager secret whose value is `{"certificatePem": …, "privateKeyPem": …}`,
 * read at a container's first issue and again once it is SECRET_MAX_AGE_MS old, so that a CA rotation (a new
 * value in the secret) reaches every container within that time. A secret not (yet) holding a CA is
 * reported, not kept.
 */
export class SecretsManagerCertificateAuthority extends IssuingAuthority {
  private authority: { value: SigningAuthority; readAt: number } | undefined;

  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretId: string,
    private readonly now: () => number = Date.now,
    private readonly trusted?: ReadonlySet<string>,
  ) {
    super();
  }

  /** The fingerprints of the CDK app's CA bundle, where the deployment passes them; not known otherwise. */
  async trustedSigners(): Promise<ReadonlySet<string> | undefined> {
    return this.trusted;
  }

  protected async load(): Promise<SigningAuthority> {
    if (this.authority && this.now() - this.authority.readAt < SECRET_MAX_AGE_MS) return this.authority.value;
    const readAt = this.now();
    const { SecretString } = await this.client.send(new GetSecretValueCommand({ SecretId: this.secretId }));
    let value: { certificatePem?: unknown; privateKeyPem?: unknown } = {};
    try {
      value = JSON.parse(SecretString ?? "");
    } catch {
      // Reported below, like any other value that is not a CA.
    }
    if (typeof value.certificatePem !== "string" || typeof value.privateKeyPem !== "string") {
      throw new BeaconError(
        "certificate_authority_unavailable",
        "The agent CA secret does not hold {certificatePem, privateKeyPem}; see docs/deploying.md",
      );
    }
    this.authority = { value: { certPem: value.certificatePem, keyPem: value.privateKeyPem }, readAt };
    return this.authority.value;
  }
}
