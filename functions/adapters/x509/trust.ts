import { X509Certificate } from "node:crypto";
import {
  BEACON_TENANTS,
  type CaBinding,
  type CaBindingsSpelling,
  IDENTITY_RULE_SPELLINGS,
  identityRuleOf,
  spellCaBindings,
  spellIdentityRule,
} from "../../core/identity/ca-bindings.js";
import { isValidIdentifier } from "../../core/identity/credentials.js";
import { distinguishedName } from "../../core/identity/distinguished-name.js";
import { publicKeyOfCa } from "./certificate-evidence.js";

/**
 * A tenant's own CA, trusted beside Beacon's and bound to that tenant, with the rule by which its
 * certificates name the agent they speak for (as identityRuleOf reads it; absent: Beacon's own rule).
 */
export interface TenantCa {
  tenant: string;
  pem: string;
  agentId?: string;
}

export interface AgentTrust {
  /** Every CA the agent ingress trusts, as one PEM bundle: its truststore. */
  bundlePem: string;
  /**
   * Which tenants each CA's certificates may speak for, and how they name their agent, by the CA's subject
   * name as the agent API reads certificates' issuers (`BEACON_AGENT_CA_BINDINGS`): "*" for Beacon's own CAs,
   * which chose O themselves.
   */
  bindings: CaBindingsSpelling;
  /**
   * The SHA-256 fingerprints of Beacon's own CAs in the bundle (`BEACON_TRUSTED_CA_FINGERPRINTS`): the signers of
   * the certificates Beacon issued that the ingress still takes, so that a retired CA's are not listed valid.
   */
  beaconCaFingerprints: string[];
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

interface TrustedCa {
  certificate: X509Certificate;
  binding: CaBinding;
}

/**
 * The agent ingress's trust store and the agent API's bindings, from one list of CAs: Beacon's own (the CA
 * bundle, however many generations it holds during a rotation) and tenants' own (several for one tenant
 * during a rotation). CAs may share a subject name: where CAs so named are bound alike (Beacon's generations,
 * a tenant's), the name tells the binding; where they are bound otherwise (two tenants' look-alike CAs), each
 * binding carries its CA's public key, by which the agent API tells which of them signed a certificate.
 */
export function agentTrustOf(beaconCasPem: string, tenantCas: TenantCa[]): AgentTrust {
  const beacon = certificatesIn(beaconCasPem);
  if (beacon.length === 0) throw new Error("The agent CA bundle holds no certificate");
  const trusted: TrustedCa[] = beacon.map((certificate) => ({
    certificate,
    binding: { tenant: BEACON_TENANTS, agentId: { kind: "beacon" } },
  }));
  for (const { tenant, pem, agentId } of tenantCas) {
    const [certificate, ...more] = certificatesIn(pem);
    if (!certificate || more.length > 0) throw new Error(`Tenant ${tenant}'s CA must be one PEM certificate`);
    const rule = identityRuleOf(agentId);
    if (rule === undefined)
      throw new Error(
        `Tenant ${tenant}'s CA has agentId ${JSON.stringify(agentId)}: use ${IDENTITY_RULE_SPELLINGS}`,
      );
    const twin = trusted.find((other) => other.certificate.raw.equals(certificate.raw));
    if (twin && !sameBinding(twin.binding, { tenant, agentId: rule })) {
      throw new Error(
        `The CA ${distinguishedName(certificate.subject)} is given to tenant ${tenant} and to ${twin.binding.tenant}: ` +
          "a CA speaks for one tenant, by one rule",
      );
    }
    if (!twin) trusted.push({ certificate, binding: { tenant, agentId: rule } });
  }
  const byName = new Map<string, TrustedCa[]>();
  for (const ca of trusted) {
    const name = distinguishedName(ca.certificate.subject);
    byName.set(name, [...(byName.get(name) ?? []), ca]);
  }
  const bindings = new Map<string, CaBinding[]>();
  for (const [name, cas] of byName) {
    const [first] = cas as [TrustedCa];
    const alike = cas.every(({ binding }) => sameBinding(binding, first.binding));
    bindings.set(
      name,
      alike
        ? [first.binding]
        : cas.map(({ certificate, binding }) => ({ ...binding, publicKey: publicKeyOfCa(certificate) })),
    );
  }
  const bundlePem = trusted.map(({ certificate }) => certificate.toString()).join("");
  return {
    bundlePem,
    bindings: spellCaBindings(bindings),
    beaconCaFingerprints: beacon.map((certificate) => certificate.fingerprint256),
  };
}

const sameBinding = (one: CaBinding, other: CaBinding): boolean =>
  one.tenant === other.tenant && spellIdentityRule(one.agentId) === spellIdentityRule(other.agentId);

function certificatesIn(pem: string): X509Certificate[] {
  return (pem.match(PEM_CERTIFICATE) ?? []).map((block) => new X509Certificate(block));
}

/** One tenant CA as the deployment registers it: its PEM file and its rule (identityRuleOf's spelling). */
export interface TenantCaRegistration {
  tenant: string;
  ca: string;
  agentId?: string;
}

/**
 * The registrations of tenants' CAs, as the `agentTenantCas` context file and the local certs folder's
 * `tenant-cas/tenant-cas.json` hold them: `{"<tenant>": [{"ca": "<PEM file>", "agentId": "<rule>"}, …]}`,
 * several CAs a tenant during a rotation; `{"<tenant>": "<PEM file>"}` is one CA by Beacon's own rule.
 */
export function tenantCaRegistrationsOf(parsed: unknown, where: string): TenantCaRegistration[] {
  const invalid = (why: string) =>
    new Error(
      `${where}: ${why}; it maps tenants to "<PEM file>" or [{"ca": "<PEM file>", "agentId": <rule>}]`,
    );
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw invalid("not an object");
  return Object.entries(parsed).flatMap(([tenant, cas]) => {
    if (!isValidIdentifier(tenant)) throw invalid(`${JSON.stringify(tenant)} is not a valid tenant`);
    if (typeof cas === "string") return [{ tenant, ca: cas }];
    if (!Array.isArray(cas)) throw invalid(`tenant ${tenant}'s value is neither`);
    return cas.map((entry: unknown) => {
      const { ca, agentId } = (entry ?? {}) as Record<string, unknown>;
      if (typeof ca !== "string") throw invalid(`a CA of tenant ${tenant} names no PEM file`);
      if (agentId !== undefined && (typeof agentId !== "string" || identityRuleOf(agentId) === undefined))
        throw invalid(
          `tenant ${tenant}'s CA ${ca} has agentId ${JSON.stringify(agentId)}: use ${IDENTITY_RULE_SPELLINGS}`,
        );
      return { tenant, ca, ...(agentId === undefined ? {} : { agentId }) };
    });
  });
}

/** The registrations in tenantCaRegistrationsOf's format, a list for every tenant. */
export function spellTenantCaRegistrations(
  registrations: TenantCaRegistration[],
): Record<string, Array<Omit<TenantCaRegistration, "tenant">>> {
  const spelt: Record<string, Array<Omit<TenantCaRegistration, "tenant">>> = {};
  for (const { tenant, ...registration } of registrations)
    spelt[tenant] = [...(spelt[tenant] ?? []), registration];
  return spelt;
}
