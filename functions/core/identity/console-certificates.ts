import { BeaconError } from "../errors.js";
import { guardedCache } from "../guarded-cache.js";
import { asObject, dropUndefined } from "../json.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import {
  type CertificateListRequest,
  type CertificateRevocation,
  canonicalCertificateSerial,
  certificateRecord,
  certificateState,
  DAY_MS,
  DEFAULT_VALIDITY_DAYS,
  type IssueRequest,
  isCanonicalSerial,
  type KeySource,
} from "./certificates.js";
import { isValidIdentifier } from "./credentials.js";
import { keyRefusal } from "./key-policy.js";
import type {
  CertificateAuthority,
  CertificateRecord,
  CertificateStore,
  CertificateSubject,
  RevocationReason,
  SignedCertificate,
} from "./ports.js";
import { type Principal, requireRole } from "./principal.js";

/** X.509 bounds a common name at 64 characters (RFC 5280, ub-common-name). */
const MAX_NAME_LENGTH = 64;

const EXPIRY_KEY_PATTERN = /^[0-9]{15}#(.+)$/;

const isExpiryKey = (key: string): boolean => isCanonicalSerial(EXPIRY_KEY_PATTERN.exec(key)?.[1] ?? "");

export interface CertificatesDependencies {
  store: CertificateStore;
  authority: CertificateAuthority;
  revocation: CertificateRevocation;
  clock: Clock;
  /** How many days before its notAfter a certificate counts as expiring (`BEACON_CERT_EXPIRY_WARNING_DAYS`). */
  expiryWarningDays: number;
}

/** How many of an agent's certificates its view shows, soonest to expire first. */
const AGENT_VIEW_CERTIFICATES = 10;

export function makeCertificatesApi(deps: CertificatesDependencies) {
  const { store, authority, revocation, clock, expiryWarningDays } = deps;

  const view = (record: CertificateRecord, trusted: ReadonlySet<string> | undefined) =>
    dropUndefined({
      serial: record.serial,
      kind: record.kind,
      agentId: record.agentId,
      fleetName: record.fleetName,
      subjectDN: record.subjectDN,
      notBefore: toIso(record.notBefore) as string,
      notAfter: toIso(record.notAfter) as string,
      issuedAt: toIso(record.issuedAt) as string,
      issuedBy: record.issuedBy,
      revokedAt: toIso(record.revokedAt),
      revocationReason: record.revocationReason,
      expiryAnnouncedAt: toIso(record.expiryAnnouncedAt),
      state: certificateState(record, clock.now(), trusted),
    });
  /** The views of records, by the CAs trusted now. */
  const viewsOf = async () => {
    const trusted = await authority.trustedSigners();
    return (record: CertificateRecord) => view(record, trusted);
  };

  const serialOf = (serial: string) => {
    const canonical = canonicalCertificateSerial(serial);
    if (!isCanonicalSerial(canonical)) throw new BeaconError("not_found", "No such certificate");
    return canonical;
  };

  /** The subject is Beacon's alone: a request's own subject, whatever tenant it names, is never read. */
  async function certify(
    request: KeySource,
    subject: CertificateSubject,
    validityDays: number,
  ): Promise<SignedCertificate & { privateKeyPem?: string }> {
    if (request.csrPem !== undefined && request.generateKey === true) {
      throw new BeaconError("invalid_request", "Send either csrPem or generateKey: true, not both");
    }
    if (request.csrPem !== undefined) {
      const csr = await authority.readSigningRequest(request.csrPem);
      if (!csr.signatureValid) {
        throw new BeaconError("invalid_csr", "The CSR's signature does not verify with the key it carries");
      }
      const refusal = keyRefusal(csr.publicKey);
      if (refusal) throw new BeaconError("invalid_csr", refusal);
      return authority.signClientCertificate(csr, subject, validityDays);
    }
    if (request.generateKey === true) return authority.issueClientCertificate(subject, validityDays);
    throw new BeaconError(
      "invalid_request",
      "Send the device's certificate signing request as csrPem, or ask for a generated key with generateKey: true",
    );
  }

  return {
    async issue(principal: Principal, request: IssueRequest): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      const name = request.kind === "agent" ? request.agentId : request.fleetName;
      if (!isValidIdentifier(name) || name.length > MAX_NAME_LENGTH) {
        throw new BeaconError(
          "invalid_request",
          `The ${request.kind === "agent" ? "agent id" : "fleet name"} must be 1 to ${MAX_NAME_LENGTH} characters ` +
            "from A-Z a-z 0-9 . _ : @ -, starting with a letter or digit",
        );
      }
      const validityDays = request.validityDays ?? DEFAULT_VALIDITY_DAYS;
      const subject = { commonName: name, organizationalUnit: request.kind, organization: principal.tenant };
      const issued = await certify(request, subject, validityDays);
      const record = certificateRecord(issued, clock.now(), principal.subject);
      // 128-bit random serials do not collide; should one ever, the first record must not be lost.
      if (!(await store.add(record))) throw new Error(`The agent CA issued serial ${record.serial} twice`);
      return {
        status: 201,
        body: dropUndefined({
          ...(await viewsOf())(record),
          certificatePem: issued.certificatePem,
          privateKeyPem: issued.privateKeyPem,
          caCertificatePem: issued.caCertificatePem,
        }),
      };
    },

    async list(principal: Principal, request: CertificateListRequest): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      const days = request.expiringWithinDays ?? (request.expiring ? expiryWarningDays : undefined);
      if (request.agentId !== undefined) {
        if (days !== undefined) {
          throw new BeaconError(
            "invalid_request",
            "List an agent's certificates or those expiring soon, not both at once",
          );
        }
        // An agent holds a few certificates, read from the index by agent: one page.
        const records = await store.agentCertificates(principal.tenant, request.agentId);
        return {
          body: {
            items: records.sort((first, second) => second.issuedAt - first.issuedAt).map(await viewsOf()),
          },
        };
      }
      if (days === undefined) {
        const page = await store.list(principal.tenant, pageRequestOf(request, isCanonicalSerial));
        return { body: pageBodyOf(page, await viewsOf()) };
      }
      const now = clock.now();
      const window = { from: now, until: now + days * DAY_MS };
      const page = await store.expiring(principal.tenant, window, pageRequestOf(request, isExpiryKey));
      return { body: { ...pageBodyOf(page, await viewsOf()), expiringWithinDays: days } };
    },

    /**
     * The agent's agent certificates that are not revoked, soonest to expire first, for the agent's view:
     * when its certificate runs out is when it stops reaching Beacon.
     */
    async agentCertificateExpiry(tenant: string, agentId: string) {
      const now = clock.now();
      const trusted = await authority.trustedSigners();
      return (await store.agentCertificates(tenant, agentId))
        .filter((record) => record.revokedAt === undefined)
        .sort((first, second) => first.notAfter - second.notAfter)
        .slice(0, AGENT_VIEW_CERTIFICATES)
        .map((record) => ({
          serial: record.serial,
          notAfter: toIso(record.notAfter) as string,
          state: certificateState(record, now, trusted),
        }));
    },

    async get(principal: Principal, serial: string): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      const record = await store.get(principal.tenant, serialOf(serial));
      if (!record) throw new BeaconError("not_found", "No such certificate");
      return { body: (await viewsOf())(record) };
    },

    /**
     * Idempotent: revoking a revoked certificate answers with its first revocation. The reason (the body's,
     * which the API's validator held to the reasons it names) is `unspecified` unless given.
     */
    async revoke(principal: Principal, serial: string, body: unknown): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      const cache = guardedCache();
      const reason = (asObject(body)?.reason as RevocationReason | undefined) ?? "unspecified";
      const record = await revocation.revoke(principal.tenant, serialOf(serial), reason, cache);
      if (!record) throw new BeaconError("not_found", "No such certificate");
      return { body: (await viewsOf())(record), cacheError: cache.error };
    },
  };
}
