import "reflect-metadata";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import * as x509 from "@peculiar/x509";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { provisionTable } from "../../scripts/local/provision.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeat } from "../../scripts/test-support/console-seed.js";
import { deviceSigningRequest } from "../../scripts/test-support/device-requests.js";
import { readWholeStream } from "../../scripts/test-support/stream-reader.js";
import { makeDynamoDbClient } from "../runtime/aws-clients/dynamodb.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { sweeperConfig } from "../shared/config.js";
import { EnvNames } from "../shared/env-names.js";
import { eventValidator } from "../shared/event-validators.js";
import { composeSweeper } from "../sweeper/composition.js";

const run = promisify(execFile);

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let token: string;
let tenant: string;
let manifestHash: string;
/** Where the simulated devices keep their keys and requests: none of it is ever sent to Beacon but the CSR. */
let deviceDir: string;
let unique = 0;

const newAgentId = (label: string) => `${tenant}-${label}-${++unique}`;

beforeAll(async () => {
  // A table of its own: the sweeper announces every tenant's certificates, and this file runs it.
  const tableName = `beacon-certificates-${randomUUID().slice(0, 8)}`;
  await provisionTable(makeDynamoDbClient(inject("beaconEnv")), tableName);
  agentApi = await startAgentApi({ [EnvNames.tableName]: tableName });
  consoleApi = await startConsoleApi(agentApi, { [EnvNames.tableName]: tableName });
  tenant = `tc-${randomUUID().slice(0, 6)}`;
  manifestHash = `${tenant}-manifest`;
  token = await consoleApi.token({ tenant, role: "admin" });
  deviceDir = mkdtempSync(path.join(tmpdir(), "beacon-device-"));
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
  if (deviceDir) rmSync(deviceDir, { recursive: true, force: true });
});

/**
 * A key pair and a CSR made on the device by `openssl req`, asking for a subject of another tenant and a
 * fleet certificate: Beacon must take the key and nothing else. Returns the CSR's PEM and the key's path.
 */
async function opensslRequest(
  name: string,
  keyOptions: string[],
): Promise<{ csrPem: string; keyPath: string }> {
  const keyPath = path.join(deviceDir, `${name}.key`);
  const csrPath = path.join(deviceDir, `${name}.csr`);
  await run("openssl", [
    "req",
    "-new",
    ...keyOptions,
    "-nodes",
    "-keyout",
    keyPath,
    "-subj",
    "/O=another-tenant/OU=fleet/CN=intruder",
    "-addext",
    "subjectAltName=DNS:intruder.example",
    "-out",
    csrPath,
  ]);
  return { csrPem: readFileSync(csrPath, "utf8"), keyPath };
}

/** The same, made in the device's own code with @peculiar/x509 (WebCrypto keys). */
async function peculiarRequest(name: string): Promise<{ csrPem: string; keyPath: string }> {
  const { pem, privateKeyPem } = await deviceSigningRequest({
    name: "ECDSA",
    namedCurve: "P-384",
    hash: "SHA-384",
  });
  const keyPath = path.join(deviceDir, `${name}.key`);
  writeFileSync(keyPath, privateKeyPem, { mode: 0o600 });
  return { csrPem: pem, keyPath };
}

const issue = (body: Record<string, unknown>) =>
  consoleApi.request("POST", "/api/v1/certificates", { token, body });

/** The certificate beside the device's own key, under a name the agent API harness presents it by. */
function install(name: string, certificatePem: string, keyPath: string): string {
  writeFileSync(path.join(agentApi.certsDir, `${name}.pem`), certificatePem);
  writeFileSync(path.join(agentApi.certsDir, `${name}.key`), readFileSync(keyPath), { mode: 0o600 });
  return name;
}

describe("issuing from a certificate signing request", () => {
  it.each([
    [
      "openssl, EC P-256",
      () => opensslRequest("p256", ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]),
    ],
    ["openssl, RSA 2048", () => opensslRequest("rsa2048", ["-newkey", "rsa:2048"])],
    ["@peculiar/x509, EC P-384", () => peculiarRequest("p384")],
  ])(
    "%s: certifies the device's key under the caller's tenant, and the agent gateway accepts it with that key",
    async (_label, make) => {
      const { csrPem, keyPath } = await make();
      const agentId = newAgentId("csr");
      const response = await issue({ kind: "agent", agentId, csrPem });
      expect(response.status, response.body).toBe(201);
      const issued = response.json();
      expect(issued).toMatchObject({
        kind: "agent",
        agentId,
        subjectDN: `CN=${agentId},OU=agent,O=${tenant}`,
      });
      expect(issued).not.toHaveProperty("privateKeyPem");
      expect(response.body).not.toContain("PRIVATE KEY");

      // OpenSSL, as the C++ agent and the gateway use it, finds the certificate signed by the agent CA.
      const certPath = path.join(deviceDir, `${agentId}.pem`);
      writeFileSync(certPath, issued.certificatePem as string);
      const verified = await run("openssl", [
        "verify",
        "-CAfile",
        path.join(agentApi.certsDir, "ca.pem"),
        certPath,
      ]);
      expect(verified.stdout).toContain(": OK");
      const text = (await run("openssl", ["x509", "-in", certPath, "-noout", "-text"])).stdout;
      expect(text).not.toContain("intruder");
      expect(text).not.toContain("another-tenant");

      const name = install(agentId, issued.certificatePem as string, keyPath);
      expect(await heartbeat(agentApi, name, agentId, `${tenant}-pumps`, manifestHash)).toBe(200);
      // The certificate speaks for its agent only, and for its tenant only.
      expect(await heartbeat(agentApi, name, newAgentId("other"), `${tenant}-pumps`, manifestHash)).toBe(403);
    },
  );

  it.each([
    [
      "an RSA key of 1024 bits",
      () => opensslRequest("rsa1024", ["-newkey", "rsa:1024"]),
      "at least 2048 bits",
    ],
    [
      "an EC key on P-521",
      () => opensslRequest("p521", ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-521"]),
      "P-256 or P-384",
    ],
    [
      "an Ed25519 key",
      () => opensslRequest("ed25519", ["-newkey", "ed25519"]),
      "RSA (2048 bits or more) or EC",
    ],
    [
      "a signature that does not verify",
      async () => {
        const { csrPem, keyPath } = await opensslRequest("forged", [
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:P-256",
        ]);
        const der = Buffer.from(csrPem.replace(/-----[A-Z ]+-----|\s/g, ""), "base64");
        der[der.length - 3] = (der[der.length - 3] as number) ^ 1;
        return { csrPem: new x509.Pkcs10CertificateRequest(der).toString("pem"), keyPath };
      },
      "signature",
    ],
    [
      "no request at all",
      async () => ({
        csrPem: "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----",
        keyPath: "",
      }),
      "PKCS#10",
    ],
  ])("refuses %s with 400 invalid_csr, recording nothing", async (_label, make, message) => {
    const { csrPem } = await make();
    const agentId = newAgentId("refused");
    const response = await issue({ kind: "agent", agentId, csrPem });
    expect(response.status).toBe(400);
    expect(response.json()).toEqual({
      error: { code: "invalid_csr", message: expect.stringContaining(message) },
    });
    const listed = await consoleApi.request("GET", "/api/v1/certificates?limit=100", { token });
    expect(listed.body).not.toContain(agentId);
  });

  it("generates a key pair only when asked to, and takes either a CSR or that request, not both", async () => {
    const { csrPem } = await opensslRequest("either", [
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
    ]);
    for (const body of [
      { kind: "fleet", fleetName: newAgentId("fleet") },
      { kind: "fleet", fleetName: newAgentId("fleet"), csrPem, generateKey: true },
      { kind: "fleet", fleetName: newAgentId("fleet"), generateKey: false },
    ]) {
      const response = await issue(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: "invalid_request" } });
    }
    const generated = await issue({ kind: "fleet", fleetName: newAgentId("fleet"), generateKey: true });
    expect(generated.status).toBe(201);
    expect(generated.json().privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });
});

describe("expiry", () => {
  const DAY = 86_400_000;
  /** An agent that heartbeats with a certificate from its own CSR, valid for `validityDays`. */
  async function certifiedAgent(label: string, validityDays: number) {
    const { csrPem, keyPath } = await opensslRequest(label, [
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
    ]);
    const agentId = newAgentId(label);
    const issued = (await issue({ kind: "agent", agentId, csrPem, validityDays })).json();
    const name = install(agentId, issued.certificatePem as string, keyPath);
    expect(await heartbeat(agentApi, name, agentId, `${tenant}-pumps`, manifestHash)).toBe(200);
    return { agentId, serial: issued.serial as string, notAfter: issued.notAfter as string };
  }

  /** The sweeper's expiry step, as the schedule runs it, with the warning window the environment sets. */
  async function announce(env: Record<string, string> = {}) {
    const sweeper = composeSweeper(sweeperConfig({ ...agentApi.env, ...env }));
    try {
      return await sweeper.announceExpiringCertificates();
    } finally {
      await sweeper.close();
    }
  }

  const expiringEvents = async (serial: string) =>
    (
      await readWholeStream(makeKinesisClient(agentApi.env), agentApi.env[EnvNames.streamName] as string)
    ).filter(
      (event) =>
        (event as { type?: string; serial?: string }).type === "certificate.expiring" &&
        (event as { serial?: string }).serial === serial,
    ) as Record<string, unknown>[];

  it("shows each certificate's notAfter on the agent, and lists those expiring soon, soonest first", async () => {
    const soon = await certifiedAgent("soon", 10);
    const later = await certifiedAgent("later", 20);
    const lasting = await certifiedAgent("lasting", 365);
    const agent = (await consoleApi.request("GET", `/api/v1/agents/${soon.agentId}`, { token })).json();
    expect(agent.certificates).toEqual([{ serial: soon.serial, notAfter: soon.notAfter, state: "valid" }]);
    expect(Date.parse(soon.notAfter) - Date.now()).toBeLessThanOrEqual(10 * DAY);

    const expiring = (
      await consoleApi.request("GET", "/api/v1/certificates?expiring=true", { token })
    ).json();
    const serials = (expiring.items as { serial: string }[]).map((item) => item.serial);
    expect(expiring.expiringWithinDays).toBe(30);
    expect(serials.indexOf(soon.serial)).toBeLessThan(serials.indexOf(later.serial));
    expect(serials).toContain(later.serial);
    expect(serials).not.toContain(lasting.serial);
    const wider = (
      await consoleApi.request("GET", "/api/v1/certificates?expiringWithinDays=400", { token })
    ).json();
    expect((wider.items as { serial: string }[]).map((item) => item.serial)).toContain(lasting.serial);
    // Another tenant's token lists none of them.
    const other = await consoleApi.token({ tenant: `${tenant}-other`, role: "admin" });
    const theirs = await consoleApi.request("GET", "/api/v1/certificates?expiringWithinDays=400", {
      token: other,
    });
    expect(theirs.json().items).toEqual([]);
  });

  it("announces each certificate entering the window once, across sweeper runs, never a revoked one", async () => {
    const announced = await certifiedAgent("announced", 7);
    const revoked = await certifiedAgent("revoked", 7);
    const lasting = await certifiedAgent("unannounced", 365);
    await consoleApi.request("POST", `/api/v1/certificates/${revoked.serial}/revoke`, { token });

    const first = await announce();
    expect(first.announced).toBeGreaterThanOrEqual(1);
    expect(first.streamError).toBeUndefined();
    expect(await announce()).toMatchObject({ announced: 0 });

    const events = await expiringEvents(announced.serial);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "certificate.expiring",
      tenant,
      serial: announced.serial,
      kind: "agent",
      agentId: announced.agentId,
      subjectDN: `CN=${announced.agentId},OU=agent,O=${tenant}`,
      notAfter: Date.parse(announced.notAfter),
      warningDays: 30,
    });
    const validate = eventValidator(events[0] as { type: string });
    expect(validate(events[0]), JSON.stringify(validate.errors)).toBe(true);
    expect(await expiringEvents(revoked.serial)).toEqual([]);
    expect(await expiringEvents(lasting.serial)).toEqual([]);
    const shown = (
      await consoleApi.request("GET", `/api/v1/certificates/${announced.serial}`, { token })
    ).json();
    expect(Date.parse(shown.expiryAnnouncedAt as string)).toBeLessThanOrEqual(Date.now());

    // A wider window, set by the environment, takes in the year-long certificate: once.
    expect((await announce({ [EnvNames.certExpiryWarningDays]: "400" })).announced).toBeGreaterThanOrEqual(1);
    expect(await expiringEvents(lasting.serial)).toHaveLength(1);
    expect(await announce({ [EnvNames.certExpiryWarningDays]: "400" })).toMatchObject({ announced: 0 });
  });
});
