import { createHash } from "node:crypto";
import { BeaconError } from "../errors.js";

/**
 * Who is calling the agent API, as proven by the client certificate and nothing else.
 * A fleet credential may speak for any agent of its tenant; an agent credential only for itself.
 */
export type AgentCredential = (
  | { kind: "agent"; tenant: string; agentId: string; serialNumber: string }
  | { kind: "fleet"; tenant: string; fleetName: string; serialNumber: string }
) & {
  /** Present for a certificate of a tenant's own CA, whose serial is then qualified by that CA. */
  tenantCa?: TenantCaCertificate;
};

/**
 * A certificate of a tenant's own CA, which Beacon did not issue: what the certificate store records of it
 * when an agent first presents it.
 */
export interface TenantCaCertificate {
  /** The issuing CA, as tenantCaIdOf names it. */
  caId: string;
  subjectDN: string;
  /** Read from the certificate only when it is recorded; undefined where the ingress passed no PEM. */
  validity(): { notBefore: number; notAfter: number } | undefined;
}

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

/** 64 bits of a SHA-256, in hex: enough to tell apart the few CAs one tenant registers. */
const TENANT_CA_ID_LENGTH = 16;

/**
 * The id of a tenant's CA, which qualifies its certificates' serials: from its name and the key identifier its
 * certificates carry (their authority key identifier, which changes with the CA's key), so that two CAs of one
 * tenant (a rotation, two plants' CAs) and Beacon's own, which may all issue the same serial, are told apart.
 * A certificate without one is told apart by its CA's name alone.
 */
export function tenantCaIdOf(issuerDN: string, authorityKeyId: string | undefined): string {
  return createHash("sha256")
    .update(`${issuerDN}\n${authorityKeyId ?? ""}`)
    .digest("hex")
    .slice(0, TENANT_CA_ID_LENGTH)
    .toUpperCase();
}

/** A tenant CA's certificate's serial, qualified by its CA: `<CA id>.<serial>`. Beacon's own stay unqualified. */
export const qualifiedSerial = (caId: string, serial: string): string => `${caId}.${serial}`;

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

/** Throws unless the credential may speak for this agent id. */
export function authorizeAgent(credential: AgentCredential, agentId: string): void {
  if (!isValidIdentifier(agentId)) {
    throw new BeaconError("invalid_payload", "agentInfo.identifier is not a valid agent identifier");
  }
  if (credential.kind === "agent" && credential.agentId !== agentId) {
    throw new BeaconError("identity_mismatch", "The client certificate belongs to another agent");
  }
}
