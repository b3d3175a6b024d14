import { X509Certificate } from "node:crypto";
import { RecentlyUsed } from "../recently-used.js";
import { distinguishedName } from "./distinguished-name.js";

export interface CertificateIdentity {
  /** In hex as Node prints it: upper case, two digits a byte, no leading zero bytes. */
  serialNumber: string;
  /** As Beacon spells names (distinguished-name.ts). */
  issuerDN: string;
}

/** Distinct issuers a container spells, by their DER: the few CAs its agents' certificates come from. */
const ISSUERS_KEPT = 100;
const issuerNames = new RecentlyUsed<string, string>(ISSUERS_KEPT);

/**
 * The serial and issuer a PEM client certificate states, without reading the whole certificate: its
 * serial is read from the DER, and its issuer spelt once per container for each issuer's DER (reading a
 * certificate as X.509 costs more than all the rest of a steady heartbeat). Undefined for what is no
 * certificate.
 */
export function certificateIdentity(certificatePem: string): CertificateIdentity | undefined {
  const der = derOf(certificatePem);
  const fields = der && tbsFields(der);
  if (!fields) return wholeCertificateIdentity(certificatePem);
  const issuerKey = der.toString("latin1", fields.issuer.start, fields.issuer.end);
  let issuerDN = issuerNames.get(issuerKey);
  if (issuerDN === undefined) {
    const whole = wholeCertificateIdentity(certificatePem);
    if (!whole) return undefined;
    issuerDN = whole.issuerDN;
    issuerNames.set(issuerKey, issuerDN);
  }
  return { serialNumber: fields.serialNumber, issuerDN };
}

function wholeCertificateIdentity(certificatePem: string): CertificateIdentity | undefined {
  try {
    const certificate = new X509Certificate(certificatePem);
    return { serialNumber: certificate.serialNumber, issuerDN: distinguishedName(certificate.issuer) };
  } catch {
    return undefined;
  }
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/;

/** A PEM certificate's DER, undefined for what holds none. */
export function derOf(pem: string): Buffer | undefined {
  const body = PEM_CERTIFICATE.exec(pem)?.[1];
  return body === undefined ? undefined : Buffer.from(body, "base64");
}

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const EXPLICIT_VERSION = 0xa0;

/** A DER element: its tag, and where it and its content lie in the buffer. */
interface Element {
  tag: number;
  offset: number;
  start: number;
  end: number;
}

function elementAt(der: Buffer, offset: number, within: number): Element | undefined {
  if (offset + 2 > within) return undefined;
  const tag = der[offset] as number;
  const first = der[offset + 1] as number;
  let start = offset + 2;
  let length = first;
  if (first & 0x80) {
    const lengthBytes = first & 0x7f;
    if (lengthBytes === 0 || lengthBytes > 3 || start + lengthBytes > within) return undefined;
    length = 0;
    for (let index = 0; index < lengthBytes; index++) length = length * 256 + (der[start++] as number);
  }
  const end = start + length;
  return end > within ? undefined : { tag, offset, start, end };
}

/** A certificate's TBSCertificate (RFC 5280 4.1): the signed part, whose fields name and describe it. */
function tbsOf(der: Buffer): Element | undefined {
  const certificate = elementAt(der, 0, der.length);
  if (certificate?.tag !== SEQUENCE) return undefined;
  const tbs = elementAt(der, certificate.start, certificate.end);
  return tbs?.tag === SEQUENCE ? tbs : undefined;
}

/**
 * The serial and the issuer's element in a certificate's TBSCertificate (RFC 5280 4.1: version, serial,
 * signature algorithm, issuer); undefined where the DER is not shaped so, or the serial is not a positive
 * integer, which the whole certificate's reading then decides.
 */
function tbsFields(
  der: Buffer,
): { serialNumber: string; issuer: { start: number; end: number } } | undefined {
  const tbs = tbsOf(der);
  if (!tbs) return undefined;
  let field = elementAt(der, tbs.start, tbs.end);
  if (field?.tag === EXPLICIT_VERSION) field = elementAt(der, field.end, tbs.end);
  if (field?.tag !== INTEGER || field.end === field.start || (der[field.start] as number) & 0x80)
    return undefined;
  const serialNumber = serialHex(der.subarray(field.start, field.end));
  const algorithm = elementAt(der, field.end, tbs.end);
  if (algorithm?.tag !== SEQUENCE) return undefined;
  const issuer = elementAt(der, algorithm.end, tbs.end);
  if (issuer?.tag !== SEQUENCE) return undefined;
  return { serialNumber, issuer: { start: issuer.offset, end: issuer.end } };
}

function serialHex(bytes: Buffer): string {
  let first = 0;
  while (first < bytes.length && bytes[first] === 0) first++;
  return first === bytes.length ? "0" : bytes.toString("hex", first).toUpperCase();
}

/** Where the extensions are: after the subject's public key and the optional unique ids ([1], [2]). */
const EXPLICIT_EXTENSIONS = 0xa3;
const OBJECT_IDENTIFIER = 0x06;
const BOOLEAN = 0x01;
const OCTET_STRING = 0x04;
/** keyIdentifier, the AuthorityKeyIdentifier's first field, IMPLICIT [0]. */
const IMPLICIT_KEY_IDENTIFIER = 0x80;
/** id-ce-authorityKeyIdentifier, 2.5.29.35, as its DER content bytes. */
const AUTHORITY_KEY_IDENTIFIER_OID = "551d23";

/**
 * The key id a certificate's Authority Key Identifier extension states (RFC 5280 4.2.1.1), hex in lower case;
 * undefined where it states none or the DER is not shaped so. Read from the DER, as Node shows no such field.
 */
export function authorityKeyIdOf(der: Buffer): string | undefined {
  const tbs = tbsOf(der);
  if (!tbs) return undefined;
  let field = elementAt(der, tbs.start, tbs.end);
  while (field && field.tag !== EXPLICIT_EXTENSIONS) field = elementAt(der, field.end, tbs.end);
  const extensions = field && elementAt(der, field.start, field.end);
  if (extensions?.tag !== SEQUENCE) return undefined;
  for (let at = extensions.start; at < extensions.end; ) {
    const extension = elementAt(der, at, extensions.end);
    if (extension?.tag !== SEQUENCE) return undefined;
    at = extension.end;
    const oid = elementAt(der, extension.start, extension.end);
    if (
      oid?.tag !== OBJECT_IDENTIFIER ||
      der.toString("hex", oid.start, oid.end) !== AUTHORITY_KEY_IDENTIFIER_OID
    )
      continue;
    let value = elementAt(der, oid.end, extension.end);
    if (value?.tag === BOOLEAN) value = elementAt(der, value.end, extension.end);
    if (value?.tag !== OCTET_STRING) return undefined;
    const identifier = elementAt(der, value.start, value.end);
    if (identifier?.tag !== SEQUENCE) return undefined;
    const keyId = elementAt(der, identifier.start, identifier.end);
    if (keyId?.tag !== IMPLICIT_KEY_IDENTIFIER || keyId.end === keyId.start) return undefined;
    return der.toString("hex", keyId.start, keyId.end);
  }
  return undefined;
}
