import { X509Certificate } from "node:crypto";
import { distinguishedName } from "../../core/identity/distinguished-name.js";

/** A tenant's own CA, trusted beside Beacon's and bound to that tenant. */
export interface TenantCa {
  tenant: string;
  pem: string;
}

export interface AgentTrust {
  /** Every CA the agent ingress trusts, as one PEM bundle: its truststore. */
  bundlePem: string;
  /**
   * Which tenants each CA's certificates may speak for, by the CA's subject name as the agent API reads
   * certificates' issuers (`BEACON_AGENT_CA_BINDINGS`): "*" for Beacon's own CAs, which chose O themselves.
   */
  bindings: Record<string, "*" | string[]>;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The agent ingress's trust store and the agent API's bindings, from one list of CAs: Beacon's own (the CA
 * bundle, however many generations it holds during a rotation) and tenants' own. A certificate's issuer
 * names the CA that signed it, so a trusted CA's subject must name it alone, unless both are Beacon's.
 */
export function agentTrustOf(beaconCasPem: string, tenantCas: TenantCa[]): AgentTrust {
  const beacon = certificatesIn(beaconCasPem);
  if (beacon.length === 0) throw new Error("The agent CA bundle holds no certificate");
  const bindings: AgentTrust["bindings"] = {};
  for (const certificate of beacon) bindings[distinguishedName(certificate.subject)] = "*";
  const tenants = tenantCas.map(({ tenant, pem }) => {
    const [certificate, ...more] = certificatesIn(pem);
    if (!certificate || more.length > 0) throw new Error(`Tenant ${tenant}'s CA must be one PEM certificate`);
    const name = distinguishedName(certificate.subject);
    if (bindings[name] !== undefined) {
      throw new Error(
        `Tenant ${tenant}'s CA is named ${name}, as another trusted CA is: give it a name of its own`,
      );
    }
    bindings[name] = [tenant];
    return certificate;
  });
  const bundlePem = [...beacon, ...tenants].map((certificate) => certificate.toString()).join("");
  return { bundlePem, bindings };
}

function certificatesIn(pem: string): X509Certificate[] {
  return (pem.match(PEM_CERTIFICATE) ?? []).map((block) => new X509Certificate(block));
}
