/**
 * The agent service terminating mutual TLS itself, as it does behind a Network Load Balancer that passes TCP
 * through: its own Node process (main.ts) on the integration tests' backends, its server certificate and client
 * CA bundle the dev CA's, spoken to over real mutual TLS. What the ALB's listener refuses is refused here too: an
 * untrusted client at the handshake, a revoked one by the agent API with 403.
 */
import { randomUUID, X509Certificate } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { example } from "../../scripts/common/c2-examples.js";
import { registerCertificates } from "../../scripts/local/certificate-registration.js";
import {
  agentTrust,
  type DevCertificates,
  ensureDevCertificates,
  issueClientCertificate,
} from "../../scripts/local/certs.js";
import { findFreePort } from "../../scripts/local/ports.js";
import {
  type AgentServiceProcess,
  startAgentServiceProcess,
} from "../../scripts/test-support/agent-service-process.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { createCertificateAuthority, issueWithCa } from "../adapters/x509/issuer.js";
import type { JsonObject } from "../core/json.js";
import { EnvNames } from "../shared/env-names.js";

const HEARTBEAT = "/c2/api/heartbeat";
const AGENT_API_URL = "https://agents.example.com";

let certsDir: string;
let certificates: DevCertificates;
let service: AgentServiceProcess;
let port: number;
let healthPort: number;
let tenant: string;
let consoleApi: ConsoleApiUnderTest;

/** A client identity: certificate and key PEM, or none at all. */
interface Identity {
  certPem: string;
  keyPem: string;
}

const identityOf = (certPath: string, keyPath: string): Identity => ({
  certPem: readFileSync(certPath, "utf8"),
  keyPem: readFileSync(keyPath, "utf8"),
});

beforeAll(async () => {
  const backends = inject("beaconEnv");
  certsDir = mkdtempSync(path.join(tmpdir(), "beacon-certs-"));
  certificates = await ensureDevCertificates(certsDir);
  tenant = `t-${randomUUID().slice(0, 8)}`;
  const trust = await agentTrust(certsDir);
  [port, healthPort] = [await findFreePort(), await findFreePort()];
  service = await startAgentServiceProcess(
    {
      ...backends,
      [EnvNames.agentApiUrl]: AGENT_API_URL,
      [EnvNames.agentCaBindings]: JSON.stringify(trust.bindings),
      [EnvNames.agentServicePort]: String(port),
      [EnvNames.agentServiceHealthPort]: String(healthPort),
      [EnvNames.agentServiceTlsCertificate]: readFileSync(certificates.server.certPath, "utf8"),
      [EnvNames.agentServiceTlsKey]: readFileSync(certificates.server.keyPath, "utf8"),
      // As the CDK app writes it: the bundle the load balancer's trust store holds.
      [EnvNames.agentServiceCaBundle]: trust.bundlePem,
      POWERTOOLS_SERVICE_NAME: "agent-api-tls-test",
      POWERTOOLS_METRICS_NAMESPACE: "Beacon",
    },
    `http://127.0.0.1:${healthPort}/health`,
  );
  consoleApi = await startConsoleApi({ certsDir, url: AGENT_API_URL });
});

afterAll(async () => {
  await service?.stop();
  await consoleApi?.close();
  if (certsDir) rmSync(certsDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The client port of the connection it came on: one port, one connection. */
  localPort: number | undefined;
  json(): Record<string, unknown>;
}

/** One request over mutual TLS as `identity` (none: no client certificate), on `agent`'s connections. */
function send(
  identity: Identity | undefined,
  body: JsonObject,
  options: { headers?: Record<string, string>; agent?: Agent } = {},
): Promise<Answer> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port,
        path: HEARTBEAT,
        method: "POST",
        servername: "localhost",
        ca: certificates.caPem,
        ...(identity ? { cert: identity.certPem, key: identity.keyPem } : {}),
        agent: options.agent ?? false,
        headers: {
          "content-type": "application/json",
          "content-length": String(payload.length),
          ...options.headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            localPort: response.socket?.localPort,
            json: () => JSON.parse(Buffer.concat(chunks).toString("utf8")),
          }),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

const javaHeartbeat = (agentId: string): JsonObject => {
  const heartbeat = example("java-2.3.0/heartbeat-light.json");
  (heartbeat.agentInfo as JsonObject).identifier = agentId;
  heartbeat.agentId = agentId;
  return heartbeat;
};

const issued = async (agentId: string) => {
  const { certPath, keyPath } = await issueClientCertificate(certsDir, { tenant, agentId });
  return { certPath, identity: identityOf(certPath, keyPath) };
};

describe("the agent service terminating mutual TLS", () => {
  it("answers an agent's heartbeats over mutual TLS on one kept-alive connection, its certificate read from the handshake", async () => {
    const agentId = `java-${randomUUID().slice(0, 8)}`;
    const { identity } = await issued(agentId);
    const keptAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await send(identity, javaHeartbeat(agentId), { agent: keptAlive });
      // Registered under the certificate's identity (without one it would be 401); what it is asked first, a
      // DESCRIBE, is the agent API's to decide, within its answer budget.
      expect(first.status).toBe(200);
      expect(Array.isArray(first.json().requestedOperations)).toBe(true);
      const second = await send(identity, javaHeartbeat(agentId), { agent: keptAlive });
      expect(second.status).toBe(200);
      expect(second.localPort).toBe(first.localPort);
      expect(second.headers["keep-alive"]).toMatch(/timeout=295/);
    } finally {
      keptAlive.destroy();
    }
  });

  it("fails the handshake of a client without a certificate or with one no trusted CA signed", async () => {
    await expect(send(undefined, javaHeartbeat("anonymous"))).rejects.toThrow();
    const stranger = await createCertificateAuthority("Stranger CA");
    const untrusted = await issueWithCa(stranger, {
      subject: { commonName: "intruder", organization: tenant, organizationalUnit: "agent" },
      usage: "clientAuth",
    });
    await expect(
      send({ certPem: untrusted.certPem, keyPem: untrusted.keyPem }, javaHeartbeat("intruder")),
    ).rejects.toThrow();
  });

  it("refuses a revoked certificate with 403 as behind the ALB, whatever load balancer headers the client writes", async () => {
    const agentId = `revoked-${randomUUID().slice(0, 8)}`;
    const { certPath, identity } = await issued(agentId);
    const other = await issued(`other-${randomUUID().slice(0, 8)}`);
    expect((await send(identity, javaHeartbeat(agentId))).status).toBe(200);
    const [registered] = await registerCertificates(inject("beaconEnv"), [certPath]);
    const revoked = await consoleApi.request("POST", `/api/v1/certificates/${registered?.serial}/revoke`, {
      token: await consoleApi.token({ tenant, role: "admin" }),
    });
    expect(revoked.status, revoked.body).toBe(200);

    const refused = await send(identity, javaHeartbeat(agentId));
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({ error: { code: "certificate_revoked" } });
    // The headers an ALB would add, naming a valid certificate: the service reads the handshake's alone.
    const otherPem = other.identity.certPem;
    const forged = await send(identity, javaHeartbeat(agentId), {
      headers: {
        "x-amzn-mtls-clientcert-subject": `CN=${agentId},OU=agent,O=${tenant}`,
        "x-amzn-mtls-clientcert-serial-number": new X509Certificate(otherPem).serialNumber,
        "x-amzn-mtls-clientcert-leaf": encodeURIComponent(otherPem),
      },
    });
    expect(forged.status).toBe(403);
    expect(forged.json()).toMatchObject({ error: { code: "certificate_revoked" } });
  });

  it("resumes no session from a ticket it sent: a new connection is a full handshake", async () => {
    const { identity } = await issued(`cpp-${randomUUID().slice(0, 8)}`);
    /** One connection, as a MiNiFi C++ agent opens one per request, offering `session` to resume. */
    const handshake = (session?: Buffer) =>
      new Promise<{ resumed: boolean; tickets: Buffer[] }>((resolve, reject) => {
        const tickets: Buffer[] = [];
        let resumed = false;
        const socket = connect({
          host: "127.0.0.1",
          port,
          servername: "localhost",
          ca: certificates.caPem,
          cert: identity.certPem,
          key: identity.keyPem,
          ...(session ? { session } : {}),
        });
        socket.on("session", (ticket: Buffer) => tickets.push(ticket));
        socket.on("secureConnect", () => {
          resumed = socket.isSessionReused();
          socket.write("GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        });
        socket.on("error", reject);
        socket.on("close", () => resolve({ resumed, tickets }));
        socket.resume();
      });
    const first = await handshake();
    expect(first.tickets.length).toBeGreaterThan(0);
    expect((await handshake(first.tickets.at(-1))).resumed).toBe(false);
  });

  // Last: the service is gone after it.
  it("on SIGTERM refuses new connections on both ports and exits 0", async () => {
    const exited = once(service.child, "exit");
    service.child.kill("SIGTERM");
    expect(await exited).toEqual([0, null]);
    await expect(fetch(`http://127.0.0.1:${healthPort}/health`)).rejects.toThrow();
    const { identity } = await issued("after-stop");
    await expect(send(identity, javaHeartbeat("after-stop"))).rejects.toThrow();
  });
});
