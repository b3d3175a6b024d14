import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import type { OutgoingHttpHeaders } from "node:http";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { gunzipSync, gzipSync } from "node:zlib";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type CertificateAndKey,
  createCertificateAuthority,
  issueWithCa,
} from "../../functions/adapters/x509/issuer.js";
import { type DevCertificates, ensureDevCertificates } from "./certs.js";
import { type AgentGateway, startAgentGateway } from "./gateway.js";

const TEN_MB = 10 * 1024 * 1024;
const HEARTBEAT_REPLY = JSON.stringify({ requestedOperations: [] });
const FLOW_BYTES = Buffer.from([0, 1, 2, 250, 251, 252]);

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  reusedSocket: boolean;
  localPort: number | undefined;
}

interface SendOptions {
  method?: string;
  path: string;
  headers?: OutgoingHttpHeaders;
  /** Sent with a Content-Length. */
  body?: Buffer;
  /** Sent with Transfer-Encoding: chunked and no Content-Length, like the Java agent's gzip bodies. */
  chunks?: Buffer[];
  /** The client certificate; null for none. Defaults to the dev agent's. */
  identity?: CertificateAndKey | null;
  agent?: Agent;
}

let dir: string;
let certificates: DevCertificates;
let agentIdentity: CertificateAndKey;
let gateway: AgentGateway;
const events: APIGatewayProxyEventV2[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "beacon-gateway-"));
  certificates = await ensureDevCertificates(dir);
  agentIdentity = await readIdentity(certificates.agent);
  gateway = await startAgentGateway({
    port: 0,
    certsDir: dir,
    routes: [
      {
        method: "POST",
        path: "/c2/api/heartbeat",
        handler: async (event) => {
          events.push(event);
          return { statusCode: 200, headers: { "content-type": "application/json" }, body: HEARTBEAT_REPLY };
        },
      },
      {
        method: "GET",
        path: "/c2/api/flows/{flowId}/content",
        handler: async (event) => {
          events.push(event);
          return {
            statusCode: 200,
            headers: { "content-type": "application/octet-stream", "x-flow-version": 3 },
            cookies: ["a=1", "b=2"],
            body: FLOW_BYTES.toString("base64"),
            isBase64Encoded: true,
          };
        },
      },
      {
        method: "POST",
        path: "/c2/api/acknowledge",
        handler: async (event) => {
          events.push(event);
          return { accepted: true } as never;
        },
      },
      {
        method: "POST",
        path: "/c2/api/explode",
        handler: async (event) => {
          events.push(event);
          throw new Error("secret detail that must not leak");
        },
      },
    ],
  });
});

afterEach(() => {
  events.length = 0;
  vi.restoreAllMocks();
});

afterAll(async () => {
  await gateway.close();
  await rm(dir, { recursive: true, force: true });
});

async function readIdentity(paths: { certPath: string; keyPath: string }): Promise<CertificateAndKey> {
  return { certPem: await readFile(paths.certPath, "utf8"), keyPem: await readFile(paths.keyPath, "utf8") };
}

function send(options: SendOptions): Promise<Reply> {
  const identity = options.identity === undefined ? agentIdentity : options.identity;
  return new Promise((resolve, reject) => {
    const outgoing = request(`${gateway.url}${options.path}`, {
      method: options.method ?? "POST",
      headers: options.headers,
      ca: certificates.caPem,
      ...(identity ? { cert: identity.certPem, key: identity.keyPem } : {}),
      agent: options.agent ?? false,
    });
    let answered = false;
    outgoing.on("response", (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
          reusedSocket: outgoing.reusedSocket,
          localPort: outgoing.socket?.localPort,
        }),
      );
    });
    // A server that answers before reading the whole body (413) closes under the client's remaining writes.
    outgoing.on("error", (error) => {
      if (!answered) reject(error);
    });
    if (options.chunks) {
      for (const chunk of options.chunks) outgoing.write(chunk);
      outgoing.end();
    } else {
      outgoing.end(options.body);
    }
  });
}

const json = (reply: Reply): unknown => JSON.parse(reply.body.toString("utf8"));

describe("startAgentGateway", () => {
  it("builds the payload format 2.0 event API Gateway sends, client certificate included", async () => {
    const body = Buffer.from(JSON.stringify({ agentInfo: { identifier: "dev-agent-1" } }));
    const reply = await send({
      path: "/c2/api/heartbeat?flag=1&flag=2&mode=full",
      headers: {
        "Content-Type": "application/json; charset=utf-8",
        "User-Agent": "okhttp/4.12.0",
        "X-Repeated": ["one", "two"],
        Cookie: "session=abc; theme=dark",
      },
      body,
    });

    expect(reply.status).toBe(200);
    expect(reply.body.toString()).toBe(HEARTBEAT_REPLY);
    expect(reply.headers["apigw-requestid"]).toEqual(expect.any(String));
    expect(events).toHaveLength(1);
    const event = events[0] as APIGatewayProxyEventV2;
    expect(event).toMatchObject({
      version: "2.0",
      routeKey: "POST /c2/api/heartbeat",
      rawPath: "/c2/api/heartbeat",
      rawQueryString: "flag=1&flag=2&mode=full",
      queryStringParameters: { flag: "1,2", mode: "full" },
      cookies: ["session=abc", "theme=dark"],
      body: body.toString(),
      isBase64Encoded: false,
    });
    expect(event.pathParameters).toBeUndefined();
    expect(event.headers).toMatchObject({
      "content-type": "application/json; charset=utf-8",
      "content-length": String(body.length),
      "user-agent": "okhttp/4.12.0",
      "x-repeated": "one,two",
      "x-forwarded-for": "127.0.0.1",
      "x-forwarded-proto": "https",
      "x-forwarded-port": String(gateway.port),
    });
    expect(Object.keys(event.headers).every((name) => name === name.toLowerCase())).toBe(true);
    expect(event.headers.cookie).toBeUndefined();

    const context = event.requestContext;
    expect(context).toMatchObject({
      routeKey: "POST /c2/api/heartbeat",
      stage: "$default",
      domainName: "127.0.0.1",
      requestId: reply.headers["apigw-requestid"],
      http: {
        method: "POST",
        path: "/c2/api/heartbeat",
        protocol: "HTTP/1.1",
        sourceIp: "127.0.0.1",
        userAgent: "okhttp/4.12.0",
      },
    });
    expect(context.time).toMatch(/^\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d \+0000$/);
    expect(Math.abs(context.timeEpoch - Date.now())).toBeLessThan(60_000);

    const agentCertificate = new X509Certificate(agentIdentity.certPem);
    expect(context.authentication?.clientCert).toEqual({
      clientCertPem: agentCertificate.toString(),
      subjectDN: "CN=dev-agent-1,OU=agent,O=dev",
      issuerDN: "CN=Beacon Dev CA,O=Beacon",
      serialNumber: BigInt(`0x${agentCertificate.serialNumber}`).toString(10),
      validity: { notBefore: agentCertificate.validFrom, notAfter: agentCertificate.validTo },
    });
    expect(context.authentication?.clientCert.validity.notAfter).toMatch(
      /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4} GMT$/,
    );
  });

  it("hands over the fleet certificate's subject for fleet clients", async () => {
    await send({
      path: "/c2/api/heartbeat",
      headers: { "content-type": "application/json" },
      body: Buffer.from("{}"),
      identity: await readIdentity(certificates.fleet),
    });
    expect(events[0]?.requestContext.authentication?.clientCert.subjectDN).toBe(
      "CN=dev-fleet,OU=fleet,O=dev",
    );
  });

  it("passes a gzip body with Content-Length as base64", async () => {
    const json = JSON.stringify({ heartbeat: "x".repeat(5000) });
    const reply = await send({
      path: "/c2/api/heartbeat",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: gzipSync(json),
    });
    expect(reply.status).toBe(200);
    const event = events[0] as APIGatewayProxyEventV2;
    expect(event.isBase64Encoded).toBe(true);
    expect(gunzipSync(Buffer.from(event.body as string, "base64")).toString()).toBe(json);
  });

  it("accepts a chunked gzip body without Content-Length, as the Java agent sends it", async () => {
    const json = JSON.stringify({ heartbeat: "y".repeat(200_000) });
    const compressed = gzipSync(json);
    const middle = Math.floor(compressed.length / 2);
    const reply = await send({
      path: "/c2/api/heartbeat",
      headers: { "content-type": "application/json; charset=utf-8", "content-encoding": "gzip" },
      chunks: [compressed.subarray(0, middle), compressed.subarray(middle)],
    });
    expect(reply.status).toBe(200);
    const event = events[0] as APIGatewayProxyEventV2;
    expect(event.headers["content-length"]).toBeUndefined();
    expect(event.headers["transfer-encoding"]).toBe("chunked");
    expect(event.isBase64Encoded).toBe(true);
    expect(gunzipSync(Buffer.from(event.body as string, "base64")).toString()).toBe(json);
  });

  it("passes a binary body as base64 and leaves body out when there is none", async () => {
    await send({
      path: "/c2/api/heartbeat",
      headers: { "content-type": "application/octet-stream" },
      body: FLOW_BYTES,
    });
    await send({ path: "/c2/api/heartbeat" });
    expect(events[0]).toMatchObject({ isBase64Encoded: true, body: FLOW_BYTES.toString("base64") });
    expect(events[1]?.isBase64Encoded).toBe(false);
    expect(events[1]).not.toHaveProperty("body");
  });

  it("accepts a body of exactly the limit", async () => {
    const reply = await send({
      path: "/c2/api/heartbeat",
      headers: { "content-type": "application/octet-stream" },
      body: Buffer.alloc(TEN_MB, 1),
    });
    expect(reply.status).toBe(200);
    expect(Buffer.from(events[0]?.body as string, "base64").length).toBe(TEN_MB);
  });

  it("answers 413 to a body one byte over the limit with Content-Length, without calling the handler", async () => {
    const reply = await send({
      path: "/c2/api/heartbeat",
      headers: { "content-type": "application/octet-stream" },
      body: Buffer.alloc(TEN_MB + 1, 1),
    });
    expect(reply.status).toBe(413);
    expect(json(reply)).toEqual({ message: "Request Entity Too Large" });
    expect(events).toHaveLength(0);
  });

  it("answers 413 to a chunked body once it passes the limit, without calling the handler", async () => {
    const megabyte = Buffer.alloc(1024 * 1024, 2);
    const reply = await send({
      path: "/c2/api/heartbeat",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      chunks: [...Array.from({ length: 10 }, () => megabyte), Buffer.alloc(1, 2)],
    });
    expect(reply.status).toBe(413);
    expect(json(reply)).toEqual({ message: "Request Entity Too Large" });
    expect(events).toHaveLength(0);
    // The gateway still serves the next request.
    expect((await send({ path: "/c2/api/heartbeat" })).status).toBe(200);
  });

  it("answers 404 JSON to an unknown route or method, like API Gateway", async () => {
    const unknownPath = await send({ path: "/c2/api/unknown" });
    const wrongMethod = await send({ method: "GET", path: "/c2/api/heartbeat" });
    for (const reply of [unknownPath, wrongMethod]) {
      expect(reply.status).toBe(404);
      expect(reply.headers["content-type"]).toBe("application/json");
      expect(json(reply)).toEqual({ message: "Not Found" });
    }
    expect(events).toHaveLength(0);
  });

  it("fills pathParameters from {param} segments and decodes a base64 reply", async () => {
    const reply = await send({ method: "GET", path: "/c2/api/flows/flow%201/content" });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(FLOW_BYTES);
    expect(reply.headers["x-flow-version"]).toBe("3");
    expect(reply.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(events[0]).toMatchObject({
      routeKey: "GET /c2/api/flows/{flowId}/content",
      rawPath: "/c2/api/flows/flow%201/content",
      pathParameters: { flowId: "flow 1" },
    });
  });

  it("answers a result without statusCode as a 200 JSON body, as payload format 2.0 does", async () => {
    const reply = await send({ path: "/c2/api/acknowledge" });
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("application/json");
    expect(json(reply)).toEqual({ accepted: true });
  });

  it("keeps the connection alive across requests", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const replies: Reply[] = [];
      for (let index = 0; index < 3; index++) {
        replies.push(await send({ path: "/c2/api/heartbeat", agent, identity: agentIdentity }));
      }
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200]);
      expect(replies.map((reply) => reply.reusedSocket)).toEqual([false, true, true]);
      expect(new Set(replies.map((reply) => reply.localPort)).size).toBe(1);
      expect(events.map((event) => event.requestContext.authentication?.clientCert.subjectDN)).toEqual([
        "CN=dev-agent-1,OU=agent,O=dev",
        "CN=dev-agent-1,OU=agent,O=dev",
        "CN=dev-agent-1,OU=agent,O=dev",
      ]);
    } finally {
      agent.destroy();
    }
  });

  it("resumes no session from a ticket it sent, before and after its trust is reloaded", async () => {
    const { hostname, port } = new URL(gateway.url);
    /** One heartbeat on a connection of its own, as a MiNiFi C++ agent sends it, offering `session` to resume. */
    const heartbeat = (session?: Buffer) =>
      new Promise<{ resumed: boolean; tickets: Buffer[] }>((resolve, reject) => {
        const tickets: Buffer[] = [];
        let resumed = false;
        const socket = connect({
          host: hostname,
          port: Number(port),
          servername: "localhost",
          ca: certificates.caPem,
          cert: agentIdentity.certPem,
          key: agentIdentity.keyPem,
          ...(session ? { session } : {}),
        });
        socket.on("session", (ticket: Buffer) => tickets.push(ticket));
        socket.on("secureConnect", () => {
          resumed = socket.isSessionReused();
          socket.write("POST /c2/api/heartbeat HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        });
        socket.on("error", reject);
        socket.on("close", () => resolve({ resumed, tickets }));
        socket.resume();
      });
    const first = await heartbeat();
    expect(first.tickets.length).toBeGreaterThan(0);
    const again = await heartbeat(first.tickets.at(-1));
    expect(again.resumed).toBe(false);
    await gateway.reloadTrust();
    const afterReload = await heartbeat(again.tickets.at(-1));
    expect(afterReload.resumed).toBe(false);
    expect(events).toHaveLength(3);
  });

  it("fails the handshake of a client without a certificate", async () => {
    await expect(send({ path: "/c2/api/heartbeat", identity: null })).rejects.toThrow();
    expect(events).toHaveLength(0);
  });

  it("fails the handshake of a client whose certificate an unknown CA signed", async () => {
    const unknownCa = await createCertificateAuthority("Unknown CA");
    const impostor = await issueWithCa(unknownCa, {
      subject: { commonName: "dev-agent-1", organizationalUnit: "agent", organization: "dev" },
      usage: "clientAuth",
    });
    await expect(send({ path: "/c2/api/heartbeat", identity: impostor })).rejects.toThrow();
    expect(events).toHaveLength(0);
  });

  it("answers 500 JSON without the error when the handler throws, and logs it once", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const reply = await send({ path: "/c2/api/explode", headers: { "content-type": "application/json" } });
    expect(reply.status).toBe(500);
    expect(json(reply)).toEqual({ message: "Internal Server Error" });
    expect(reply.body.toString()).not.toContain("secret");
    expect(logged).toHaveBeenCalledTimes(1);
  });
});
