import { BeaconError } from "../errors.js";
import {
  type AgentCredential,
  canonicalSerial,
  credentialFromCertificate,
  isValidIdentifier,
  parseDistinguishedName,
  qualifiedSerial,
  tenantCaIdOf,
} from "./credentials.js";

/** The kinds of subject alternative name an agent id may be read from, as Node prints them. */
export const SanTypes = ["DNS", "URI", "email"] as const;
export type SanType = (typeof SanTypes)[number];

/**
 * How a CA's certificates name who they speak for: Beacon's own rule (`CN=<id>, OU=agent|fleet, O=<tenant>`,
 * whose O must be a tenant the CA may speak for); the agent id from one attribute of the subject, or from a
 * subject alternative name, the certificate speaking for that agent alone; or any agent of the CA's tenant,
 * as Beacon's fleet certificates do.
 */
export type IdentityRule =
  | { kind: "beacon" }
  | { kind: "attribute"; attribute: string }
  | { kind: "san"; type: SanType }
  | { kind: "fleet" };

/** The spelling of "any agent of the tenant", in the deployment's configuration and the bindings alike. */
export const ANY_AGENT = "*";
const SAN_PREFIX = "SAN:";
const ATTRIBUTE_PATTERN = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

/**
 * A rule as the deployment's configuration spells it (`agentId`): absent for Beacon's rule, "*" for any agent
 * of the tenant, "SAN:DNS", "SAN:URI" or "SAN:email" for a subject alternative name, else the name of a
 * subject attribute ("CN", "UID", "serialNumber"). Undefined for a spelling that is none of these.
 */
export function identityRuleOf(spelling: string | undefined): IdentityRule | undefined {
  if (spelling === undefined) return { kind: "beacon" };
  if (spelling === ANY_AGENT) return { kind: "fleet" };
  if (spelling.startsWith(SAN_PREFIX)) {
    const type = SanTypes.find((candidate) => `${SAN_PREFIX}${candidate}` === spelling);
    return type === undefined ? undefined : { kind: "san", type };
  }
  return ATTRIBUTE_PATTERN.test(spelling) ? { kind: "attribute", attribute: spelling } : undefined;
}

/** The configuration's spelling of a rule: identityRuleOf's inverse. */
export function spellIdentityRule(rule: IdentityRule): string | undefined {
  switch (rule.kind) {
    case "beacon":
      return undefined;
    case "fleet":
      return ANY_AGENT;
    case "san":
      return `${SAN_PREFIX}${rule.type}`;
    case "attribute":
      return rule.attribute;
  }
}

export const IDENTITY_RULE_SPELLINGS = `absent (CN=<id>, OU=agent|fleet, O=<tenant>), "${ANY_AGENT}" (any agent of the tenant), a subject attribute ("CN", "UID", "serialNumber") or ${SanTypes.map((type) => `"${SAN_PREFIX}${type}"`).join(", ")}`;

/** A CA that may speak for Beacon's tenants: "*" for Beacon's own, which names the tenant in O. */
export interface CaBinding {
  tenant: string;
  agentId: IdentityRule;
  /**
   * The CA's public key (SubjectPublicKeyInfo, DER, base64), where another trusted CA bears the same name and
   * is bound otherwise: which of them signed a certificate is then proven by its signature.
   */
  publicKey?: string;
}

export const BEACON_TENANTS = "*";

/**
 * The CAs the agent ingress trusts, by their subject name (the name a certificate gives as its issuer). A
 * name borne by several CAs bound alike is one binding (Beacon's CA generations); by CAs bound otherwise
 * (two tenants' look-alike CAs), one binding each, each with its public key.
 */
export type CaBindings = ReadonlyMap<string, readonly CaBinding[]>;

/** What only the certificate itself tells, read from it when a binding asks (certificate-evidence.ts). */
export interface CertificateEvidence {
  /** Whether the key's private half signed the certificate. */
  signedBy(publicKey: string): boolean;
  subjectAltNames(type: SanType): string[];
  /** The key identifier of the CA that signed it, as it states it (hex); undefined when it states none. */
  authorityKeyId(): string | undefined;
  /** When it is valid, in epoch milliseconds. */
  validity(): { notBefore: number; notAfter: number } | undefined;
}

/** A client certificate as an ingress reports it: its subject, serial and issuer, and what it tells itself. */
export interface DistinguishedCertificate {
  subjectDN: string;
  serialNumber: string;
  issuerDN?: string;
  evidence?: CertificateEvidence;
}

/**
 * The credential a client certificate proves. The TLS handshake proved that a trusted CA signed it; its
 * issuer's name tells which, unless several CAs bound otherwise bear that name, when the signature does (never
 * the authority key identifier, which any CA may write). That CA's binding then decides the tenant (Beacon's
 * CAs: the one O names; a tenant's CA: its own, whatever O says) and the agent, by its rule. Without bindings
 * (none configured) every trusted CA is one of Beacon's own. A tenant CA's certificate's serial is qualified
 * by its CA (tenantCaIdOf), and the credential carries what the certificate store records of it.
 */
export function credentialOfCertificate(
  certificate: DistinguishedCertificate,
  bindings: CaBindings | undefined,
): AgentCredential {
  if (bindings === undefined)
    return credentialFromCertificate(certificate.subjectDN, certificate.serialNumber);
  const [binding, ...more] = bindingsOfSigner(certificate, bindings);
  if (binding !== undefined && more.length === 0 && binding.agentId.kind !== "beacon")
    return ofTenantCa(certificate, credentialByRule(certificate, binding.tenant, binding.agentId));
  if (binding === undefined || more.some((other) => other.agentId.kind !== "beacon"))
    throw speaksForNoTenant();
  // Beacon's rule: O names the tenant, which one of the CA's bindings must allow.
  const credential = credentialFromCertificate(certificate.subjectDN, certificate.serialNumber);
  const bound = [binding, ...more];
  if (bound.some(({ tenant }) => tenant === BEACON_TENANTS)) return credential;
  if (bound.some(({ tenant }) => tenant === credential.tenant)) return ofTenantCa(certificate, credential);
  throw new BeaconError(
    "tenant_not_bound_to_ca",
    `The client certificate's CA may not speak for tenant ${credential.tenant}`,
  );
}

/** The credential of a tenant CA's certificate: its serial qualified by the CA, and what is recorded of it. */
function ofTenantCa(certificate: DistinguishedCertificate, credential: AgentCredential): AgentCredential {
  const { evidence, issuerDN = "" } = certificate;
  const caId = tenantCaIdOf(issuerDN, evidence?.authorityKeyId());
  return {
    ...credential,
    serialNumber: qualifiedSerial(caId, credential.serialNumber),
    tenantCa: { caId, subjectDN: certificate.subjectDN, validity: () => evidence?.validity() },
  };
}

const speaksForNoTenant = () =>
  new BeaconError("tenant_not_bound_to_ca", "The client certificate's CA speaks for no Beacon tenant");

/**
 * The bindings of the CA that signed the certificate: those of its issuer's name, unless they carry public
 * keys (the name is shared by CAs bound otherwise), when those of the keys that verify its signature.
 */
function bindingsOfSigner(certificate: DistinguishedCertificate, bindings: CaBindings): readonly CaBinding[] {
  const candidates = (certificate.issuerDN && bindings.get(certificate.issuerDN)) || [];
  if (!candidates.some((candidate) => candidate.publicKey !== undefined)) return candidates;
  const { evidence } = certificate;
  return candidates.filter(
    ({ publicKey }) => publicKey !== undefined && evidence?.signedBy(publicKey) === true,
  );
}

function credentialByRule(
  certificate: DistinguishedCertificate,
  tenant: string,
  rule: Exclude<IdentityRule, { kind: "beacon" }>,
): AgentCredential {
  const serialNumber = canonicalSerial(certificate.serialNumber);
  if (rule.kind === "fleet") return { kind: "fleet", tenant, fleetName: ANY_AGENT, serialNumber };
  return { kind: "agent", tenant, agentId: agentIdByRule(certificate, rule), serialNumber };
}

function agentIdByRule(
  certificate: DistinguishedCertificate,
  rule: Extract<IdentityRule, { kind: "attribute" | "san" }>,
): string {
  const where = rule.kind === "attribute" ? `subject's ${rule.attribute}` : `${SAN_PREFIX}${rule.type}`;
  const values =
    rule.kind === "attribute"
      ? [parseDistinguishedName(certificate.subjectDN).get(rule.attribute.toUpperCase())]
      : [...new Set(certificate.evidence?.subjectAltNames(rule.type) ?? [])];
  const [value, ...more] = values;
  if (value === undefined || more.length > 0) {
    throw new BeaconError(
      "agent_id_not_in_certificate",
      more.length > 0
        ? `The client certificate names several agents in its ${where}`
        : `The client certificate names no agent in its ${where}`,
    );
  }
  if (!isValidIdentifier(value)) {
    throw new BeaconError(
      "agent_id_not_in_certificate",
      `The client certificate's ${where}, ${JSON.stringify(value)}, is not a valid agent identifier`,
    );
  }
  return value;
}

/**
 * The bindings as the agent API's configuration carries them (`BEACON_AGENT_CA_BINDINGS`), by CA subject
 * name: "*" for Beacon's own CAs; else a list of a tenant (bound by Beacon's rule) or
 * `{"tenant", "agentId"?, "publicKey"?}` (agentId spelt as identityRuleOf reads it) for each binding.
 */
export type CaBindingsSpelling = Record<string, "*" | Array<string | SpeltCaBinding>>;
interface SpeltCaBinding {
  tenant: string;
  agentId?: string;
  publicKey?: string;
}

export function spellCaBindings(bindings: CaBindings): CaBindingsSpelling {
  const spelt: CaBindingsSpelling = {};
  for (const [issuer, cas] of bindings) {
    const [only, ...more] = cas;
    if (
      only?.tenant === BEACON_TENANTS &&
      only.agentId.kind === "beacon" &&
      !only.publicKey &&
      !more.length
    ) {
      spelt[issuer] = BEACON_TENANTS;
      continue;
    }
    spelt[issuer] = cas.map(({ tenant, agentId, publicKey }) => {
      const rule = spellIdentityRule(agentId);
      if (rule === undefined && publicKey === undefined) return tenant;
      return {
        tenant,
        ...(rule === undefined ? {} : { agentId: rule }),
        ...(publicKey ? { publicKey } : {}),
      };
    });
  }
  return spelt;
}

/** The bindings spellCaBindings spelt; undefined for anything else. */
export function readCaBindings(spelt: unknown): CaBindings | undefined {
  if (typeof spelt !== "object" || spelt === null || Array.isArray(spelt)) return undefined;
  const bindings = new Map<string, CaBinding[]>();
  for (const [issuer, cas] of Object.entries(spelt)) {
    if (cas === BEACON_TENANTS) {
      bindings.set(issuer, [{ tenant: BEACON_TENANTS, agentId: { kind: "beacon" } }]);
      continue;
    }
    if (!Array.isArray(cas) || cas.length === 0) return undefined;
    const read = cas.map(readCaBinding);
    if (read.some((binding) => binding === undefined)) return undefined;
    bindings.set(issuer, read as CaBinding[]);
  }
  return bindings;
}

function readCaBinding(spelt: unknown): CaBinding | undefined {
  if (typeof spelt === "string") return { tenant: spelt, agentId: { kind: "beacon" } };
  if (typeof spelt !== "object" || spelt === null) return undefined;
  const { tenant, agentId, publicKey } = spelt as Record<string, unknown>;
  if (typeof tenant !== "string") return undefined;
  if (agentId !== undefined && typeof agentId !== "string") return undefined;
  if (publicKey !== undefined && typeof publicKey !== "string") return undefined;
  const rule = identityRuleOf(agentId);
  if (rule === undefined || (rule.kind !== "beacon" && !isValidIdentifier(tenant))) return undefined;
  return { tenant, agentId: rule, ...(publicKey === undefined ? {} : { publicKey }) };
}
