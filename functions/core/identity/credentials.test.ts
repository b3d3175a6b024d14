import { describe, expect, it } from "vitest";
import { type AgentCredential, assertTenantBoundToIssuer, type CaBindings } from "./credentials.js";

const BEACON_CA = "CN=Beacon Agent CA,O=Beacon";
const ACME_CA = "CN=Acme Devices CA,O=Acme";
const bindings: CaBindings = new Map<string, "*" | ReadonlySet<string>>([
  [BEACON_CA, "*"],
  [ACME_CA, new Set(["acme"])],
]);
const of = (tenant: string): AgentCredential => ({
  kind: "agent",
  tenant,
  agentId: "pump-1",
  serialNumber: "0A",
});

describe("assertTenantBoundToIssuer", () => {
  it("lets Beacon's own CA speak for every tenant, and a tenant's CA for its own", () => {
    for (const tenant of ["acme", "globex"])
      expect(() => assertTenantBoundToIssuer(of(tenant), BEACON_CA, bindings)).not.toThrow();
    expect(() => assertTenantBoundToIssuer(of("acme"), ACME_CA, bindings)).not.toThrow();
  });

  it("refuses a tenant's CA speaking for another tenant", () => {
    expect(() => assertTenantBoundToIssuer(of("globex"), ACME_CA, bindings)).toThrow(
      expect.objectContaining({ code: "tenant_not_bound_to_ca" }),
    );
  });

  it("refuses a CA the bindings do not name, or a certificate whose issuer is not known", () => {
    for (const issuer of ["CN=Stray CA", undefined])
      expect(() => assertTenantBoundToIssuer(of("acme"), issuer, bindings)).toThrow(
        expect.objectContaining({ code: "tenant_not_bound_to_ca" }),
      );
  });

  it("takes every trusted CA for Beacon's own when no bindings are configured", () => {
    expect(() => assertTenantBoundToIssuer(of("acme"), "CN=Anything", undefined)).not.toThrow();
  });
});
