/**
 * The agent service terminating mutual TLS (behind a Network Load Balancer): the client certificate comes from
 * the handshake alone, and the health check is plain HTTP on a port of its own.
 */
import { request } from "node:https";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  type CertificateAndKey,
  createCertificateAuthority,
  issueWithCa,
  type SigningAuthority,
} from "../adapters/x509/issuer.js";
import { clientCertificatePemOf } from "./agent-app.js";
import { type AgentService, startAgentService } from "./server.js";

let ca: SigningAuthority;
let agent: CertificateAndKey;
let other: CertificateAndKey;
let service: AgentService;

beforeAll(async () => {
  ca = await createCertificateAuthority("Beacon Test CA");
  const server = await issueWithCa(ca, {
    subject: { commonName: "localhost", organization: "Beacon" },
    usage: "serverAuth",
    dnsNames: ["localhost"],
  });
  const client = (commonName: string) =>
    issueWithCa(ca, { subject: { commonName, organization: "acme" }, usage: "clientAuth" });
  [agent, other] = [await client("tls-agent"), await client("other-agent")];
  service = await startAgentService({
    host: "127.0.0.1",
    port: 0,
    routes: [],
    fallback: async (incoming, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ pem: clientCertificatePemOf(incoming) ?? null }));
    },
    drainMs: 1_000,
    tls: { certificatePem: server.certPem, keyPem: server.keyPem, caBundlePem: ca.certPem, healthPort: 0 },
  });
});

afterAll(async () => {
  await service?.drain();
});

/** A request over mutual TLS as `identity`, with `headers`: the PEM the service read as the client's. */
const ask = (identity: CertificateAndKey | undefined, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; pem: string | null }>((resolve, reject) => {
    const { hostname, port } = new URL(service.url);
    const outgoing = request(
      {
        host: hostname,
        port,
        path: "/c2/api/heartbeat",
        method: "POST",
        servername: "localhost",
        ca: ca.certPem,
        ...(identity ? { cert: identity.certPem, key: identity.keyPem } : {}),
        agent: false,
        headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, ...JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });

it("serves HTTPS and hands the handlers the certificate of the handshake", async () => {
  expect(service.url).toMatch(/^https:/);
  const answer = await ask(agent);
  expect(answer.status).toBe(200);
  expect(answer.pem?.trim()).toBe(agent.certPem.trim());
});

it("reads no load balancer header: a client could write them itself", async () => {
  const answer = await ask(agent, { "x-amzn-mtls-clientcert-leaf": encodeURIComponent(other.certPem) });
  expect(answer.pem?.trim()).toBe(agent.certPem.trim());
});

it("fails the handshake of a client without a certificate", async () => {
  await expect(ask(undefined)).rejects.toThrow();
});

it("answers the health check in plain HTTP on its own port, not on the TLS port", async () => {
  expect(service.healthUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/health$/);
  expect(new URL(service.healthUrl).port).not.toBe(new URL(service.url).port);
  const health = await fetch(service.healthUrl);
  expect(health.status).toBe(200);
  expect((await fetch(new URL("/other", service.healthUrl))).status).toBe(404);
});
