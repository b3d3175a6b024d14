import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { inject } from "vitest";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import {
  type ClientCertificateRequest,
  ensureDevCertificates,
  issueClientCertificate,
} from "../local/certs.js";
import { type CountingProxy, startCountingProxy } from "../local/counting-proxy.js";
import { openTemporaryFunctionLog } from "../local/function-logs.js";
import { type BundleIngress, followAgentTrust, loadAgentApi } from "../local/function-routes.js";
import { startAgentGateway } from "../local/gateway.js";
import { findFreePort } from "../local/ports.js";

export interface PostOptions {
  /** Name of the client certificate in the certs folder (`<name>.pem`/`<name>.key`); dev-fleet by default. */
  certificate?: string;
  gzip?: boolean;
  /** Send the body with Transfer-Encoding: chunked and no Content-Length, as the Java agent does. */
  chunked?: boolean;
  headers?: Record<string, string>;
  /** Bytes sent exactly as given, instead of the JSON of the body argument. */
  rawBody?: Buffer;
  /** A connection of its own, with the certificate's files as they are now: a handshake of its own. */
  newConnection?: boolean;
}

export interface AgentResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body as it came, for bodies that are not text (assets). */
  bytes: Buffer;
  json(): Record<string, unknown>;
}

/**
 * What an agent's requests need of the agent API, whichever way it is reached: the gateway here, or the agent
 * service behind the load balancer, which gets the named certificate in the balancer's headers.
 */
export interface AgentApiClient {
  post(
    path: string,
    body: unknown,
    options?: Pick<PostOptions, "certificate" | "headers" | "rawBody">,
  ): Promise<AgentResponse>;
}

export interface AgentApiUnderTest extends AgentApiClient {
  url: string;
  certsDir: string;
  /** Requests the handler made to DynamoDB, by X-Amz-Target, since the last reset. */
  dynamoDb: CountingProxy;
  kinesis: CountingProxy;
  /** Requests the handler made to S3, by method and path. */
  s3: CountingProxy;
  env: Record<string, string>;
  /** The JSON-lines file the handler's log records and metric lines go to, as `npm start`'s do. */
  functionLog: string;
  post(path: string, body: unknown, options?: PostOptions): Promise<AgentResponse>;
  /** A GET with no body, as agents fetch a flow. */
  get(
    path: string,
    options?: Pick<PostOptions, "certificate" | "headers" | "newConnection">,
  ): Promise<AgentResponse>;
  /** Issues a client certificate from this file's dev CA; returns its name for PostOptions.certificate. */
  issueCertificate(request: ClientCertificateRequest): Promise<string>;
  /** Has the gateway read the certs folder again (it also does when the folder changes). */
  reloadTrust(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The real agent-api handler behind the real mutual-TLS gateway, in this test file's own process, on
 * the backends the integration project's global setup started. DynamoDB and Kinesis calls go through
 * counting proxies so that tests can assert what a request cost.
 */
export async function startAgentApi(
  overrides: Record<string, string> = {},
  bundles: BundleIngress = "streaming",
  options: { bindingsFromCertsFolder?: boolean } = {},
): Promise<AgentApiUnderTest> {
  const backends = inject("beaconEnv");
  const dynamoDb = await startCountingProxy(backends[AwsEndpointEnvNames.dynamodb] as string);
  const kinesis = await startCountingProxy(backends[AwsEndpointEnvNames.kinesis] as string);
  const s3 = await startCountingProxy(backends[AwsEndpointEnvNames.s3] as string);
  // The agent API reads its own URL, for the flow downloads it sends agents to, when it loads: before the
  // gateway listens. So the gateway's port is chosen first.
  const port = await findFreePort();
  const env: Record<string, string> = {
    ...backends,
    [AwsEndpointEnvNames.dynamodb]: dynamoDb.url,
    [AwsEndpointEnvNames.kinesis]: kinesis.url,
    [AwsEndpointEnvNames.s3]: s3.url,
    [EnvNames.agentApiUrl]: `https://127.0.0.1:${port}`,
    POWERTOOLS_LOG_LEVEL: "ERROR",
    ...overrides,
  };
  const functionLog = openTemporaryFunctionLog();
  const agentApi = await loadAgentApi(env, functionLog.log, bundles);

  const certsDir = mkdtempSync(path.join(tmpdir(), "beacon-certs-"));
  await ensureDevCertificates(certsDir);
  const gateway = await startAgentGateway({
    port,
    certsDir,
    routes: agentApi.routes,
    // As npm start: the agent API's bindings follow the certs folder, with the gateway's trust.
    ...(options.bindingsFromCertsFolder ? { onTrust: followAgentTrust } : {}),
  });
  const agents = new Map<string, Agent>();
  const newAgent = (name: string, keepAlive: boolean) =>
    new Agent({
      keepAlive,
      maxSockets: 100,
      ca: readFileSync(path.join(certsDir, "ca.pem")),
      cert: readFileSync(path.join(certsDir, `${name}.pem`)),
      key: readFileSync(path.join(certsDir, `${name}.key`)),
    });
  const agentFor = (name: string, options: { newConnection?: boolean }) => {
    if (options.newConnection) return newAgent(name, false);
    let agent = agents.get(name);
    if (!agent) {
      agent = newAgent(name, true);
      agents.set(name, agent);
    }
    return agent;
  };

  return {
    url: gateway.url,
    certsDir,
    dynamoDb,
    kinesis,
    s3,
    env,
    functionLog: functionLog.log.file,
    post: (requestPath, body, options = {}) =>
      send(
        new URL(requestPath, gateway.url),
        body,
        agentFor(options.certificate ?? "dev-fleet", options),
        options,
      ),
    get: (requestPath, options = {}) =>
      send(
        new URL(requestPath, gateway.url),
        undefined,
        agentFor(options.certificate ?? "dev-fleet", options),
        { ...options, method: "GET" },
      ),
    async issueCertificate(certificateRequest) {
      const issued = await issueClientCertificate(certsDir, certificateRequest);
      return path.basename(issued.certPath, ".pem");
    },
    reloadTrust: () => gateway.reloadTrust(),
    async close() {
      for (const agent of agents.values()) agent.destroy();
      await gateway.close();
      await agentApi.shutdown();
      functionLog.close();
      await Promise.all([dynamoDb.close(), kinesis.close(), s3.close()]);
      rmSync(certsDir, { recursive: true, force: true });
    },
  };
}

function send(
  url: URL,
  body: unknown,
  agent: Agent,
  options: PostOptions & { method?: "GET" },
): Promise<AgentResponse> {
  const method = options.method ?? "POST";
  const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
  const payload = options.rawBody ?? (options.gzip ? gzipSync(text) : Buffer.from(text));
  const headers: Record<string, string> = {
    ...(method === "POST" ? { "content-type": "application/json" } : {}),
    ...(options.gzip ? { "content-encoding": "gzip" } : {}),
    ...(options.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(payload.length) }),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, agent, headers, timeout: 60_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString("utf8");
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: text,
          bytes,
          json: () => JSON.parse(text),
        });
      });
      response.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.on("timeout", () => outgoing.destroy(new Error(`request to ${url} timed out`)));
    if (options.chunked) {
      // Several writes, so the body really crosses the wire in more than one chunk.
      const step = Math.max(1, Math.ceil(payload.length / 4));
      for (let offset = 0; offset < payload.length; offset += step)
        outgoing.write(payload.subarray(offset, offset + step));
      outgoing.end();
    } else {
      outgoing.end(payload);
    }
  });
}
