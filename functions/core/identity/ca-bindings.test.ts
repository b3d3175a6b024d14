import { describe, expect, it } from "vitest";
import {
  type CaBinding,
  type CaBindings,
  type CertificateEvidence,
  credentialOfCertificate,
  type DistinguishedCertificate,
  IDENTITY_RULE_SPELLINGS,
  identityRuleOf,
  readCaBindings,
  spellCaBindings,
  spellIdentityRule,
} from "./ca-bindings.js";
import { tenantCaIdOf } from "./credentials.js";

const BEACON_CA = "CN=Beacon Agent CA,O=Beacon";
const ACME_CA = "CN=Acme Devices CA,O=Acme";
const EDGE_CA = "CN=Edge CA";
const beacon: CaBinding = { tenant: "*", agentId: { kind: "beacon" } };
const bindings: CaBindings = new Map([
  [BEACON_CA, [beacon]],
  [ACME_CA, [{ tenant: "acme", agentId: { kind: "beacon" } }]],
  ["CN=Acme Edge CA", [{ tenant: "acme", agentId: { kind: "attribute", attribute: "CN" } }]],
  ["CN=Acme UID CA", [{ tenant: "acme", agentId: { kind: "attribute", attribute: "UID" } }]],
  ["CN=Acme SAN CA", [{ tenant: "acme", agentId: { kind: "san", type: "DNS" } }]],
  ["CN=Acme Fleet CA", [{ tenant: "acme", agentId: { kind: "fleet" } }]],
  // Two tenants' look-alike CAs: the key that verifies the signature tells which.
  [
    EDGE_CA,
    [
      { tenant: "acme", agentId: { kind: "attribute", attribute: "CN" }, publicKey: "acme-key" },
      { tenant: "globex", agentId: { kind: "fleet" }, publicKey: "globex-key" },
    ],
  ],
]);

/** What a certificate signed by `signer` with these subject alternative names tells of itself. */
const evidence = (signer: string, dnsNames: string[] = [], authorityKeyId?: string): CertificateEvidence => ({
  signedBy: (publicKey) => publicKey === signer,
  subjectAltNames: (type) => (type === "DNS" ? dnsNames : []),
  authorityKeyId: () => authorityKeyId,
  validity: () => ({ notBefore: 1_000, notAfter: 2_000 }),
});

/** The serial "0a" of a certificate of the tenant CA `issuerDN`, as the credential spells it. */
const tenantCaSerial = (issuerDN: string, authorityKeyId?: string) =>
  `${tenantCaIdOf(issuerDN, authorityKeyId)}.A`;
const ofTenantCa = (issuerDN: string, subjectDN: string) => ({
  caId: tenantCaIdOf(issuerDN, undefined),
  subjectDN,
  validity: expect.any(Function),
});

const certificate = (
  subjectDN: string,
  issuerDN: string | undefined,
  more: Partial<DistinguishedCertificate> = {},
): DistinguishedCertificate => ({ subjectDN, issuerDN, serialNumber: "0a", ...more });

const CUSTOMER_DN = "CN=gw-plant7-012.acme.example,OU=Edge,O=Acme Corp";
const refusal = (code: string) => expect.objectContaining({ code });

describe("credentialOfCertificate by Beacon's rule", () => {
  const of = (tenant: string) => certificate(`CN=pump-1,OU=agent,O=${tenant}`, ACME_CA);

  it("lets Beacon's own CA speak for every tenant, and a tenant's CA for its own", () => {
    for (const tenant of ["acme", "globex"])
      expect(credentialOfCertificate({ ...of(tenant), issuerDN: BEACON_CA }, bindings).tenant).toBe(tenant);
    expect(credentialOfCertificate(of("acme"), bindings)).toEqual({
      kind: "agent",
      tenant: "acme",
      agentId: "pump-1",
      serialNumber: tenantCaSerial(ACME_CA),
      tenantCa: ofTenantCa(ACME_CA, "CN=pump-1,OU=agent,O=acme"),
    });
  });

  it("refuses a tenant's CA speaking for another tenant", () => {
    expect(() => credentialOfCertificate(of("globex"), bindings)).toThrow(refusal("tenant_not_bound_to_ca"));
  });

  it("refuses a CA the bindings do not name, or a certificate whose issuer is not known", () => {
    for (const issuerDN of ["CN=Stray CA", undefined])
      expect(() => credentialOfCertificate({ ...of("acme"), issuerDN }, bindings)).toThrow(
        refusal("tenant_not_bound_to_ca"),
      );
  });

  it("takes every trusted CA for Beacon's own when no bindings are configured", () => {
    expect(credentialOfCertificate({ ...of("acme"), issuerDN: "CN=Anything" }, undefined).tenant).toBe(
      "acme",
    );
  });

  it("refuses a customer's DN, which does not name a Beacon tenant", () => {
    expect(() => credentialOfCertificate(certificate(CUSTOMER_DN, BEACON_CA), bindings)).toThrow(
      refusal("invalid_client_certificate"),
    );
  });
});

describe("credentialOfCertificate by a tenant CA's rule", () => {
  it("reads the agent id from the named subject attribute, the tenant from the CA, never from O", () => {
    expect(credentialOfCertificate(certificate(CUSTOMER_DN, "CN=Acme Edge CA"), bindings)).toEqual({
      kind: "agent",
      tenant: "acme",
      agentId: "gw-plant7-012.acme.example",
      serialNumber: tenantCaSerial("CN=Acme Edge CA"),
      tenantCa: ofTenantCa("CN=Acme Edge CA", CUSTOMER_DN),
    });
    const uid = certificate("UID=meter-7,CN=Meter seven,O=globex", "CN=Acme UID CA");
    expect(credentialOfCertificate(uid, bindings)).toMatchObject({ tenant: "acme", agentId: "meter-7" });
  });

  it("reads the agent id from the one subject alternative name of the type", () => {
    const issued = certificate("CN=Gateway 12", "CN=Acme SAN CA", {
      evidence: evidence("", ["gw-12.acme.example", "gw-12.acme.example"]),
    });
    expect(credentialOfCertificate(issued, bindings)).toMatchObject({ agentId: "gw-12.acme.example" });
  });

  it.each([
    ["no such attribute", certificate("CN=meter-7", "CN=Acme UID CA")],
    ["a value that is no Beacon identifier", certificate("CN=Gateway twelve,O=Acme", "CN=Acme Edge CA")],
    ["no name of the type", certificate("CN=gw", "CN=Acme SAN CA", { evidence: evidence("") })],
    ["no certificate to read names from", certificate("CN=gw", "CN=Acme SAN CA")],
    ["several agents", certificate("CN=gw", "CN=Acme SAN CA", { evidence: evidence("", ["gw-1", "gw-2"]) })],
  ])("refuses a certificate with %s, by its own code", (_, issued) => {
    expect(() => credentialOfCertificate(issued, bindings)).toThrow(refusal("agent_id_not_in_certificate"));
  });

  it("lets a fleet-rule CA's certificate speak for any agent of its tenant alone", () => {
    expect(
      credentialOfCertificate(certificate("CN=whatever,O=globex", "CN=Acme Fleet CA"), bindings),
    ).toEqual({
      kind: "fleet",
      tenant: "acme",
      fleetName: "*",
      serialNumber: tenantCaSerial("CN=Acme Fleet CA"),
      tenantCa: ofTenantCa("CN=Acme Fleet CA", "CN=whatever,O=globex"),
    });
  });
});

describe("the serials of tenant CAs' certificates", () => {
  const of = (issuerDN: string, authorityKeyId?: string) =>
    credentialOfCertificate(
      certificate(CUSTOMER_DN, issuerDN, { evidence: evidence("", [], authorityKeyId) }),
      bindings,
    );

  it("leave Beacon's own certificates' serials as they are, with nothing to record", () => {
    const beaconIssued = certificate("CN=pump-1,OU=agent,O=acme", BEACON_CA, { evidence: evidence("") });
    expect(credentialOfCertificate(beaconIssued, bindings)).toEqual({
      kind: "agent",
      tenant: "acme",
      agentId: "pump-1",
      serialNumber: "A",
    });
  });

  it("tell apart one serial of two CAs of one name and tenant by their key identifiers (a rotation)", () => {
    const before = of("CN=Acme Edge CA", "aa01");
    const after = of("CN=Acme Edge CA", "bb02");
    expect(before.serialNumber).toBe(tenantCaSerial("CN=Acme Edge CA", "aa01"));
    expect(before.serialNumber).toMatch(/^[0-9A-F]{16}\.A$/);
    expect(after.serialNumber).not.toBe(before.serialNumber);
    expect(of("CN=Acme Edge CA", "aa01").serialNumber).toBe(before.serialNumber);
  });

  it("tell apart one serial of two CAs of one tenant by their names, key identifiers or not", () => {
    expect(of("CN=Acme Edge CA").serialNumber).not.toBe(of("CN=Acme Edge CA", "x").serialNumber);
    expect(of("CN=Acme Edge CA").serialNumber).not.toBe(of("CN=Acme Fleet CA").serialNumber);
  });

  it("carry the certificate's validity, read only when asked", () => {
    expect(of("CN=Acme Edge CA").tenantCa?.validity()).toEqual({ notBefore: 1_000, notAfter: 2_000 });
    expect(
      credentialOfCertificate(certificate(CUSTOMER_DN, "CN=Acme Edge CA"), bindings).tenantCa?.validity(),
    ).toBe(undefined);
  });
});

describe("credentialOfCertificate where look-alike CAs share a name", () => {
  it("binds the certificate to the CA whose key verifies its signature", () => {
    const acme = certificate(CUSTOMER_DN, EDGE_CA, { evidence: evidence("acme-key") });
    expect(credentialOfCertificate(acme, bindings)).toMatchObject({ tenant: "acme", kind: "agent" });
    const globex = certificate(CUSTOMER_DN, EDGE_CA, { evidence: evidence("globex-key") });
    expect(credentialOfCertificate(globex, bindings)).toMatchObject({ tenant: "globex", kind: "fleet" });
  });

  it("refuses a certificate no candidate's key verifies, or one the ingress did not pass whole", () => {
    for (const issued of [
      certificate(CUSTOMER_DN, EDGE_CA, { evidence: evidence("another-key") }),
      certificate(CUSTOMER_DN, EDGE_CA),
    ])
      expect(() => credentialOfCertificate(issued, bindings)).toThrow(refusal("tenant_not_bound_to_ca"));
  });

  it("asks for no proof where CAs sharing a name are bound alike", () => {
    const alike: CaBindings = new Map([[BEACON_CA, [beacon]]]);
    const signedBy = () => {
      throw new Error("no signature is verified where the name suffices");
    };
    const issued = certificate("CN=pump-1,OU=agent,O=acme", BEACON_CA, {
      evidence: { ...evidence(""), signedBy },
    });
    expect(credentialOfCertificate(issued, alike).tenant).toBe("acme");
  });
});

describe("the rules' and the bindings' spelling", () => {
  it.each([undefined, "*", "CN", "UID", "serialNumber", "SAN:DNS", "SAN:URI", "SAN:email"])(
    "reads %s back as it spells it",
    (spelling) => {
      const rule = identityRuleOf(spelling);
      expect(rule).toBeDefined();
      expect(spellIdentityRule(rule as NonNullable<typeof rule>)).toBe(spelling);
    },
  );

  it.each(["", "SAN:IP", "C N", "CN=x", "9CN"])("refuses %j as a rule", (spelling) => {
    expect(identityRuleOf(spelling)).toBeUndefined();
    expect(IDENTITY_RULE_SPELLINGS).toContain("SAN:DNS");
  });

  it("reads what it spells, and the old form of a tenant's list", () => {
    expect(readCaBindings(spellCaBindings(bindings))).toEqual(bindings);
    expect(spellCaBindings(bindings)).toMatchObject({
      [BEACON_CA]: "*",
      [ACME_CA]: ["acme"],
      "CN=Acme Edge CA": [{ tenant: "acme", agentId: "CN" }],
    });
    expect(readCaBindings({ [ACME_CA]: ["acme", "acme-lab"] })?.get(ACME_CA)).toEqual([
      { tenant: "acme", agentId: { kind: "beacon" } },
      { tenant: "acme-lab", agentId: { kind: "beacon" } },
    ]);
  });

  it.each([
    [[]],
    { x: [] },
    { x: "acme" },
    { x: [1] },
    { x: [{ tenant: "a b", agentId: "CN" }] },
    {
      x: [{ tenant: "acme", agentId: "SAN:IP" }],
    },
  ])("refuses %j", (spelt) => {
    expect(readCaBindings(spelt)).toBeUndefined();
  });
});
