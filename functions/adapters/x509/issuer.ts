/**
 * X.509 issuing for Beacon's agent CA: the console API issues agent certificates with it at run time,
 * the local stack its dev CA and certificates. ECDSA P-256 throughout.
 */
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API loaded first.
import "reflect-metadata";
import { createPrivateKey, KeyObject, randomBytes, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto);

/** ECDSA P-256 with SHA-256: accepted by OkHttp (Java agent) and OpenSSL (C++ agent). */
const KEY_ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
export const DAY_MS = 24 * 60 * 60 * 1000;
const CA_VALIDITY_DAYS = 3650;
/** 825 days is the longest server certificate lifetime Apple platforms accept; also Beacon's longest for agents. */
export const LEAF_VALIDITY_DAYS = 825;
/** Backdating covers clock skew between the machine that issues and the agents that check. */
const BACKDATE_MS = 5 * 60 * 1000;

/** A certificate and its private key, both PEM (the key PKCS#8). */
export interface CertificateAndKey {
  certPem: string;
  keyPem: string;
}

/** A CA's certificate and signing key. */
export type SigningAuthority = CertificateAndKey;

/** Subject attributes, encoded in this order (CN, OU, O) so API Gateway prints "CN=…,OU=…,O=…". */
export interface CertificateSubject {
  commonName: string;
  organizationalUnit?: string;
  organization?: string;
}

export interface IssueOptions {
  subject: CertificateSubject;
  usage: "serverAuth" | "clientAuth";
  dnsNames?: string[];
  ipAddresses?: string[];
  /** At most LEAF_VALIDITY_DAYS, and never past the CA's own expiry. */
  validityDays?: number;
}

export async function createCertificateAuthority(commonName = "Beacon Dev CA"): Promise<SigningAuthority> {
  const keys = await generateKeyPair();
  const notBefore = new Date(Date.now() - BACKDATE_MS);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerialNumber(),
    name: encodeName({ commonName, organization: "Beacon" }),
    notBefore,
    notAfter: new Date(notBefore.getTime() + CA_VALIDITY_DAYS * DAY_MS),
    keys,
    signingAlgorithm: KEY_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: toPem(certificate), keyPem: exportPrivateKey(keys.privateKey) };
}

/** Issues a leaf certificate signed by `ca` (tests use it with a CA of their own to get an unknown issuer). */
export async function issueWithCa(ca: SigningAuthority, options: IssueOptions): Promise<CertificateAndKey> {
  const keys = await generateKeyPair();
  return {
    certPem: await certifyWithCa(ca, keys.publicKey, options),
    keyPem: exportPrivateKey(keys.privateKey),
  };
}

/**
 * A leaf certificate signed by `ca` for a public key held elsewhere (a certificate signing request's):
 * subject, extensions and validity are the options' alone.
 */
export async function certifyWithCa(
  ca: SigningAuthority,
  publicKey: x509.PublicKeyType,
  options: IssueOptions,
): Promise<string> {
  const caCertificate = new x509.X509Certificate(ca.certPem);
  const signingKey = await webcrypto.subtle.importKey(
    "pkcs8",
    createPrivateKey(ca.keyPem).export({ type: "pkcs8", format: "der" }),
    KEY_ALGORITHM,
    false,
    ["sign"],
  );
  const notBefore = new Date(Date.now() - BACKDATE_MS);
  const notAfter = new Date(
    Math.min(
      notBefore.getTime() + Math.min(options.validityDays ?? LEAF_VALIDITY_DAYS, LEAF_VALIDITY_DAYS) * DAY_MS,
      caCertificate.notAfter.getTime(),
    ),
  );
  const alternativeNames = [
    ...(options.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
    ...(options.ipAddresses ?? []).map((value) => ({ type: "ip" as const, value })),
  ];
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: encodeName(options.subject),
    issuer: caCertificate.subjectName,
    notBefore,
    notAfter,
    publicKey,
    signingKey,
    signingAlgorithm: KEY_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage[options.usage]]),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCertificate),
      ...(alternativeNames.length > 0 ? [new x509.SubjectAlternativeNameExtension(alternativeNames)] : []),
    ],
  });
  return toPem(certificate);
}

/** Whether the certificate's subject is exactly this one, encoding included. */
export function hasSubject(certPem: string, subject: CertificateSubject): boolean {
  const encoded = Buffer.from(new x509.X509Certificate(certPem).subjectName.toArrayBuffer());
  return encoded.equals(Buffer.from(encodeName(subject).toArrayBuffer()));
}

/** UTF8String values, as RFC 5280 asks of new certificates, taken verbatim (no DN-string unescaping). */
function encodeName(subject: CertificateSubject): x509.Name {
  const attributes: [string, string | undefined][] = [
    ["CN", subject.commonName],
    ["OU", subject.organizationalUnit],
    ["O", subject.organization],
  ];
  return new x509.Name(
    attributes.flatMap(([type, value]) => (value === undefined ? [] : [{ [type]: [{ utf8String: value }] }])),
  );
}

async function generateKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
}

/** Ends with a newline, like every PEM file that OpenSSL writes (and that bundle concatenation relies on). */
function toPem(certificate: x509.X509Certificate): string {
  return `${certificate.toString("pem")}\n`;
}

/** PKCS#8 PEM ("BEGIN PRIVATE KEY"): the form both OkHttp's PEM loader and OpenSSL read. */
function exportPrivateKey(key: webcrypto.CryptoKey): string {
  return KeyObject.from(key).export({ type: "pkcs8", format: "pem" }) as string;
}

/** A positive 128-bit serial, as CA/Browser Forum rules ask for unpredictable serials. */
function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] as number) & 0x7f;
  return bytes.toString("hex");
}
