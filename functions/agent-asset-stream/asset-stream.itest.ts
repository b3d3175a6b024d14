/**
 * Asset downloads through the REST API that streams (`agentIngress=api`): the function's streaming handler, given
 * the REST API's event as API Gateway sends it after mutual TLS on the agent domain, answers with the same agent
 * app as every door, on the backends the integration project's global setup started, and pipes an asset past what
 * a buffered invocation carries to its response stream a few chunks at a time.
 *
 * "A few chunks at a time" is measured as read-ahead: the bytes the function has read off its connection to the
 * bucket less those the response stream has taken. The process's memory says nothing of it here: the harness's
 * S3 proxy relays the same bytes in this process, and chunks already sent linger as garbage until a collection.
 */
import { createHash, randomUUID } from "node:crypto";
import { subscribe } from "node:diagnostics_channel";
import { readFileSync } from "node:fs";
import type { ClientRequest } from "node:http";
import type { Socket } from "node:net";
import path from "node:path";
import { Writable } from "node:stream";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { afterAll, beforeAll, expect, it } from "vitest";
import { certificateSummary } from "../../scripts/local/certs.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { assetStore, type StoredAsset } from "../../scripts/test-support/stored-assets.js";
import { FunctionTimeouts } from "../shared/function-timeouts.js";
import { invoker } from "../shared/invocations.js";
import type { HttpResponseMetadata, StreamingHandler } from "./asset-stream.js";

const MIB = 1024 * 1024;
let api: AgentApiUnderTest;
let handler: StreamingHandler;
let fleetOfA: string;
let fleetOfB: string;
let stored: (sizeBytes: number) => Promise<StoredAsset>;
const tenantA = `a-${randomUUID().slice(0, 8)}`;
const tenantB = `b-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  // The agent app's environment, as the function construct sets it, before the handler's module loads.
  api = await startAgentApi();
  fleetOfA = await api.issueCertificate({ tenant: tenantA, fleet: true });
  fleetOfB = await api.issueCertificate({ tenant: tenantB, fleet: true });
  const assets = assetStore(api.env);
  stored = (sizeBytes) => assets.put(tenantA, sizeBytes);
  const { assetStreamHandler } = await import("./asset-stream.js");
  // The metadata as Lambda's runtime takes it from HttpResponseStream.from, the body written after it.
  handler = assetStreamHandler((responseStream, metadata) => {
    (responseStream as DownloadSink).metadata = metadata;
    return responseStream;
  });
});

afterAll(async () => {
  await api?.close();
});

/** A GET the function sent to the bucket, and how many bytes its connection had read when it was sent. */
interface BucketRead {
  request: ClientRequest;
  socket?: Socket;
  bytesReadBefore: number;
}

const bucketReads: BucketRead[] = [];
// Every HTTP request the process starts; the bucket's reads are picked out by where they go (bucketReadOf).
subscribe("http.client.request.start", (message) => {
  const { request } = message as { request: ClientRequest };
  const read: BucketRead = { request, bytesReadBefore: 0 };
  const onSocket = (socket: Socket) => {
    read.socket = socket;
    read.bytesReadBefore = socket.bytesRead;
  };
  if (request.socket) onSocket(request.socket);
  else request.once("socket", onSocket);
  bucketReads.push(read);
});

/** The function's GET of an asset's object: on a connection to the S3 endpoint it was given (not the proxy's own). */
const bucketReadOf = (assetId: string): BucketRead | undefined =>
  bucketReads.findLast(
    ({ request, socket }) =>
      request.method === "GET" &&
      request.path.includes(assetId) &&
      String(socket?.remotePort) === new URL(api.s3.url).port,
  );

/**
 * What the agent receives, taken a chunk at a time with a pause between chunks, as a slower link takes it: only
 * its length and digest are kept. At every chunk it notes how far the function's read of the asset from the bucket
 * has run ahead of what it has received.
 */
class DownloadSink extends Writable {
  metadata?: HttpResponseMetadata;
  readonly digest = createHash("sha256");
  bytes = 0;
  text = "";
  maxReadAhead = 0;

  constructor(private readonly assetId: string) {
    super({ highWaterMark: 64 * 1024 });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const read = bucketReadOf(this.assetId);
    if (read?.socket) {
      // The chunk in hand counts as held: a body read whole and sent as one chunk is read ahead whole.
      const readFromBucket = read.socket.bytesRead - read.bytesReadBefore;
      this.maxReadAhead = Math.max(this.maxReadAhead, readFromBucket - this.bytes);
    }
    this.digest.update(chunk);
    this.bytes += chunk.length;
    if (this.bytes <= 64 * 1024) this.text += chunk.toString("utf8");
    setImmediate(done);
  }
}

/** The event API Gateway's REST API sends for GET <mapping>/{assetId}/content, the certificate it verified. */
function restEvent(assetId: string, certificate: string | undefined): APIGatewayProxyEvent {
  const clientCert = certificate
    ? certificateSummary(readFileSync(path.join(api.certsDir, `${certificate}.pem`)))
    : null;
  return {
    httpMethod: "GET",
    resource: "/{assetId}/content",
    path: `/${assetId}/content`,
    pathParameters: { assetId },
    headers: { Host: "agents.test" },
    multiValueHeaders: { Host: ["agents.test"] },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    // Of API Gateway's request context (account, stage, request id and more) the door reads the identity alone.
    requestContext: { identity: { clientCert } } as unknown as APIGatewayProxyEvent["requestContext"],
  };
}

const invoke = invoker(
  {
    name: "agent-asset-stream",
    timeoutSeconds: FunctionTimeouts.agentAssetStream,
    arn: "arn:aws:lambda:local:000000000000:function:agent-asset-stream",
    memoryLimitInMB: "256",
    logGroupName: "/aws/lambda/agent-asset-stream",
    logStreamName: "local",
  },
  async (event: APIGatewayProxyEvent, context) => {
    const sink = new DownloadSink(event.pathParameters?.assetId ?? "");
    await handler(event, sink, context);
    return sink;
  },
);

it("streams an asset past what an invocation carries whole, its bytes those stored, a few chunks read ahead", async () => {
  // Twice what a buffered invocation's response carries (6 MB).
  const size = 12 * MIB;
  const { assetId } = await stored(size);

  const sink = await invoke(restEvent(assetId, fleetOfA));

  expect(sink.metadata).toEqual({
    statusCode: 200,
    headers: {
      etag: `"${assetId}"`,
      "cache-control": "private, no-cache",
      "content-type": "application/octet-stream",
      "content-length": String(size),
    },
  });
  expect(sink.bytes).toBe(size);
  expect(sink.digest.digest("hex")).toBe(assetId);
  expect(bucketReadOf(assetId)?.socket, "the function's read of the asset from the bucket").toBeDefined();
  // Each stream on the way holds up to its high-water mark (64 KiB): a handful of them, whatever the asset's size.
  expect(sink.maxReadAhead, `read ${(sink.maxReadAhead / MIB).toFixed(2)} MiB ahead`).toBeLessThan(MIB);
});

it("answers another tenant's certificate 404, with nothing of the asset", async () => {
  const { assetId } = await stored(1024);
  const sink = await invoke(restEvent(assetId, fleetOfB));
  expect(sink.metadata?.statusCode).toBe(404);
  expect(JSON.parse(sink.text)).toMatchObject({ error: { code: "not_found" } });
  expect(sink.bytes).toBeLessThan(1024);
});

it("answers an unknown asset 404 in JSON", async () => {
  const unknown = createHash("sha256").update(randomUUID()).digest("hex");
  const sink = await invoke(restEvent(unknown, fleetOfA));
  expect(sink.metadata).toMatchObject({ statusCode: 404, headers: { "content-type": "application/json" } });
  expect(JSON.parse(sink.text)).toMatchObject({ error: { code: "not_found" } });
});

it("answers a request without a certificate 401, as every door does", async () => {
  const { assetId } = await stored(1024);
  const sink = await invoke(restEvent(assetId, undefined));
  expect(sink.metadata?.statusCode).toBe(401);
  expect(JSON.parse(sink.text)).toMatchObject({ error: { code: "missing_client_certificate" } });
});
