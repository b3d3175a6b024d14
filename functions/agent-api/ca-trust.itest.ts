/**
 * The CAs the agent gateway trusts, and the tenants each may speak for, against the real agent API: a
 * rotation of Beacon's CA during which certificates of the old and the new CA both work until the old one is
 * retired, and a tenant's own CA that may speak for its tenant only.
 */
import { randomUUID, X509Certificate } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  agentTrust,
  caGenerations,
  createNextCa,
  retireCa,
  rotateCa,
  TENANT_CA_DIR,
} from "../../scripts/local/certs.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeat } from "../../scripts/test-support/console-seed.js";
import { deviceSigningRequest } from "../../scripts/test-support/device-requests.js";
import { createCertificateAuthority, issueWithCa, type SigningAuthority } from "../adapters/x509/issuer.js";
import { EnvNames } from "../shared/env-names.js";

/** Every generation of Beacon's dev CA bears this name: the binding below holds across a rotation. */
const BEACON_DEV_CA = "CN=Beacon Dev CA,O=Beacon";
const ACME_CA = "CN=Acme Devices CA,O=Beacon";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let run: string;
let acme: string;
let globex: string;
let acmeCa: SigningAuthority;
/** A CA the gateway trusts (it is in the tenant CA folder) that no binding names. */
let strayCa: SigningAuthority;

beforeAll(async () => {
  run = randomUUID().slice(0, 6);
  acme = `acme-${run}`;
  globex = `globex-${run}`;
  acmeCa = await createCertificateAuthority("Acme Devices CA");
  strayCa = await createCertificateAuthority("Stray CA");
  // The bindings the agent API reads at start, as npm start writes them from its certs folder.
  agentApi = await startAgentApi({
    [EnvNames.agentCaBindings]: JSON.stringify({ [BEACON_DEV_CA]: "*", [ACME_CA]: [acme] }),
  });
  consoleApi = await startConsoleApi(agentApi);
  mkdirSync(path.join(agentApi.certsDir, TENANT_CA_DIR));
  writeFileSync(path.join(agentApi.certsDir, TENANT_CA_DIR, `${acme}.pem`), acmeCa.certPem);
  writeFileSync(path.join(agentApi.certsDir, TENANT_CA_DIR, `stray-${run}.pem`), strayCa.certPem);
  await agentApi.reloadTrust();
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

/** A certificate of `ca` for an agent of `tenant`, in the certs folder under a name of its own. */
async function signedBy(ca: SigningAuthority, tenant: string, agentId: string): Promise<string> {
  const issued = await issueWithCa(ca, {
    subject: { commonName: agentId, organizationalUnit: "agent", organization: tenant },
    usage: "clientAuth",
  });
  const name = `${tenant}-${agentId}-by-${randomUUID().slice(0, 4)}`;
  writeFileSync(path.join(agentApi.certsDir, `${name}.pem`), issued.certPem);
  writeFileSync(path.join(agentApi.certsDir, `${name}.key`), issued.keyPem, { mode: 0o600 });
  return name;
}

/** One heartbeat on a connection of its own, so the handshake is made with the trust store as it is now. */
async function heartbeatOnNewConnection(certificate: string, tenant: string, agentId: string) {
  const body = { agentInfo: { identifier: agentId, agentClass: `${tenant}-pumps` } };
  return agentApi.post("/c2/api/heartbeat", body, { certificate, newConnection: true });
}

describe("rotating Beacon's agent CA", () => {
  it("keeps certificates of the old and the new CA working until the old one is retired, then refuses the old ones' handshake", async () => {
    const tenant = `rotate-${run}`;
    const old = await agentApi.issueCertificate({ tenant, agentId: "old-1" });
    const oldCa = new X509Certificate(readFileSync(path.join(agentApi.certsDir, "ca.pem")));
    expect((await heartbeatOnNewConnection(old, tenant, "old-1")).status).toBe(200);

    // The next CA is trusted before it signs anything.
    await createNextCa(agentApi.certsDir);
    await agentApi.reloadTrust();
    expect((await caGenerations(agentApi.certsDir)).map((ca) => ca.generation)).toEqual(["current", "next"]);
    expect((await heartbeatOnNewConnection(old, tenant, "old-1")).status).toBe(200);

    // Rotated: the new CA signs, the console's certificates included; the old one is still trusted.
    await rotateCa(agentApi.certsDir);
    await agentApi.reloadTrust();
    const newCa = new X509Certificate(readFileSync(path.join(agentApi.certsDir, "ca.pem")));
    expect(newCa.subject).toBe(oldCa.subject);
    expect(newCa.publicKey.equals(oldCa.publicKey)).toBe(false);
    const renewed = await agentApi.issueCertificate({ tenant, agentId: "new-1" });
    const { pem: csrPem, privateKeyPem } = await deviceSigningRequest({
      name: "ECDSA",
      namedCurve: "P-256",
      hash: "SHA-256",
    });
    const token = await consoleApi.token({ tenant, role: "admin" });
    const issued = await consoleApi.request("POST", "/api/v1/certificates", {
      token,
      body: { kind: "agent", agentId: "new-2", csrPem },
    });
    const consoleCertificate = new X509Certificate(issued.json().certificatePem as string);
    expect(consoleCertificate.verify(newCa.publicKey)).toBe(true);
    writeFileSync(path.join(agentApi.certsDir, "console-new-2.pem"), consoleCertificate.toString());
    writeFileSync(path.join(agentApi.certsDir, "console-new-2.key"), privateKeyPem, { mode: 0o600 });
    for (const [certificate, agentId] of [
      [old, "old-1"],
      [renewed, "new-1"],
      ["console-new-2", "new-2"],
    ] as const) {
      const response = await heartbeatOnNewConnection(certificate, tenant, agentId);
      expect(response.status, `${certificate} during the overlap`).toBe(200);
    }
    // The dev tenant's certificates were issued anew by the new CA.
    const devFleet = new X509Certificate(readFileSync(path.join(agentApi.certsDir, "dev-fleet.pem")));
    expect(devFleet.verify(newCa.publicKey)).toBe(true);

    // Retired: the old CA's certificates fail the handshake; the new CA's keep working.
    const { stranded } = await retireCa(agentApi.certsDir);
    expect(stranded).toContain(path.join(agentApi.certsDir, `${old}.pem`));
    await agentApi.reloadTrust();
    await expect(heartbeatOnNewConnection(old, tenant, "old-1")).rejects.toThrow();
    expect((await heartbeatOnNewConnection(renewed, tenant, "new-1")).status).toBe(200);
    expect((await heartbeatOnNewConnection("console-new-2", tenant, "new-2")).status).toBe(200);
  });

  it("refuses to rotate without a next CA, or to bring a third CA while a previous one is still trusted", async () => {
    await expect(rotateCa(agentApi.certsDir)).rejects.toThrow("no next CA");
    await createNextCa(agentApi.certsDir);
    await rotateCa(agentApi.certsDir);
    await expect(createNextCa(agentApi.certsDir)).rejects.toThrow("retire it first");
    await retireCa(agentApi.certsDir);
    await createNextCa(agentApi.certsDir);
    await rotateCa(agentApi.certsDir);
    await retireCa(agentApi.certsDir);
    await agentApi.reloadTrust();
    expect((await caGenerations(agentApi.certsDir)).map((ca) => ca.generation)).toEqual(["current"]);
  });
});

describe("tenancy bound to the CA that signed the certificate", () => {
  it("reads the bindings from the certs folder as npm start does: Beacon's CA for every tenant, a tenant's CA for its own", async () => {
    expect((await agentTrust(agentApi.certsDir)).bindings).toEqual({
      [BEACON_DEV_CA]: "*",
      [ACME_CA]: [acme],
      "CN=Stray CA,O=Beacon": [`stray-${run}`],
    });
  });

  it("accepts a tenant's CA for its own tenant", async () => {
    const certificate = await signedBy(acmeCa, acme, "pump-1");
    expect(await heartbeat(agentApi, certificate, "pump-1", `${acme}-pumps`, `${acme}-manifest`)).toBe(200);
  });

  it("refuses a certificate a trusted tenant CA signed for another tenant, recording nothing", async () => {
    const certificate = await signedBy(acmeCa, globex, "pump-1");
    const response = await heartbeatOnNewConnection(certificate, globex, "pump-1");
    expect(response.status).toBe(403);
    expect(response.json()).toEqual({
      error: {
        code: "tenant_not_bound_to_ca",
        message: `The client certificate's CA may not speak for tenant ${globex}`,
      },
    });
    const token = await consoleApi.token({ tenant: globex, role: "viewer" });
    expect((await consoleApi.request("GET", "/api/v1/agents/pump-1", { token })).status).toBe(404);
  });

  it("refuses a certificate of a trusted CA that no binding names, for any tenant", async () => {
    const certificate = await signedBy(strayCa, `stray-${run}`, "pump-1");
    const response = await heartbeatOnNewConnection(certificate, `stray-${run}`, "pump-1");
    expect(response.status).toBe(403);
    expect(response.json()).toMatchObject({
      error: {
        code: "tenant_not_bound_to_ca",
        message: "The client certificate's CA speaks for no Beacon tenant",
      },
    });
  });

  it("fails the handshake of a certificate no trusted CA signed", async () => {
    const untrusted = await createCertificateAuthority("Acme Devices CA");
    const certificate = await signedBy(untrusted, acme, "pump-1");
    await expect(heartbeatOnNewConnection(certificate, acme, "pump-1")).rejects.toThrow();
  });

  it("lets Beacon's own CA speak for any tenant: O is authoritative, as Beacon chose it", async () => {
    for (const tenant of [acme, globex]) {
      const certificate = await agentApi.issueCertificate({ tenant, fleet: true });
      expect((await heartbeatOnNewConnection(certificate, tenant, "pump-2")).status).toBe(200);
    }
  });
});
