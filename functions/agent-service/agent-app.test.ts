/**
 * The agent API's door on the agent service: a request to the service as the load balancer forwards it becomes
 * the agent API's request, and its response the service's.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCertificateAuthority, issueWithCa } from "../adapters/x509/issuer.js";
import type { AgentRequest, AgentResponse } from "../shared/agent-request.js";
import { agentAppHandler } from "./agent-app.js";
import { type AgentService, startAgentService } from "./server.js";

const MAX_BODY_BYTES = 1024;
const BUDGET_MS = 10_000;

let service: AgentService;
let certificatePem: string;
const served: { request: AgentRequest; deadline: number; at: number }[] = [];
let answer: AgentResponse;

beforeAll(async () => {
  const ca = await createCertificateAuthority("Beacon Test CA");
  certificatePem = (
    await issueWithCa(ca, {
      subject: { commonName: "door-agent", organization: "acme" },
      usage: "clientAuth",
    })
  ).certPem;
  service = await startAgentService({
    host: "127.0.0.1",
    port: 0,
    routes: [],
    fallback: agentAppHandler(
      async (request, deadline) => {
        served.push({ request, deadline, at: Date.now() });
        return answer;
      },
      { maxBodyBytes: MAX_BODY_BYTES, requestBudgetMs: BUDGET_MS, logger: new Logger(), name: "agent-api" },
    ),
    drainMs: 1_000,
  });
});

afterAll(async () => {
  await service?.drain();
});

it("hands the agent API the request, the certificate the load balancer verified, and the service's budget as deadline", async () => {
  answer = {
    statusCode: 200,
    headers: { "content-type": "application/json" },
    body: '{"requestedOperations":[]}',
  };
  served.length = 0;
  const body = Buffer.from([0x1f, 0x8b, 0x00, 0xff]);
  const response = await fetch(new URL("/c2/api/heartbeat?mode=full", service.url), {
    method: "POST",
    headers: {
      "content-encoding": "gzip",
      "x-amzn-mtls-clientcert-subject": "CN=door-agent,O=acme",
      "x-amzn-mtls-clientcert-serial-number": "0A",
      "x-amzn-mtls-clientcert-issuer": "CN=Beacon Test CA",
      "x-amzn-mtls-clientcert-leaf": encodeURIComponent(certificatePem),
    },
    body,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json");
  expect(await response.text()).toBe('{"requestedOperations":[]}');
  const [call] = served;
  expect(call?.request).toMatchObject({
    method: "POST",
    path: "/c2/api/heartbeat",
    headers: { "content-encoding": "gzip" },
    body,
    clientCertificate: { subjectDN: "CN=door-agent,O=acme", issuerDN: "CN=Beacon Test CA,O=Beacon" },
  });
  // The serial as the certificate states it, not as the header spells it.
  expect(call?.request.clientCertificate?.serialNumber).not.toBe("0A");
  expect(call?.deadline).toBeGreaterThanOrEqual((call?.at ?? 0) + BUDGET_MS - 1_000);
  expect(call?.deadline).toBeLessThanOrEqual((call?.at ?? 0) + BUDGET_MS);
});

it("passes no certificate when the load balancer sent none, and writes a binary body as its bytes", async () => {
  const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80]);
  answer = { statusCode: 200, headers: { "content-type": "application/octet-stream" }, body: bytes };
  served.length = 0;
  const response = await fetch(new URL("/c2/api/assets/ab12/content", service.url));
  expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
  expect(served[0]?.request).toMatchObject({ method: "GET", path: "/c2/api/assets/ab12/content" });
  expect(served[0]?.request.clientCertificate).toBeUndefined();
});

it("refuses a body above the limit with 413, closing the connection, without calling the agent API", async () => {
  served.length = 0;
  const response = await fetch(new URL("/c2/api/heartbeat", service.url), {
    method: "POST",
    body: Buffer.alloc(MAX_BODY_BYTES + 1, "x"),
  });
  expect(response.status).toBe(413);
  expect(response.headers.get("connection")).toBe("close");
  expect(await response.json()).toEqual({ message: "Request Entity Too Large" });
  expect(served).toEqual([]);
});
