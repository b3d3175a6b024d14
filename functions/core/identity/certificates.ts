import type { GuardedCache } from "../guarded-cache.js";
import { dropUndefined } from "../json.js";
import type { Clock } from "../ports.js";
import {
  type AgentCredential,
  canonicalSerial,
  credentialFromCertificate,
  qualifiedSerial,
  type TenantCaCertificate,
} from "./credentials.js";
import type {
  CertificateFacts,
  CertificateRecord,
  CertificateStore,
  RevocationNotices,
  RevocationReason,
} from "./ports.js";
export const DEFAULT_VALIDITY_DAYS = 365;

export const MAX_VALIDITY_DAYS = 825;

/** Beacon's serials, and those of a tenant CA's certificates qualified by its CA's id (qualifiedSerial). */
const SERIAL_PATTERN = /^(?:[0-9A-F]{16}\.)?[0-9A-F]{1,40}$/;

export const isCanonicalSerial = (serial: string): boolean => SERIAL_PATTERN.test(serial);

/** A serial as a person may spell it (any case, leading zeros), qualified or not, in its one spelling. */
export function canonicalCertificateSerial(serial: string): string {
  const dot = serial.indexOf(".");
  if (dot < 0) return canonicalSerial(serial);
  return qualifiedSerial(serial.slice(0, dot).toUpperCase(), canonicalSerial(serial.slice(dot + 1)));
}

export const DAY_MS = 86_400_000;

/**
 * Where a certificate sits in the order of expiry: its notAfter (epoch milliseconds, zero-padded so that
 * string order is time order), then its serial. The expiring list's pages continue after one.
 */
export const expiryKeyOf = (record: Pick<CertificateRecord, "notAfter" | "serial">): string =>
  `${String(Math.max(0, Math.floor(record.notAfter))).padStart(15, "0")}#${record.serial}`;

/**
 * The state a certificate is in at `now`, given the CAs the agent ingress trusts (undefined: not known).
 * Retired: the CA that signed it was retired after a rotation, so it fails the TLS handshake.
 */
export function certificateState(
  record: CertificateRecord,
  now: number,
  trustedSigners?: ReadonlySet<string>,
): "revoked" | "expired" | "retired" | "valid" {
  if (record.revokedAt !== undefined) return "revoked";
  if (record.notAfter <= now) return "expired";
  const { signedBy } = record;
  if (signedBy !== undefined && trustedSigners !== undefined && !trustedSigners.has(signedBy))
    return "retired";
  return "valid";
}

export interface CertificateListRequest {
  cursor?: string;
  limit?: number;
  /** Only certificates not revoked that expire within this many days from now, soonest first. */
  expiringWithinDays?: number;
  /** The same, within the configured warning window. */
  expiring?: boolean;
  /** Only the agent certificates of this agent id, revoked ones included, newest first. */
  agentId?: string;
}

/**
 * Whose key the certificate certifies: the device's, from its certificate signing request (the private key
 * never leaves the device), or, only when asked for explicitly, a key pair Beacon generates and hands over
 * once. Exactly one of the two.
 */
export interface KeySource {
  csrPem?: string;
  generateKey?: boolean;
}

export type IssueRequest = (
  | { kind: "agent"; agentId: string; validityDays?: number }
  | { kind: "fleet"; fleetName: string; validityDays?: number }
) &
  KeySource;

/**
 * The store's record of a certificate the agent CA signed, from what the certificate states: tenant, kind
 * and name read from its subject as the agent API reads them. Console issuance and the local stack's own
 * certificates are recorded alike.
 */
export function certificateRecord(
  certificate: CertificateFacts,
  issuedAt: number,
  issuedBy: string,
): CertificateRecord {
  const holder = credentialFromCertificate(certificate.subjectDN, certificate.serialNumber);
  return recordOf(holder, certificate, issuedAt, issuedBy);
}

/** The record of the certificate `holder` proved, with what the certificate states of itself. */
function recordOf(
  holder: AgentCredential,
  certificate: { subjectDN: string; notBefore: number; notAfter: number; signedBy?: string },
  issuedAt: number,
  issuedBy: string,
): CertificateRecord {
  return dropUndefined({
    tenant: holder.tenant,
    serial: holder.serialNumber,
    kind: holder.kind,
    agentId: holder.kind === "agent" ? holder.agentId : undefined,
    fleetName: holder.kind === "fleet" ? holder.fleetName : undefined,
    subjectDN: certificate.subjectDN,
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    issuedAt,
    issuedBy,
    signedBy: certificate.signedBy,
  });
}

/** Who records a tenant CA's certificates, which Beacon did not issue, in the store's `issuedBy`. */
const TENANT_CA_ISSUER_PREFIX = "tenant-ca:";

/**
 * The store's record of a tenant CA's certificate, from the credential it proved when an agent first presented
 * it: its serial qualified by its CA, kind and agent as the CA's rule read them (an "any agent" rule is a fleet
 * certificate), `issuedAt` when Beacon first saw it and `issuedBy` its CA.
 */
export function tenantCaCertificateRecord(
  credential: AgentCredential,
  certificate: TenantCaCertificate,
  validity: { notBefore: number; notAfter: number },
  seenAt: number,
): CertificateRecord {
  const { subjectDN, caId } = certificate;
  return recordOf(credential, { subjectDN, ...validity }, seenAt, `${TENANT_CA_ISSUER_PREFIX}${caId}`);
}

export interface RevocationDependencies {
  store: CertificateStore;
  hotState: RevocationNotices;
  clock: Clock;
}

/**
 * Revoking certificates, as the console's revocation and an agent's decommissioning both do. The
 * registry's revocation list is the truth and is written first; the cache's copy is then told at once.
 * Should that fail, the agent API reloads its copy from the registry when it expires.
 */
export function makeCertificateRevocation(deps: RevocationDependencies) {
  const { store, hotState, clock } = deps;

  async function revoke(tenant: string, serial: string, reason: RevocationReason, cache: GuardedCache) {
    const record = await store.revoke(tenant, serial, clock.now(), reason);
    if (record?.revokedAt !== undefined) {
      const revokedAt = record.revokedAt;
      await cache.attempt(() => hotState.revokeSerial(tenant, serial, revokedAt));
    }
    return record;
  }

  return {
    revoke,

    /** For decommissioning: every agent certificate of the agent, revoked; returns their serials. */
    async revokeAgentCertificates(tenant: string, agentId: string, cache: GuardedCache): Promise<string[]> {
      const live = (await store.ofAgent(tenant, agentId)).filter((record) => record.revokedAt === undefined);
      for (const record of live) await revoke(tenant, record.serial, "cessationOfOperation", cache);
      return live.map((record) => record.serial);
    },
  };
}

export type CertificateRevocation = ReturnType<typeof makeCertificateRevocation>;
