import { BeaconError } from "../errors.js";

/**
 * Who is calling the agent API, as proven by the client certificate and nothing else.
 * A fleet credential may speak for any agent of its tenant; an agent credential only for itself.
 */
export type AgentCredential =
  | { kind: "agent"; tenant: string; agentId: string; serialNumber: string }
  | { kind: "fleet"; tenant: string; fleetName: string; serialNumber: string };

/** Tenant and agent ids become key prefixes: keep them to a charset that cannot forge a key. */
const IDENTIFIER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

export const isValidIdentifier = (value: string): boolean => IDENTIFIER_PATTERN.test(value);

/** Splits an RFC 2253 distinguished name ("CN=a\,b,OU=agent,O=dev") into attribute pairs. */
export function parseDistinguishedName(dn: string): Map<string, string> {
  const attributes = new Map<string, string>();
  let key = "";
  let value = "";
  let readingValue = false;
  const flush = () => {
    const name = key.trim().toUpperCase();
    if (name && !attributes.has(name)) attributes.set(name, value.trim());
    key = "";
    value = "";
    readingValue = false;
  };
  for (let index = 0; index < dn.length; index++) {
    const char = dn[index] as string;
    if (char === "\\" && index + 1 < dn.length) {
      const escaped = dn[++index] as string;
      if (readingValue) value += escaped;
      else key += escaped;
    } else if (!readingValue && char === "=") {
      readingValue = true;
    } else if (char === "," || char === ";" || char === "+") {
      flush();
    } else if (readingValue) {
      value += char;
    } else {
      key += char;
    }
  }
  flush();
  return attributes;
}

/**
 * One spelling per serial number, whichever ingress reported it: upper-case hex without separators
 * or leading zeros. API Gateway and the ALB hand over the certificate itself, whose serial is hex.
 */
export function canonicalSerial(serial: string): string {
  const hex = serial.replace(/[:\s]/g, "").toUpperCase().replace(/^0+/, "");
  if (!/^[0-9A-F]*$/.test(hex)) {
    throw new BeaconError(
      "invalid_client_certificate",
      "The client certificate's serial number is not hexadecimal",
    );
  }
  return hex || "0";
}

export function credentialFromCertificate(subjectDN: string, serialNumber: string): AgentCredential {
  const subject = parseDistinguishedName(subjectDN);
  const tenant = subject.get("O");
  const unit = subject.get("OU")?.toLowerCase();
  const commonName = subject.get("CN");
  if (!tenant || !isValidIdentifier(tenant) || !commonName || !isValidIdentifier(commonName)) {
    throw new BeaconError(
      "invalid_client_certificate",
      "The client certificate does not name a Beacon tenant",
    );
  }
  const serial = canonicalSerial(serialNumber);
  if (unit === "agent") return { kind: "agent", tenant, agentId: commonName, serialNumber: serial };
  if (unit === "fleet") return { kind: "fleet", tenant, fleetName: commonName, serialNumber: serial };
  throw new BeaconError(
    "invalid_client_certificate",
    "The client certificate is neither an agent nor a fleet certificate",
  );
}

/**
 * Which tenants the certificates of each CA the agent ingress trusts may speak for, by the CA's subject name
 * (the name a certificate gives as its issuer): "*" for Beacon's own CAs, which put in O the tenant of the
 * console token that asked and so may speak for any tenant; a set for a tenant's own CA, bound to it.
 */
export type CaBindings = ReadonlyMap<string, "*" | ReadonlySet<string>>;

/**
 * The tenant a certificate names is its CA's to vouch for: the TLS handshake proved a trusted CA signed it,
 * and this proves that CA may speak for that tenant. A CA the bindings do not name speaks for no tenant.
 * Without bindings (none configured) every trusted CA is one of Beacon's own, and O is authoritative.
 */
export function assertTenantBoundToIssuer(
  credential: AgentCredential,
  issuerDN: string | undefined,
  bindings: CaBindings | undefined,
): void {
  if (bindings === undefined) return;
  const binding = issuerDN === undefined ? undefined : bindings.get(issuerDN);
  if (binding === "*" || binding?.has(credential.tenant)) return;
  throw new BeaconError(
    "tenant_not_bound_to_ca",
    binding === undefined
      ? "The client certificate's CA speaks for no Beacon tenant"
      : `The client certificate's CA may not speak for tenant ${credential.tenant}`,
  );
}

/** A client certificate as an ingress reports it: its subject, serial and issuer. */
export interface DistinguishedCertificate {
  subjectDN: string;
  serialNumber: string;
  issuerDN?: string;
}

/** The credential a client certificate proves, its tenant one its CA may speak for. */
export function credentialOfCertificate(
  certificate: DistinguishedCertificate,
  bindings: CaBindings | undefined,
): AgentCredential {
  const credential = credentialFromCertificate(certificate.subjectDN, certificate.serialNumber);
  assertTenantBoundToIssuer(credential, certificate.issuerDN, bindings);
  return credential;
}

/** Throws unless the credential may speak for this agent id. */
export function authorizeAgent(credential: AgentCredential, agentId: string): void {
  if (!isValidIdentifier(agentId)) {
    throw new BeaconError("invalid_payload", "agentInfo.identifier is not a valid agent identifier");
  }
  if (credential.kind === "agent" && credential.agentId !== agentId) {
    throw new BeaconError("identity_mismatch", "The client certificate belongs to another agent");
  }
}
