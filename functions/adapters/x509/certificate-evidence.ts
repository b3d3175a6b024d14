import { createHash, createPublicKey, type KeyObject, X509Certificate } from "node:crypto";
import type { CertificateEvidence, SanType } from "../../core/identity/ca-bindings.js";
import { authorityKeyIdOf, derOf } from "../../core/identity/certificate-identity.js";
import { RecentlyUsed } from "../../core/recently-used.js";

/** What one certificate told: read once per container, however often its agent calls. */
interface Reading {
  /** By CA public key: whether that CA signed the certificate. */
  signedBy: Map<string, boolean>;
  subjectAltNames?: ReadonlyMap<SanType, string[]>;
  /** Null for a certificate that states none. */
  authorityKeyId?: string | null;
}

/** Certificates of the agents one container serves: a handful each with a steady heartbeat. */
const CERTIFICATES_KEPT = 2_000;
const readings = new RecentlyUsed<string, Reading>(CERTIFICATES_KEPT);
/** The public keys of the trusted CAs whose names are shared: a few. */
const publicKeys = new Map<string, KeyObject>();

/**
 * What the certificate itself tells (which CA signed it, its subject alternative names), read from its PEM only
 * when a binding asks, and kept by the DER's SHA-256 so that a steady heartbeat pays the reading once per
 * container. Nothing is signed by what is no certificate, and it names nothing.
 */
export function certificateEvidence(pem: string): CertificateEvidence {
  let reading: Reading | undefined;
  const der = () => derOf(pem) ?? Buffer.alloc(0);
  const readingOf = () => {
    if (reading) return reading;
    const key = createHash("sha256").update(der()).digest("base64");
    reading = readings.get(key) ?? { signedBy: new Map() };
    readings.set(key, reading);
    return reading;
  };
  const parsed = () => {
    try {
      return new X509Certificate(der());
    } catch {
      return undefined;
    }
  };
  return {
    signedBy(publicKey) {
      const known = readingOf();
      let verdict = known.signedBy.get(publicKey);
      if (verdict === undefined) {
        verdict = parsed()?.verify(publicKeyOf(publicKey)) ?? false;
        known.signedBy.set(publicKey, verdict);
      }
      return verdict;
    },
    subjectAltNames(type) {
      const known = readingOf();
      known.subjectAltNames ??= subjectAltNamesOf(parsed()?.subjectAltName);
      return known.subjectAltNames.get(type) ?? [];
    },
    authorityKeyId() {
      const known = readingOf();
      known.authorityKeyId ??= authorityKeyIdOf(der()) ?? null;
      return known.authorityKeyId ?? undefined;
    },
    validity() {
      const certificate = parsed();
      if (!certificate) return undefined;
      return { notBefore: Date.parse(certificate.validFrom), notAfter: Date.parse(certificate.validTo) };
    },
  };
}

function publicKeyOf(spki: string): KeyObject {
  let key = publicKeys.get(spki);
  if (key === undefined) {
    key = createPublicKey({ key: Buffer.from(spki, "base64"), format: "der", type: "spki" });
    publicKeys.set(spki, key);
  }
  return key;
}

/** A name as Node prints it: `DNS:a.example, URI:"spiffe://x,y"`, a value with a comma or quote JSON-quoted. */
const SUBJECT_ALT_NAME = /([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/g;

export function subjectAltNamesOf(printed: string | undefined): ReadonlyMap<SanType, string[]> {
  const names = new Map<SanType, string[]>();
  for (const [, type, value] of (printed ?? "").matchAll(SUBJECT_ALT_NAME)) {
    if (type !== "DNS" && type !== "URI" && type !== "email") continue;
    const text = (value as string).startsWith('"')
      ? (JSON.parse(value as string) as string)
      : (value as string);
    names.set(type, [...(names.get(type) ?? []), text]);
  }
  return names;
}

/** The key a CA's certificates are verified with, as the bindings carry it: its SubjectPublicKeyInfo, base64. */
export const publicKeyOfCa = (ca: X509Certificate): string =>
  ca.publicKey.export({ type: "spki", format: "der" }).toString("base64");
