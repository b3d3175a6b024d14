/**
 * A tenant's own PKI against the real agent API behind the real gateway, its CAs registered as `npm run
 * tenant-ca` registers them and followed by a running stack: certificates whose subjects are the customer's,
 * the agent id read by the CA's rule, the tenant by the CA alone, and look-alike CAs of two tenants told apart.
 */
import { randomUUID, X509Certificate } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cppAckOf, cppHeartbeatOf } from "../../scripts/common/c2-examples.js";
import { registerTenantCa } from "../../scripts/local/certs.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { readWholeStream } from "../../scripts/test-support/stream-reader.js";
import { until, untilTrue } from "../../scripts/test-support/until.js";
import { REVOCATION_LIST_TTL_SECONDS } from "../adapters/redis/hot-state.js";
import {
  type CertificateSubject,
  createCertificateAuthority,
  issueWithCa,
  type SigningAuthority,
} from "../adapters/x509/issuer.js";
import { AgentRoutes } from "../core/c2/routes.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { EnvNames } from "../shared/env-names.js";

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

/** Issued certificates by their name in the certs folder. */
const issuedPems = new Map<string, string>();

/** A certificate of `ca` with the customer's subject, in the certs folder under a name of its own. */
async function customerCertificate(
  ca: SigningAuthority,
  subject: CertificateSubject = CUSTOMER_SUBJECT,
  validityDays?: number,
): Promise<string> {
  const issued = await issueWithCa(ca, { subject, usage: "clientAuth", validityDays });
  const name = `customer-${randomUUID().slice(0, 8)}`;
  writeFileSync(path.join(agentApi.certsDir, `${name}.pem`), issued.certPem);
  writeFileSync(path.join(agentApi.certsDir, `${name}.key`), issued.keyPem, { mode: 0o600 });
  issuedPems.set(name, issued.certPem);
  return name;
}

const heartbeatAs = (certificate: string, agentId: string) =>
  agentApi.post(
    "/c2/api/heartbeat",
    { agentInfo: { identifier: agentId, agentClass: "edge-gateways" } },
    { certificate, newConnection: true },
  );

/** The events on the stream of the tenant's agent. */
async function streamEventsOf(tenant: string, agentId: string) {
  const events = await readWholeStream(
    makeKinesisClient(agentApi.env),
    agentApi.env[EnvNames.streamName] as string,
  );
  return (events as { tenant?: string; agentId?: string; type?: string }[]).filter(
    (event) => event.tenant === tenant && event.agentId === agentId,
  );
}

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
    // The certificate's own agent's heartbeat after it is on the stream: the refused one would be before it.
    expect((await heartbeatAs(certificate, CUSTOMER_SUBJECT.commonName)).status).toBe(200);
    await until("the accepted heartbeat's event on the stream", async () =>
      (await streamEventsOf(acme, CUSTOMER_SUBJECT.commonName)).length > 0 ? true : undefined,
    );
    expect(await streamEventsOf(acme, "gw-plant7-013.acme.example")).toEqual([]);
    expect((await certificatesOf(acme)).map(({ agentId }) => agentId)).not.toContain(
      "gw-plant7-013.acme.example",
    );
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

describe("a MiNiFi C++ agent configured for the incumbent, with the customer's certificate", () => {
  const heartbeatPath = AgentRoutes.heartbeat.incumbentPath;
  const acknowledgePath = AgentRoutes.acknowledge.incumbentPath;

  it.each([{ gzip: false }, { gzip: true }])(
    "heartbeats and acknowledges at the incumbent's paths as the agent its CN names (gzip $gzip)",
    async ({ gzip }) => {
      const agentId = `gw-${randomUUID().slice(0, 8)}.acme.example`;
      const certificate = await customerCertificate(acmeCa, { ...CUSTOMER_SUBJECT, commonName: agentId });
      const first = await agentApi.post(heartbeatPath, cppHeartbeatOf(agentId, "plant7", true), {
        certificate,
        gzip,
      });
      expect(first.status).toBe(200);
      const operations = (first.json() as { requestedOperations: { identifier: string }[] })
        .requestedOperations;
      for (const operation of operations) {
        const ack = await agentApi.post(
          acknowledgePath,
          cppAckOf(agentId, operation.identifier, "FULLY_APPLIED"),
          {
            certificate,
            gzip,
          },
        );
        expect(ack.status).toBe(200);
      }
      const second = await agentApi.post(heartbeatPath, cppHeartbeatOf(agentId, "plant7"), {
        certificate,
        gzip,
      });
      expect(second.json()).toEqual({ requestedOperations: [] });
      expect(await agentStatus(acme, agentId)).toBe(200);
      expect(await agentStatus(globex, agentId)).toBe(404);
    },
  );

  it("refuses a heartbeat for another agent id at the incumbent's path (403), recording nothing", async () => {
    const agentId = `gw-${randomUUID().slice(0, 8)}.acme.example`;
    const other = `gw-${randomUUID().slice(0, 8)}.acme.example`;
    const certificate = await customerCertificate(acmeCa, { ...CUSTOMER_SUBJECT, commonName: agentId });
    const refused = await agentApi.post(heartbeatPath, cppHeartbeatOf(other, "plant7", true), {
      certificate,
    });
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({ error: { code: "identity_mismatch" } });
    // The certificate's own agent's heartbeat after it is on the stream: the refused one would be before it.
    expect(
      (await agentApi.post(heartbeatPath, cppHeartbeatOf(agentId, "plant7"), { certificate })).status,
    ).toBe(200);
    await until("the accepted heartbeat's event on the stream", async () =>
      (await streamEventsOf(acme, agentId)).length > 0 ? true : undefined,
    );
    expect(await streamEventsOf(acme, other)).toEqual([]);
    expect(await agentStatus(acme, other)).toBe(404);
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

interface ListedCertificate {
  serial: string;
  kind: string;
  agentId?: string;
  fleetName?: string;
  subjectDN: string;
  notAfter: string;
  issuedBy: string;
  state: string;
}

async function certificatesOf(tenant: string, query = ""): Promise<ListedCertificate[]> {
  const token = await consoleApi.token({ tenant, role: "admin" });
  const response = await consoleApi.request("GET", `/api/v1/certificates?limit=100${query}`, { token });
  expect(response.status).toBe(200);
  return (response.json() as { items: ListedCertificate[] }).items;
}

/** The certificate's records in the tenant's list: its serial qualified by whichever CA issued it. */
async function recordsOf(tenant: string, certificate: string, query = ""): Promise<ListedCertificate[]> {
  const serial = new X509Certificate(issuedPems.get(certificate) as string).serialNumber.replace(/^0+/, "");
  return (await certificatesOf(tenant, query)).filter((listed) => listed.serial.endsWith(`.${serial}`));
}

describe("a customer's certificates in the certificate store", () => {
  it("lists one once an agent presents it, however many heartbeats it makes, with what it states", async () => {
    const agentId = `gw-${randomUUID().slice(0, 8)}`;
    const certificate = await customerCertificate(acmeCa, { commonName: agentId, organization: "Acme Corp" });
    expect(await recordsOf(acme, certificate)).toEqual([]);
    for (let heartbeat = 0; heartbeat < 3; heartbeat++)
      expect((await heartbeatAs(certificate, agentId)).status).toBe(200);
    const validTo = new Date(
      new X509Certificate(issuedPems.get(certificate) as string).validTo,
    ).toISOString();
    expect(await recordsOf(acme, certificate)).toEqual([
      expect.objectContaining({
        serial: expect.stringMatching(/^[0-9A-F]{16}\.[0-9A-F]+$/),
        kind: "agent",
        agentId,
        subjectDN: `CN=${agentId},O=Acme Corp`,
        notAfter: validTo,
        issuedBy: expect.stringMatching(/^tenant-ca:[0-9A-F]{16}$/),
        state: "valid",
      }),
    ]);
  });

  it("records a certificate of an any-agent CA once, as a fleet certificate, whichever agents it speaks for", async () => {
    const certificate = await customerCertificate(globexCa);
    for (const agentId of ["valve-1", "valve-2"])
      expect((await heartbeatAs(certificate, agentId)).status).toBe(200);
    expect(await recordsOf(globex, certificate)).toEqual([
      expect.objectContaining({ kind: "fleet", fleetName: "*", state: "valid" }),
    ]);
    expect(await recordsOf(acme, certificate)).toEqual([]);
  });

  it("refuses a certificate revoked through the console at its next heartbeat, within the cache's delay", async () => {
    const agentId = `gw-${randomUUID().slice(0, 8)}`;
    const certificate = await customerCertificate(acmeCa, { commonName: agentId });
    expect((await heartbeatAs(certificate, agentId)).status).toBe(200);
    const [record] = await recordsOf(acme, certificate);
    const token = await consoleApi.token({ tenant: acme, role: "admin" });
    const revoked = await consoleApi.request("POST", `/api/v1/certificates/${record?.serial}/revoke`, {
      token,
    });
    expect(revoked.status).toBe(200);
    let last: { status: number; json(): unknown } | undefined;
    await untilTrue(
      () => `a 403 certificate_revoked, last ${last?.status}`,
      async () => {
        last = await heartbeatAs(certificate, agentId);
        return last.status === 403;
      },
      REVOCATION_LIST_TTL_SECONDS * 1_000 + 10_000,
    );
    expect(last?.json()).toMatchObject({ error: { code: "certificate_revoked" } });
    expect(await recordsOf(acme, certificate)).toEqual([expect.objectContaining({ state: "revoked" })]);
  });

  it("lists a certificate expiring within the warning window among those expiring", async () => {
    const soon = `gw-${randomUUID().slice(0, 8)}`;
    const lasting = `gw-${randomUUID().slice(0, 8)}`;
    const expiring = await customerCertificate(acmeCa, { commonName: soon }, 10);
    const longLived = await customerCertificate(acmeCa, { commonName: lasting }, 365);
    expect((await heartbeatAs(expiring, soon)).status).toBe(200);
    expect((await heartbeatAs(longLived, lasting)).status).toBe(200);
    expect(await recordsOf(acme, expiring, "&expiring=true")).toEqual([
      expect.objectContaining({ agentId: soon }),
    ]);
    expect(await recordsOf(acme, longLived, "&expiring=true")).toEqual([]);
    expect(await recordsOf(acme, longLived)).toEqual([expect.objectContaining({ agentId: lasting })]);
  });
});
