/**
 * The dev CA's own certificates as records of the certificate store, on the local stack: the ones
 * `npm start` registers from its certs folder and the one `npm run cert` registers as it makes it. The
 * console lists and revokes them like the ones it issues, and the mutual-TLS agent gateway then refuses them.
 */
import { X509Certificate } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AwsEndpointEnvNames } from "../../functions/shared/env-names.js";
import { cppHeartbeatOf } from "../common/c2-examples.js";
import { type AgentApiUnderTest, startAgentApi } from "../test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../test-support/console-api-harness.js";
import { registerDevCertificates, registerNewCertificate } from "./certificate-registration.js";
import { DEV_AGENT_ID, DEV_TENANT, issueClientCertificate } from "./certs.js";
import { findFreePort } from "./ports.js";

const HEARTBEAT = "/c2/api/heartbeat";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let admin: string;

type Certificate = { serial: string; [field: string]: unknown };

/** The serial as the console spells it, read from the file itself. */
const serialOf = (certPath: string) =>
  new X509Certificate(readFileSync(certPath)).serialNumber.replace(/^0+/, "").toUpperCase();

const get = async (path: string) => {
  const response = await consoleApi.request("GET", path, { token: admin });
  expect(response.status, response.body).toBe(200);
  return response.json();
};

/** The dev tenant's certificates, every page: other test files' agent APIs record theirs there too. */
async function listed(): Promise<Certificate[]> {
  const certificates: Certificate[] = [];
  let cursor: string | undefined;
  do {
    const page = await get(`/api/v1/certificates?limit=100${cursor ? `&cursor=${cursor}` : ""}`);
    certificates.push(...(page.items as Certificate[]));
    cursor = page.nextCursor as string | undefined;
  } while (cursor !== undefined);
  return certificates;
}

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  admin = await consoleApi.token({ tenant: DEV_TENANT, role: "admin" });
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

describe("the dev CA's certificates in the certificate store", () => {
  it("are listed by the console once npm start registered them, and refused by the agent gateway once revoked through it", async () => {
    const registered = await registerDevCertificates(agentApi.certsDir, inject("beaconEnv"), () => {});
    const agentPath = join(agentApi.certsDir, `${DEV_AGENT_ID}.pem`);
    const fleetPath = join(agentApi.certsDir, "dev-fleet.pem");
    const serial = serialOf(agentPath);
    // The client certificates only: not the CA's own nor the gateway's server certificate.
    expect(registered).toEqual([
      { certPath: agentPath, tenant: DEV_TENANT, serial, added: true },
      { certPath: fleetPath, tenant: DEV_TENANT, serial: serialOf(fleetPath), added: true },
    ]);

    const mine = (await listed()).filter((certificate) =>
      [serial, serialOf(fleetPath)].includes(certificate.serial),
    );
    expect(mine).toHaveLength(2);
    expect(mine).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ serial: serialOf(fleetPath), kind: "fleet", fleetName: "dev-fleet" }),
        expect.objectContaining({ serial, kind: "agent", agentId: DEV_AGENT_ID }),
      ]),
    );
    const certificate = new X509Certificate(readFileSync(agentPath));
    expect(await get(`/api/v1/certificates/${serial}`)).toEqual({
      serial,
      kind: "agent",
      agentId: DEV_AGENT_ID,
      subjectDN: `CN=${DEV_AGENT_ID},OU=agent,O=${DEV_TENANT}`,
      notBefore: new Date(certificate.validFrom).toISOString(),
      notAfter: new Date(certificate.validTo).toISOString(),
      // When the file was written.
      issuedAt: new Date(Math.floor(statSync(agentPath).mtimeMs)).toISOString(),
      issuedBy: `beacon:dev-ca:${DEV_AGENT_ID}.pem`,
      state: "valid",
    });

    const heartbeat = cppHeartbeatOf(DEV_AGENT_ID, "registration");
    const accepted = await agentApi.post(HEARTBEAT, heartbeat, { certificate: DEV_AGENT_ID });
    expect(accepted.status, accepted.body).toBe(200);
    const revoked = await consoleApi.request("POST", `/api/v1/certificates/${serial}/revoke`, {
      token: admin,
    });
    expect(revoked.status, revoked.body).toBe(200);
    const refused = await agentApi.post(HEARTBEAT, heartbeat, { certificate: DEV_AGENT_ID });
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({ error: { code: "certificate_revoked" } });

    // The next start registers them again: one record each, and the revocation stays.
    const again = await registerDevCertificates(agentApi.certsDir, inject("beaconEnv"), () => {});
    expect(again.map((certificate) => certificate.added)).toEqual([false, false]);
    expect((await listed()).filter((certificate) => certificate.serial === serial)).toEqual([revoked.json()]);
    expect((await agentApi.post(HEARTBEAT, heartbeat, { certificate: DEV_AGENT_ID })).status).toBe(403);
  });

  it("holds the one npm run cert makes at once when the local stack answers, and says the next start registers it when not", async () => {
    const issued = await issueClientCertificate(agentApi.certsDir, { tenant: DEV_TENANT, agentId: "pump-7" });
    const serial = serialOf(issued.certPath);
    expect(await registerNewCertificate(issued.certPath, inject("beaconEnv"))).toBe(
      `registered:  serial ${serial} of tenant ${DEV_TENANT} is now in the local stack's certificate store ` +
        `(GET /api/v1/certificates/${serial})`,
    );
    expect(await get(`/api/v1/certificates/${serial}`)).toMatchObject({ agentId: "pump-7", state: "valid" });
    expect(await registerNewCertificate(issued.certPath, inject("beaconEnv"))).toContain("was already in");

    const fleet = await issueClientCertificate(agentApi.certsDir, {
      tenant: DEV_TENANT,
      fleet: true,
      name: "north",
    });
    const nothingThere = `http://127.0.0.1:${await findFreePort()}`;
    const note = await registerNewCertificate(fleet.certPath, {
      ...inject("beaconEnv"),
      [AwsEndpointEnvNames.dynamodb]: nothingThere,
    });
    expect(note).toMatch(
      new RegExp(
        `^registered: {2}not yet, .*${nothingThere} does not answer .*the next npm start registers it$`,
      ),
    );
    const missing = await consoleApi.request("GET", `/api/v1/certificates/${serialOf(fleet.certPath)}`, {
      token: admin,
    });
    expect(missing.status).toBe(404);
  });
});
