/**
 * The agent service's routing: routes a handler reads as streams (a debug bundle's upload) before the agent API,
 * with the PEM of the certificate the load balancer verified.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCertificateAuthority, issueWithCa } from "../adapters/x509/issuer.js";
import { clientCertificatePemOf } from "./agent-app.js";
import { type AgentService, startAgentService } from "./server.js";

let service: AgentService;
let certificatePem: string;

beforeAll(async () => {
  const ca = await createCertificateAuthority("Beacon Test CA");
  certificatePem = (
    await issueWithCa(ca, {
      subject: { commonName: "bundle-agent", organization: "acme" },
      usage: "clientAuth",
    })
  ).certPem;
  service = await startAgentService({
    host: "127.0.0.1",
    port: 0,
    routes: [
      {
        method: "POST",
        path: "/c2/debug-bundles/*",
        handle: async (request, response) => {
          response.writeHead(201, { "content-type": "application/json" });
          response.end(JSON.stringify({ route: "bundle", pem: clientCertificatePemOf(request) ?? null }));
        },
      },
    ],
    fallback: async (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ route: "agent-api" }));
    },
    drainMs: 1_000,
  });
});

afterAll(async () => {
  await service?.drain();
});

const ask = async (method: string, path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(new URL(path, service.url), { method, headers });
  return { status: response.status, body: await response.json() };
};

it("hands a request below a route's prefix to the route, with the verified certificate's PEM", async () => {
  // As an ALB in mutual TLS verify mode writes them: the leaf beside its subject and serial number.
  const answer = await ask("POST", "/c2/debug-bundles/op-1", {
    "x-amzn-mtls-clientcert-leaf": encodeURIComponent(certificatePem),
    "x-amzn-mtls-clientcert-subject": "CN=bundle-agent,O=acme",
    "x-amzn-mtls-clientcert-serial-number": "01",
  });
  expect(answer).toEqual({ status: 201, body: { route: "bundle", pem: certificatePem } });
  expect((await ask("POST", "/c2/debug-bundles/op-2")).body).toEqual({ route: "bundle", pem: null });
});

it("hands every other request to the fallback: other methods, the prefix itself, other paths", async () => {
  for (const [method, path] of [
    ["GET", "/c2/debug-bundles/op-1"],
    ["POST", "/c2/debug-bundles/"],
    ["POST", "/c2/api/heartbeat"],
  ] as const)
    expect((await ask(method, path)).body).toEqual({ route: "agent-api" });
});
