/**
 * A tenant's own PKI against the real agent API behind the real gateway, its CAs registered as `npm run
 * tenant-ca` registers them and followed by a running stack: certificates whose subjects are the customer's,
 * the agent id read by the CA's rule, the tenant by the CA alone, and look-alike CAs of two tenants told apart.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerTenantCa } from "../../scripts/local/certs.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { createCertificateAuthority, issueWithCa, type SigningAuthority } from "../adapters/x509/issuer.js";

/** The customer's own naming, which Beacon's rule would refuse. */
const CUSTOMER_SUBJECT = {
  commonName: "gw-plant7-012.acme.example",
  organizationalUnit: "Edge",
  organization: "Acme Corp",
};

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let acme: string;
let globex: string;
/** Two tenants' CAs bearing one subject name: acme's names the agent by CN, globex's speaks for any agent. */
let acmeCa: SigningAuthority;
let globexCa: SigningAuthority;

beforeAll(async () => {
  const run = randomUUID().slice(0, 6);
  acme = `acme-${run}`;
  globex = `globex-${run}`;
  agentApi = await startAgentApi({}, "streaming", { bindingsFromCertsFolder: true });
  consoleApi = await startConsoleApi(agentApi);
  acmeCa = await createCertificateAuthority("Edge Devices CA");
  globexCa = await createCertificateAuthority("Edge Devices CA");
  await registerTenantCa(agentApi.certsDir, { tenant: acme, caPem: acmeCa.certPem, agentId: "CN" });
  await registerTenantCa(agentApi.certsDir, { tenant: globex, caPem: globexCa.certPem, agentId: "*" });
  await agentApi.reloadTrust();
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

/** A certificate of `ca` with the customer's subject, in the certs folder under a name of its own. */
async function customerCertificate(ca: SigningAuthority): Promise<string> {
  const issued = await issueWithCa(ca, { subject: CUSTOMER_SUBJECT, usage: "clientAuth" });
  const name = `customer-${randomUUID().slice(0, 8)}`;
  writeFileSync(path.join(agentApi.certsDir, `${name}.pem`), issued.certPem);
  writeFileSync(path.join(agentApi.certsDir, `${name}.key`), issued.keyPem, { mode: 0o600 });
  return name;
}

const heartbeatAs = (certificate: string, agentId: string) =>
  agentApi.post(
    "/c2/api/heartbeat",
    { agentInfo: { identifier: agentId, agentClass: "edge-gateways" } },
    { certificate, newConnection: true },
  );

async function agentStatus(tenant: string, agentId: string): Promise<number> {
  const token = await consoleApi.token({ tenant, role: "viewer" });
  return (await consoleApi.request("GET", `/api/v1/agents/${encodeURIComponent(agentId)}`, { token })).status;
}

describe("a customer's PKI with the agent id in CN", () => {
  it("heartbeats as the agent its CN names, in the tenant its CA is registered for", async () => {
    const certificate = await customerCertificate(acmeCa);
    expect((await heartbeatAs(certificate, CUSTOMER_SUBJECT.commonName)).status).toBe(200);
    expect(await agentStatus(acme, CUSTOMER_SUBJECT.commonName)).toBe(200);
    expect(await agentStatus(globex, CUSTOMER_SUBJECT.commonName)).toBe(404);
  });

  it("refuses the certificate heartbeating for another agent, recording nothing", async () => {
    const certificate = await customerCertificate(acmeCa);
    const response = await heartbeatAs(certificate, "gw-plant7-013.acme.example");
    expect(response.status).toBe(403);
    expect(response.json()).toMatchObject({ error: { code: "identity_mismatch" } });
    expect(await agentStatus(acme, "gw-plant7-013.acme.example")).toBe(404);
  });

  it("refuses, by its own code, a CN that is no Beacon identifier", async () => {
    const issued = await issueWithCa(acmeCa, { subject: { commonName: "Gateway 12" }, usage: "clientAuth" });
    writeFileSync(path.join(agentApi.certsDir, "gateway-12.pem"), issued.certPem);
    writeFileSync(path.join(agentApi.certsDir, "gateway-12.key"), issued.keyPem, { mode: 0o600 });
    const response = await heartbeatAs("gateway-12", "gateway-12");
    expect(response.status).toBe(403);
    expect(response.json()).toMatchObject({ error: { code: "agent_id_not_in_certificate" } });
  });
});

describe("look-alike CAs of two tenants", () => {
  it("keep each CA's certificates in its own tenant, whatever the name they share", async () => {
    // globex's CA speaks for any agent of globex, never of acme.
    const globexCertificate = await customerCertificate(globexCa);
    for (const agentId of ["pump-1", CUSTOMER_SUBJECT.commonName])
      expect((await heartbeatAs(globexCertificate, agentId)).status).toBe(200);
    expect(await agentStatus(globex, "pump-1")).toBe(200);
    expect(await agentStatus(acme, "pump-1")).toBe(404);
    // acme's speaks for the agent its CN names in acme alone, never for globex's agents.
    const acmeCertificate = await customerCertificate(acmeCa);
    expect((await heartbeatAs(acmeCertificate, "pump-1")).status).toBe(403);
    expect(await agentStatus(acme, "pump-1")).toBe(404);
  });

  it("refuses a certificate of a third CA of the same name that no one registered: its handshake fails", async () => {
    const stranger = await createCertificateAuthority("Edge Devices CA");
    await expect(heartbeatAs(await customerCertificate(stranger), "pump-9")).rejects.toThrow();
  });

  it("trusts a CA registered while running at once, for its tenant, as npm start does", async () => {
    const lab = await createCertificateAuthority("Lab CA");
    const certificate = await customerCertificate(lab);
    await expect(heartbeatAs(certificate, CUSTOMER_SUBJECT.commonName)).rejects.toThrow();
    await registerTenantCa(agentApi.certsDir, { tenant: acme, caPem: lab.certPem, agentId: "CN" });
    await agentApi.reloadTrust();
    expect((await heartbeatAs(certificate, CUSTOMER_SUBJECT.commonName)).status).toBe(200);
  });
});
