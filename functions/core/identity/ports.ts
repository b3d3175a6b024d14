import type { Page, PageRequest } from "../paging.js";

/** Serials of a tenant's revoked agent certificates (canonical form), durable in the registry. */
export interface RevocationList {
  revokedSerials(tenant: string): Promise<string[]>;
  isRevoked(tenant: string, serial: string): Promise<boolean>;
}

/** What the cache knows of a certificate: "unknown" until it holds the tenant's revocation list. */
export type CachedRevocation = "revoked" | "clear" | "unknown";

/** The cache's copy of tenants' revocation lists, as the agent API checks certificates against it. */
export interface RevocationCache {
  revocationOf(tenant: string, serial: string): Promise<CachedRevocation>;
  /** Replaces the cache's copy of the tenant's revocation list; it expires, so the registry stays the truth. */
  rememberRevocations(tenant: string, serials: string[]): Promise<void>;
}

/** The console's revocations, told to the cache's copy at once so the agent API refuses them at once. */
export interface RevocationNotices {
  /** Adds the serial to the cache's copy of the tenant's revocation list, when the cache holds one. */
  revokeSerial(tenant: string, serial: string, revokedAt: number): Promise<void>;
}

export type CertificateKind = "agent" | "fleet";

/**
 * Why a certificate was revoked, in RFC 5280's terms (CRLReason), as the console API's `RevocationReason` names
 * them: an agent decommissioned is `cessationOfOperation`.
 */
export type RevocationReason =
  | "unspecified"
  | "keyCompromise"
  | "superseded"
  | "cessationOfOperation"
  | "affiliationChanged"
  | "privilegeWithdrawn";

export interface CertificateRecord {
  tenant: string;
  /** Canonical: upper-case hex, no separators or leading zeros. */
  serial: string;
  kind: CertificateKind;
  agentId?: string;
  fleetName?: string;
  subjectDN: string;
  notBefore: number;
  notAfter: number;
  issuedAt: number;
  /** Subject of the token that asked for it. */
  issuedBy: string;
  revokedAt?: number;
  /** Why, for a certificate revoked since reasons were kept. */
  revocationReason?: RevocationReason;
  /**
   * The SHA-256 fingerprint of Beacon's CA that signed it, where known: once the agent ingress no longer
   * trusts that CA (retired after a rotation), the certificate fails the TLS handshake.
   */
  signedBy?: string;
  /** When the sweeper announced that it expires soon (`certificate.expiring`); once per certificate. */
  expiryAnnouncedAt?: number;
}

export interface CertificateStore {
  /**
   * Stores the record unless the tenant has one with its serial already, which then stays as it is, its
   * revocation included; says whether it stored it.
   */
  add(record: CertificateRecord): Promise<boolean>;
  list(tenant: string, page: PageRequest): Promise<Page<CertificateRecord>>;
  get(tenant: string, serial: string): Promise<CertificateRecord | undefined>;
  /** The agent certificates issued for one agent id, every one of them: what decommissioning revokes. */
  ofAgent(tenant: string, agentId: string): Promise<CertificateRecord[]>;
  /**
   * The agent certificates of one agent id as an index has them, for views: a certificate issued a moment
   * ago may be missing yet, and those recorded before the index existed are.
   */
  agentCertificates(tenant: string, agentId: string): Promise<CertificateRecord[]>;
  /**
   * The tenant's certificates that are not revoked and expire within `window` (notAfter from `from` to `until`,
   * both included), soonest first; pages continue after an `expiryKeyOf` key.
   */
  expiring(
    tenant: string,
    window: { from: number; until: number },
    page: PageRequest,
  ): Promise<Page<CertificateRecord>>;
  /**
   * Every tenant's certificates that are neither revoked nor announced as expiring and whose notAfter is at
   * most `until`, soonest first, at most `limit`: the sweeper's to announce, found without a scan.
   */
  dueForExpiryNotice(until: number, limit: number): Promise<CertificateRecord[]>;
  /**
   * Records that the certificate's expiry was announced, unless it was already (or the certificate was
   * revoked meanwhile): true for the one call that recorded it, so two sweeper runs announce it once.
   */
  markExpiryAnnounced(tenant: string, serial: string, at: number): Promise<boolean>;
  /**
   * Marks the certificate revoked for `reason` (the first revocation's time and reason stay) and puts its serial
   * on the tenant's revocation list, together; undefined when the tenant has no such certificate.
   */
  revoke(
    tenant: string,
    serial: string,
    now: number,
    reason: RevocationReason,
  ): Promise<CertificateRecord | undefined>;
}

export interface CertificateSubject {
  commonName: string;
  organizationalUnit: CertificateKind;
  organization: string;
}

/** What a certificate states about itself. */
export interface CertificateFacts {
  /** As the certificate states it (hex). */
  serialNumber: string;
  /** The SHA-256 fingerprint of the CA certificate that signed it, where known. */
  signedBy?: string;
  subjectDN: string;
  notBefore: number;
  notAfter: number;
}

export interface SignedCertificate extends CertificateFacts {
  certificatePem: string;
  /** The CA that signed it, for the agent's trust store. */
  caCertificatePem: string;
}

export interface IssuedCertificate extends SignedCertificate {
  /** PKCS#8 PEM of the key pair Beacon generated. Handed to the caller once; Beacon never stores it. */
  privateKeyPem: string;
}

/** The public key a certificate signing request carries, as its algorithm and size name it. */
export interface PublicKeyFacts {
  /** `rsa`, `rsa-pss`, `ec`, `ed25519`, …, as Node names key types. */
  algorithm: string;
  modulusBits?: number;
  /** `prime256v1` (P-256), `secp384r1` (P-384), …, as OpenSSL names curves. */
  namedCurve?: string;
}

/** A PKCS#10 certificate signing request as read, before Beacon decides anything about it. */
export interface SigningRequest {
  pem: string;
  publicKey: PublicKeyFacts;
  /** The request is signed with the private key of the public key it carries: its holder asked. */
  signatureValid: boolean;
}

/** Beacon's agent CA: the one the agent ingress trusts. */
export interface CertificateAuthority {
  /** Generates a key pair and certifies it: the private key leaves Beacon in the reply, once. */
  issueClientCertificate(subject: CertificateSubject, validityDays: number): Promise<IssuedCertificate>;
  /** Reads a PEM PKCS#10 request; throws invalid_csr when it is none. */
  readSigningRequest(pem: string): Promise<SigningRequest>;
  /**
   * Certifies the request's public key under the subject Beacon chose. Nothing else of the request (its
   * subject, its requested extensions) reaches the certificate.
   */
  signClientCertificate(
    request: SigningRequest,
    subject: CertificateSubject,
    validityDays: number,
  ): Promise<SignedCertificate>;
  /**
   * The SHA-256 fingerprints of Beacon's CAs the agent ingress trusts now (during a rotation, two); undefined
   * where the deployment does not tell the console its trust store.
   */
  trustedSigners(): Promise<ReadonlySet<string> | undefined>;
}
