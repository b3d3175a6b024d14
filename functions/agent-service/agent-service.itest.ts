/**
 * The agent service as ECS runs it: its own Node process (main.ts), on the integration tests' DynamoDB Local, Redis
 * and Kinesis emulator, spoken to as the load balancer speaks to it: plain HTTP, the client certificate it
 * verified in `x-amzn-mtls-clientcert-*` headers. DynamoDB and Kinesis are reached through counting proxies, so
 * that a request's cost can be checked and DynamoDB can be made to hold requests in flight. The console, in this
 * process, queues the operations the service delivers.
 */
import { randomBytes, randomUUID, X509Certificate } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, type IncomingHttpHeaders, request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cppAgentOf, example } from "../../scripts/common/c2-examples.js";
import { bundleForm } from "../../scripts/common/debug-bundle-form.js";
import {
  agentTrust,
  certificateSummary,
  ensureDevCertificates,
  issueClientCertificate,
} from "../../scripts/local/certs.js";
import { type CountingProxy, startCountingProxy } from "../../scripts/local/counting-proxy.js";
import { findFreePort } from "../../scripts/local/ports.js";
import type { AgentApiClient } from "../../scripts/test-support/agent-api-harness.js";
import {
  type AgentServiceProcess,
  startAgentServiceProcess,
} from "../../scripts/test-support/agent-service-process.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import {
  agentAwaitingBundle,
  nothingStored,
  storedBundle,
  uploadBundle,
} from "../../scripts/test-support/debug-bundles.js";
import { until } from "../../scripts/test-support/until.js";
import { DEBUG_BUNDLE_MAX_BYTES } from "../core/bundles/model.js";
import { AgentRoutes } from "../core/c2/routes.js";
import type { JsonObject } from "../core/json.js";
import { AwsEndpointEnvNames, EnvNames } from "../shared/env-names.js";

const HEARTBEAT = "/c2/api/heartbeat";
const ACKNOWLEDGE = "/c2/api/acknowledge";
const SERVICE_NAME = "agent-api-service-test";
const AGENT_API_URL = "https://agents.example.com";
const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** How often the drain test looks: its requests are answered at most 1.5 s after they began, waiting or not. */
const FAST_POLL_MS = 20;

let certsDir: string;
let dynamoDb: CountingProxy;
let kinesis: CountingProxy;
let service: AgentServiceProcess;
let baseUrl: string;
let tenant: string;
/** The tenant's fleet certificate's name in the certs folder. */
let fleetCertificate: string;
/** The load balancer's headers for the tenant's fleet certificate. */
let fleet: Record<string, string>;
let consoleApi: ConsoleApiUnderTest;
const keptAlive = new Agent({ keepAlive: true });

beforeAll(async () => {
  const backends = inject("beaconEnv");
  dynamoDb = await startCountingProxy(backends[AwsEndpointEnvNames.dynamodb] as string);
  kinesis = await startCountingProxy(backends[AwsEndpointEnvNames.kinesis] as string);
  certsDir = mkdtempSync(path.join(tmpdir(), "beacon-certs-"));
  await ensureDevCertificates(certsDir);
  tenant = `t-${randomUUID().slice(0, 8)}`;
  const fleetCertificatePath = (await issueClientCertificate(certsDir, { tenant, fleet: true })).certPath;
  fleetCertificate = path.basename(fleetCertificatePath, ".pem");
  fleet = loadBalancerHeaders(fleetCertificatePath);
  const port = await findFreePort();
  baseUrl = `http://127.0.0.1:${port}`;
  service = await startAgentServiceProcess(
    {
      ...backends,
      [AwsEndpointEnvNames.dynamodb]: dynamoDb.url,
      [AwsEndpointEnvNames.kinesis]: kinesis.url,
      [EnvNames.agentApiUrl]: AGENT_API_URL,
      // As the CDK app writes them from the load balancer's trust store.
      [EnvNames.agentCaBindings]: JSON.stringify((await agentTrust(certsDir)).bindings),
      [EnvNames.agentServicePort]: String(port),
      [EnvNames.maxInflatedBytes]: String(MAX_BODY_BYTES),
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: "Beacon",
      // Every registration writes a record.
      POWERTOOLS_LOG_LEVEL: "INFO",
    },
    `${baseUrl}/health`,
  );
  consoleApi = await startConsoleApi({ certsDir, url: AGENT_API_URL });
});

afterAll(async () => {
  await service?.stop();
  keptAlive.destroy();
  await consoleApi?.close();
  await Promise.all([dynamoDb?.close(), kinesis?.close()]);
  if (certsDir) rmSync(certsDir, { recursive: true, force: true });
});

/** What the load balancer adds to every request of a client whose certificate it verified. */
function loadBalancerHeaders(certPath: string): Record<string, string> {
  const pem = readFileSync(certPath, "utf8");
  const certificate = new X509Certificate(pem);
  // Names as the HTTP API reports them too; the balancer's serial is hexadecimal.
  const { subjectDN, issuerDN } = certificateSummary(pem);
  return {
    "x-amzn-mtls-clientcert-serial-number": certificate.serialNumber,
    "x-amzn-mtls-clientcert-issuer": issuerDN,
    "x-amzn-mtls-clientcert-subject": subjectDN,
    "x-amzn-mtls-clientcert-validity": `NotBefore=${certificate.validFrom};NotAfter=${certificate.validTo}`,
    "x-amzn-mtls-clientcert-leaf": encodeURIComponent(pem),
    "x-forwarded-for": "198.51.100.7",
    "x-forwarded-proto": "https",
    "x-forwarded-port": "443",
  };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  bytes: Buffer;
  json(): Record<string, unknown>;
}

function send(
  method: string,
  requestPath: string,
  options: { body?: Buffer | JsonObject; headers?: Record<string, string>; agent?: Agent | false } = {},
): Promise<Answer> {
  const payload =
    options.body === undefined
      ? Buffer.alloc(0)
      : Buffer.isBuffer(options.body)
        ? options.body
        : Buffer.from(JSON.stringify(options.body));
  return new Promise((resolve, reject) => {
    const outgoing = request(
      new URL(requestPath, baseUrl),
      {
        method,
        agent: options.agent ?? keptAlive,
        headers: {
          ...(payload.length > 0 ? { "content-type": "application/json" } : {}),
          "content-length": String(payload.length),
          ...options.headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const bytes = Buffer.concat(chunks);
          const body = bytes.toString("utf8");
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body,
            bytes,
            json: () => JSON.parse(body),
          });
        });
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

const post = (requestPath: string, body: JsonObject | Buffer, headers = fleet) =>
  send("POST", requestPath, { body, headers });

/** The service as an agent reaches it: each request with its certificate's load balancer headers. */
const throughLoadBalancer: AgentApiClient = {
  post: (requestPath, body, options = {}) =>
    send("POST", requestPath, {
      body: options.rawBody ?? (body as JsonObject),
      headers: {
        ...loadBalancerHeaders(path.join(certsDir, `${options.certificate ?? fleetCertificate}.pem`)),
        ...options.headers,
      },
    }),
};

/** A registered agent of the tenant with a TRANSFER DEBUG delivered to it, all through the service. */
const awaitingBundle = async () =>
  agentAwaitingBundle(
    throughLoadBalancer,
    consoleApi,
    { fleet: fleetCertificate, operator: await consoleApi.token({ tenant, role: "operator" }) },
    `bundling-${randomUUID()}`,
  );

/** The bundle record the console serves for the operation: its status, and its size when there is one. */
const bundleRecord = async (operationId: string) => {
  const answer = await consoleApi.request("GET", `/api/v1/debug-bundles/${operationId}`, {
    token: await consoleApi.token({ tenant, role: "operator" }),
  });
  return { status: answer.status, bytes: answer.status === 200 ? answer.json().bytes : undefined };
};

const javaHeartbeat = (agentId: string): JsonObject => {
  const heartbeat = example("java-2.3.0/heartbeat-light.json");
  (heartbeat.agentInfo as JsonObject).identifier = agentId;
  heartbeat.agentId = agentId;
  return heartbeat;
};

const operationsOf = (answer: Answer) =>
  answer.json().requestedOperations as { identifier: string; operation: string; operand?: string }[];

/** The JSON lines of the service's stdout that `accept` picks. */
const stdoutRecords = (accept: (record: Record<string, unknown>) => boolean) =>
  service.stdout.flatMap((line) => {
    try {
      const record = JSON.parse(line) as Record<string, unknown>;
      return accept(record) ? [record] : [];
    } catch {
      return [];
    }
  });

describe("the agent service", () => {
  it("answers its health check while it takes requests", async () => {
    const health = await send("GET", "/health");
    expect(health.status).toBe(200);
  });

  it.each([
    ["Beacon's paths", HEARTBEAT, ACKNOWLEDGE],
    [
      "the incumbent C2 server's paths",
      AgentRoutes.heartbeat.incumbentPath,
      AgentRoutes.acknowledge.incumbentPath,
    ],
  ])(
    "holds the Java agent's conversation with the certificate the load balancer verified, at %s",
    async (_, heartbeatPath, acknowledgePath) => {
      const agentId = `java-${randomUUID()}`;
      const first = await post(heartbeatPath, javaHeartbeat(agentId));
      expect(first.status, first.body).toBe(200);
      const [describe] = operationsOf(first);
      expect(describe).toMatchObject({ operation: "DESCRIBE", operand: "MANIFEST" });

      const ack = example("java-2.3.0/ack-describe-manifest.json");
      ack.operationId = describe?.identifier as string;
      (ack.agentInfo as JsonObject).identifier = agentId;
      const acknowledged = await post(acknowledgePath, ack);
      expect(acknowledged.status, acknowledged.body).toBe(200);
      expect(operationsOf(await post(heartbeatPath, javaHeartbeat(agentId)))).toEqual([]);
    },
  );

  it("refuses a path that is no agent route with 404, the incumbent's other paths among them", async () => {
    for (const refusedPath of [
      "/efm/api/c2-protocol/flows",
      "/efm/api/agent-classes",
      "/c2/api/heartbeats",
    ]) {
      const refused = await post(refusedPath, javaHeartbeat(`java-${randomUUID()}`));
      expect(refused.status, refusedPath).toBe(404);
      expect(refused.json()).toMatchObject({ error: { code: "route_not_found" } });
    }
  });

  it("refuses a request that carries no verified certificate, as the agent API does", async () => {
    const refused = await post(HEARTBEAT, javaHeartbeat(`java-${randomUUID()}`), {});
    expect(refused.status).toBe(401);
    expect(refused.json()).toMatchObject({ error: { code: "missing_client_certificate" } });
  });

  it("refuses a body above the agent API's limit with 413 before reading it", async () => {
    const refused = await post(HEARTBEAT, Buffer.alloc(MAX_BODY_BYTES + 1, "x"));
    expect(refused.status).toBe(413);
    // An agent's next heartbeat, on a connection of its own, is answered as ever.
    const answered = await send("POST", HEARTBEAT, {
      body: javaHeartbeat(`java-${randomUUID()}`),
      headers: fleet,
      agent: false,
    });
    expect(answered.status).toBe(200);
  });

  it("costs a steady heartbeat no DynamoDB request and one stream put, as on Lambda", async () => {
    const agent = cppAgentOf(`steady-${randomUUID()}`, "gateways");
    expect((await post(HEARTBEAT, agent.full())).status).toBe(200);
    expect((await post(HEARTBEAT, agent.light())).status).toBe(200);
    dynamoDb.reset();
    kinesis.reset();
    const steadyHeartbeats = 10;
    for (let index = 0; index < steadyHeartbeats; index++)
      expect(operationsOf(await post(HEARTBEAT, agent.light()))).toEqual([]);
    expect(dynamoDb.counts()).toEqual({});
    expect(kinesis.counts()).toEqual({ "Kinesis_20131202.PutRecords": steadyHeartbeats });
  });

  it("publishes each request's metrics and logs its records with its own request id, as each invocation's on Lambda", async () => {
    const agents = Array.from({ length: 8 }, () => `registered-${randomUUID()}`);
    const answers = await Promise.all(agents.map((agentId) => post(HEARTBEAT, javaHeartbeat(agentId))));
    for (const answer of answers) expect(answer.status).toBe(200);

    const registrations = await until("every registration's log record", async () => {
      const records = stdoutRecords(
        (record) => record.message === "agent registered" && agents.includes(String(record.agentId)),
      );
      return records.length === agents.length ? records : undefined;
    });
    for (const record of registrations)
      expect(record).toMatchObject({
        service: SERVICE_NAME,
        tenant,
        function_name: "agent-api",
        function_request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
    // Requests handled at the same time kept their own ids: none took another's.
    expect(new Set(registrations.map((record) => record.function_request_id)).size).toBe(agents.length);

    // EMF on stdout, which the task's log driver hands to CloudWatch: the `service` dimension alarms read.
    const registrationMetrics = stdoutRecords(
      (record) =>
        record._aws !== undefined &&
        record.service === SERVICE_NAME &&
        typeof record.Registrations === "number",
    );
    expect(registrationMetrics.length).toBeGreaterThanOrEqual(agents.length);
    expect(registrationMetrics[0]).toMatchObject({
      _aws: {
        CloudWatchMetrics: [expect.objectContaining({ Namespace: "Beacon", Dimensions: [["service"]] })],
      },
      Registrations: 1,
    });
  });

  it("streams a debug bundle of 16 MiB, past the agent API's body limit, to the bucket and refuses one byte more with 413", async () => {
    const { operationId, uploadPath } = await awaitingBundle();
    const uploaded = await uploadBundle(throughLoadBalancer, uploadPath, randomBytes(DEBUG_BUNDLE_MAX_BYTES));
    expect(uploaded.status, uploaded.body).toBe(201);
    expect(uploaded.json()).toMatchObject({ operationId, bytes: DEBUG_BUNDLE_MAX_BYTES });
    expect(await storedBundle(tenant, operationId)).toEqual({
      objects: [DEBUG_BUNDLE_MAX_BYTES],
      uploads: 0,
    });
    expect(await bundleRecord(operationId)).toEqual({ status: 200, bytes: DEBUG_BUNDLE_MAX_BYTES });

    const tooLarge = await awaitingBundle();
    const refused = await uploadBundle(
      throughLoadBalancer,
      tooLarge.uploadPath,
      randomBytes(DEBUG_BUNDLE_MAX_BYTES + 1),
    );
    expect(refused.status).toBe(413);
    expect(refused.json()).toMatchObject({ error: { code: "debug_bundle_too_large" } });
    expect(await storedBundle(tenant, tooLarge.operationId)).toEqual(nothingStored);
    expect((await bundleRecord(tooLarge.operationId)).status).toBe(404);
  });

  it("refuses a debug bundle that carries no verified certificate, storing nothing", async () => {
    const { operationId, uploadPath } = await awaitingBundle();
    const form = bundleForm(randomBytes(1024));
    const refused = await send("POST", uploadPath, {
      body: form.body,
      headers: { "content-type": form.contentType },
    });
    expect(refused.status).toBe(401);
    expect(refused.json()).toMatchObject({ error: { code: "missing_client_certificate" } });
    expect(await storedBundle(tenant, operationId)).toEqual(nothingStored);
    expect((await bundleRecord(operationId)).status).toBe(404);
  });

  // Last: the service is gone after it.
  it("on SIGTERM refuses new connections, fails its health check, finishes the requests in flight and exits 0", async () => {
    // A tenant for each request, which names it in every DynamoDB request it makes.
    const tenants = Array.from({ length: 4 }, () => `t-${randomUUID().slice(0, 8)}`);
    const [pipelinedTenant, ...otherTenants] = tenants as [string, ...string[]];
    const headersOf = async (ofTenant: string) =>
      loadBalancerHeaders(
        (await issueClientCertificate(certsDir, { tenant: ofTenant, fleet: true })).certPath,
      );
    const headers = await Promise.all(otherTenants.map(headersOf));
    const pipelinedHeaders = await headersOf(pipelinedTenant);
    dynamoDb.hold();
    const inFlight = headers.map((ofTenant) =>
      send("POST", HEARTBEAT, { body: javaHeartbeat("draining"), headers: ofTenant, agent: false }),
    );
    // One more on a connection the test writes itself, to send a second request on it while draining.
    const socket = connect(Number(new URL(baseUrl).port), "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("utf8");
    });
    const socketClosed = once(socket, "close");
    const body = JSON.stringify(javaHeartbeat("draining"));
    socket.write(
      `POST ${HEARTBEAT} HTTP/1.1\r\nhost: service\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n${Object.entries(pipelinedHeaders)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join("")}\r\n${body}`,
    );
    // Each request is in the handler, waiting for DynamoDB. Looked at often: from here, the service must be
    // draining well within DynamoDB's share of the agent answer budget, after which a request waits no more.
    await until(
      "every request to wait for DynamoDB",
      async () =>
        tenants.every((ofTenant) => dynamoDb.held().some((held) => held.includes(ofTenant)))
          ? true
          : undefined,
      60_000,
      FAST_POLL_MS,
    );

    const exited = once(service.child, "exit");
    service.child.kill("SIGTERM");
    await until(
      "new connections to be refused",
      async () => {
        const outcome = await send("GET", "/health", { agent: false }).then(
          () => undefined,
          (error: NodeJS.ErrnoException) => error.code,
        );
        return outcome === "ECONNREFUSED" ? true : undefined;
      },
      60_000,
      FAST_POLL_MS,
    );
    socket.write("GET /health HTTP/1.1\r\nhost: service\r\n\r\n");
    dynamoDb.release();

    for (const answer of await Promise.all(inFlight)) {
      expect(answer.status, answer.body).toBe(200);
      expect(operationsOf(answer)[0]).toMatchObject({ operation: "DESCRIBE", operand: "MANIFEST" });
    }
    await socketClosed;
    const [heartbeatAnswer, healthAnswer] = received.split(/(?=HTTP\/1\.1 )/);
    expect(heartbeatAnswer).toMatch(/^HTTP\/1\.1 200 /);
    expect(heartbeatAnswer).toContain('"operand":"MANIFEST"');
    expect(healthAnswer).toMatch(/^HTTP\/1\.1 503 /);
    expect(healthAnswer?.toLowerCase()).toContain("connection: close");
    expect(await exited).toEqual([0, null]);
  });
});
