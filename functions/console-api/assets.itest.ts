/**
 * Assets end to end on the local stack: uploaded through the console's gateway as raw bytes, kept in S3
 * (S3Proxy) per tenant and recorded in DynamoDB, listed, read and deleted; refused uploads store nothing;
 * downloaded by agents over the real mutual-TLS gateway with certificates of their tenant only.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { DynamoUsage } from "../adapters/dynamodb/usage.js";
import { MAX_INLINE_ASSET_BYTES } from "../core/assets/model.js";
import { makeDocumentClient } from "../runtime/aws-clients/dynamodb.js";
import { makeS3Client } from "../runtime/aws-clients/s3.js";
import { AwsEndpointEnvNames, EnvNames } from "../shared/env-names.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let operator: string;
let viewer: string;
const env = inject("beaconEnv");
const s3 = makeS3Client(env);

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function upload(name: string | undefined, bytes: Uint8Array, contentType?: string, token = operator) {
  const query = name === undefined ? "" : `?name=${encodeURIComponent(name)}`;
  return consoleApi.request("POST", `/api/v1/assets${query}`, {
    token,
    body: bytes,
    headers: contentType === undefined ? {} : { "content-type": contentType },
  });
}

/** The keys the tenant has in the asset bucket: what was really stored, whatever the API says. */
async function storedKeys(ofTenant = tenant): Promise<string[]> {
  const listed = await s3.send(
    new ListObjectsV2Command({ Bucket: env[EnvNames.assetBucket] as string, Prefix: `${ofTenant}/` }),
  );
  return (listed.Contents ?? []).map((object) => object.Key as string).sort();
}

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  tenant = `assets-${randomUUID().slice(0, 8)}`;
  operator = await consoleApi.token({ tenant, role: "operator" });
  viewer = await consoleApi.token({ tenant, role: "viewer" });
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
  s3.destroy();
});

describe("the console's asset store", () => {
  it("keeps any bytes, up to the one-request limit of 4 MiB, under their SHA-256 in the tenant's part of the bucket", async () => {
    const model = randomBytes(MAX_INLINE_ASSET_BYTES);
    const created = await upload("pump-model.onnx", model, "application/octet-stream");
    expect(created.status, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      assetId: sha256(model),
      name: "pump-model.onnx",
      sizeBytes: MAX_INLINE_ASSET_BYTES,
      contentType: "application/octet-stream",
      usedBy: [],
    });
    expect(await storedKeys()).toEqual([`${tenant}/assets/${sha256(model)}`]);
    const again = await upload("pump-model.onnx", model, "application/octet-stream");
    expect(again.status).toBe(200);
    expect(again.json()).toEqual(created.json());
  });

  it("lists the tenant's assets page by page, reads one, and deletes it with its bytes", async () => {
    const names = ["a.txt", "b.txt", "c.txt"];
    const ids = [];
    for (const name of names) {
      const response = await upload(name, Buffer.from(`${tenant} ${name}\n`), "text/plain; charset=utf-8");
      expect(response.status, response.body).toBe(201);
      ids.push(response.json().assetId as string);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const query = cursor === undefined ? "?limit=2" : `?limit=2&cursor=${cursor}`;
      const page = await consoleApi.request("GET", `/api/v1/assets${query}`, { token: viewer });
      expect(page.status, page.body).toBe(200);
      const body = page.json() as { items: { name: string }[]; nextCursor?: string };
      expect(body.items.length).toBeLessThanOrEqual(2);
      seen.push(...body.items.map((item) => item.name));
      cursor = body.nextCursor;
    } while (cursor !== undefined);
    expect(seen.sort()).toEqual(["a.txt", "b.txt", "c.txt", "pump-model.onnx"]);

    const [first] = ids as [string];
    const read = await consoleApi.request("GET", `/api/v1/assets/${first}`, { token: viewer });
    expect(read.json()).toMatchObject({
      assetId: first,
      name: "a.txt",
      contentType: "text/plain; charset=utf-8",
    });
    const asViewer = await consoleApi.request("DELETE", `/api/v1/assets/${first}`, { token: viewer });
    expect(asViewer.status).toBe(403);
    const deleted = await consoleApi.request("DELETE", `/api/v1/assets/${first}`, { token: operator });
    expect(deleted.status, deleted.body).toBe(200);
    expect(await storedKeys()).not.toContain(`${tenant}/assets/${first}`);
    const gone = await consoleApi.request("GET", `/api/v1/assets/${first}`, { token: viewer });
    expect(gone.status).toBe(404);
  });

  it("serves an asset's bytes as uploaded, by a short-lived link, with their media type and name, to the tenant's viewers and to no one else", async () => {
    const bytes = randomBytes(1024 * 1024);
    const stored = await upload("lookup.bin", bytes, "application/vnd.beacon-test");
    expect(stored.status, stored.body).toBe(201);
    const contentOf = (
      token: string,
      redirect: NonNullable<RequestInit["redirect"]> = "follow",
      query = "",
    ) =>
      fetch(new URL(`/api/v1/assets/${sha256(bytes)}/content${query}`, consoleApi.url), {
        headers: { authorization: `Bearer ${token}` },
        redirect,
        signal: AbortSignal.timeout(30_000),
      });
    // A redirect to the bucket (S3Proxy), presigned: no credentials of the caller's go with it.
    const redirected = await contentOf(viewer, "manual");
    expect(redirected.status).toBe(302);
    const location = redirected.headers.get("location") as string;
    expect(await redirected.json()).toEqual({ location });
    expect(new URL(location).origin).toBe(new URL(env[AwsEndpointEnvNames.s3] as string).origin);
    expect(new URL(location).searchParams.get("X-Amz-Expires")).toBe("300");
    // For a page, which cannot read a redirect: the same kind of link in a 200's body.
    const linked = await contentOf(viewer, "manual", "?redirect=false");
    expect(linked.status).toBe(200);
    expect(new URL(((await linked.json()) as { location: string }).location).pathname).toBe(
      new URL(location).pathname,
    );
    const read = await fetch(location, { signal: AbortSignal.timeout(30_000) });
    expect(read.status).toBe(200);
    expect(read.headers.get("content-type")).toBe("application/vnd.beacon-test");
    expect(read.headers.get("content-disposition")).toBe('attachment; filename="lookup.bin"');
    // Followed as curl -L or fetch follows it, the caller's token left behind.
    expect(sha256(new Uint8Array(await (await contentOf(viewer)).arrayBuffer()))).toBe(sha256(bytes));
    const received = new Uint8Array(await read.arrayBuffer());
    expect(received.length).toBe(bytes.length);
    expect(sha256(received)).toBe(sha256(bytes));
    const other = await consoleApi.token({ tenant: `${tenant}-other`, role: "admin" });
    expect((await contentOf(other)).status).toBe(404);
    const deleted = await consoleApi.request("DELETE", `/api/v1/assets/${sha256(bytes)}`, {
      token: operator,
    });
    expect(deleted.status, deleted.body).toBe(200);
    expect((await contentOf(viewer)).status).toBe(404);
  });

  it("is another tenant's to no one: its assets answer 404 and its lists are empty", async () => {
    const other = await consoleApi.token({ tenant: `${tenant}-other`, role: "admin" });
    const bytes = Buffer.from(`${tenant} secret`);
    const stored = await upload("secret.txt", bytes, "text/plain");
    expect(stored.status).toBe(201);
    for (const [method, path] of [
      ["GET", `/api/v1/assets/${sha256(bytes)}`],
      ["DELETE", `/api/v1/assets/${sha256(bytes)}`],
    ] as const) {
      expect((await consoleApi.request(method, path, { token: other })).status).toBe(404);
    }
    const list = await consoleApi.request("GET", "/api/v1/assets", { token: other });
    expect(list.json()).toEqual({ items: [] });
  });

  it("remembers a tenant that stores an asset before it has an agent, for the daily snapshot of what it stores, and not one that only read", async () => {
    const usage = new DynamoUsage(
      makeDocumentClient(agentApi.env),
      agentApi.env[EnvNames.tableName] as string,
    );
    const first = `${tenant}-first-${randomUUID().slice(0, 6)}`;
    const refused = `${tenant}-refused-${randomUUID().slice(0, 6)}`;
    const token = await consoleApi.token({ tenant: first, role: "operator" });
    expect((await upload("first.txt", Buffer.from(first), "text/plain", token)).status).toBe(201);
    const refusedToken = await consoleApi.token({ tenant: refused, role: "operator" });
    expect((await upload("../first.txt", Buffer.from(refused), "text/plain", refusedToken)).status).toBe(400);
    const reader = `${tenant}-reader-${randomUUID().slice(0, 6)}`;
    const readerToken = await consoleApi.token({ tenant: reader, role: "operator" });
    expect((await consoleApi.request("GET", "/api/v1/assets", { token: readerToken })).status).toBe(200);
    const remembered = await usage.rememberedTenants();
    expect(remembered).toContain(first);
    expect(remembered).not.toContain(refused);
    expect(remembered).not.toContain(reader);
  });

  describe("refuses, with a JSON error and nothing stored,", () => {
    const fresh = async () => {
      const scratch = `${tenant}-refused-${randomUUID().slice(0, 6)}`;
      return { scratch, token: await consoleApi.token({ tenant: scratch, role: "operator" }) };
    };
    const bytes = Buffer.from("pump-7 42.0\n");

    it.each([
      ["a path-traversal name", "../../etc/passwd", 400],
      ["an encoded traversal", "..%2F..%2Fetc%2Fpasswd", 400],
      ["a folder in the name", "models/pump.onnx", 400],
      ["a backslash", "..\\evil.dll", 400],
      ["a hidden file", ".profile", 400],
      ["dot dot", "..", 400],
      ["a NUL", "pump\u0000.txt", 400],
      ["an overlong name", `${"a".repeat(129)}`, 400],
      ["no name", undefined, 400],
    ] as const)("%s", async (_, name, status) => {
      const { scratch, token } = await fresh();
      const response = await upload(name, bytes, "application/octet-stream", token);
      expect(response.status, response.body).toBe(status);
      expect(response.json().error).toMatchObject({ code: "invalid_request" });
      expect(await storedKeys(scratch)).toEqual([]);
      const list = await consoleApi.request("GET", "/api/v1/assets", { token });
      expect(list.json()).toEqual({ items: [] });
    });

    it.each([
      ["a form", "multipart/form-data; boundary=beacon"],
      ["an urlencoded form", "application/x-www-form-urlencoded"],
      ["no media type", "bytes"],
    ])("%s as its content type", async (_, contentType) => {
      const { scratch, token } = await fresh();
      const response = await upload("pump.txt", bytes, contentType, token);
      expect(response.status, response.body).toBe(415);
      expect(response.json().error).toMatchObject({ code: "unsupported_media_type" });
      expect(await storedKeys(scratch)).toEqual([]);
    });

    it.each([
      ["one byte over the limit", MAX_INLINE_ASSET_BYTES + 1],
      ["past what the console reads of a body", 6 * 1024 * 1024],
    ])("%s", async (_, size) => {
      const { scratch, token } = await fresh();
      const response = await upload("too-large.bin", randomBytes(size), "application/octet-stream", token);
      expect(response.status, response.body).toBe(413);
      expect(response.json().error).toMatchObject({ code: "payload_too_large" });
      expect(await storedKeys(scratch)).toEqual([]);
    });

    it("an upload by a viewer", async () => {
      const response = await upload("pump.txt", bytes, "text/plain", viewer);
      expect(response.status).toBe(403);
      expect(await storedKeys()).not.toContain(`${tenant}/assets/${sha256(bytes)}`);
    });
  });
});

describe("agents' asset downloads over mutual TLS", () => {
  const contentPath = (assetId: string) => `/c2/api/assets/${assetId}/content`;
  let model: Buffer;
  let assetId: string;
  let fleet: string;
  let agent: string;

  beforeAll(async () => {
    model = randomBytes(256 * 1024);
    const stored = await upload("pump-model-v2.onnx", model, "application/x-onnx");
    expect(stored.status, stored.body).toBe(201);
    assetId = stored.json().assetId as string;
    fleet = await agentApi.issueCertificate({ tenant, fleet: true });
    agent = await agentApi.issueCertificate({ tenant, agentId: "pump-7" });
  });

  it("serve the exact bytes, with their type and their id as the tag, to an agent's own and a fleet certificate", async () => {
    // The tenant's first request loads its revocation list into the cache (one Query); later ones find it there.
    expect((await agentApi.get(contentPath(assetId), { certificate: fleet })).status).toBe(200);
    for (const certificate of [agent, fleet]) {
      agentApi.dynamoDb.reset();
      agentApi.s3.reset();
      const response = await agentApi.get(contentPath(assetId), { certificate });
      expect(response.status, response.body).toBe(200);
      expect(response.bytes.equals(model)).toBe(true);
      expect(response.headers["content-type"]).toBe("application/x-onnx");
      expect(response.headers.etag).toBe(`"${assetId}"`);
      // One S3 read and no table read.
      expect(agentApi.dynamoDb.counts()).toEqual({});
      expect(agentApi.s3.counts()).toEqual({
        [`GET /${env[EnvNames.assetBucket]}/${tenant}/assets/${assetId}?x-id=GetObject`]: 1,
      });
    }
  });

  it("answer 304 to an agent that holds the asset already", async () => {
    const response = await agentApi.get(contentPath(assetId), {
      certificate: fleet,
      headers: { "if-none-match": `"${assetId}"` },
    });
    expect(response.status).toBe(304);
    expect(response.bytes.length).toBe(0);
  });

  it("reach no other tenant's asset: 404, as for an id that is nobody's", async () => {
    const otherTenant = `${tenant}-other`;
    for (const certificate of [
      await agentApi.issueCertificate({ tenant: otherTenant, fleet: true }),
      await agentApi.issueCertificate({ tenant: otherTenant, agentId: "pump-7" }),
    ]) {
      const response = await agentApi.get(contentPath(assetId), { certificate });
      expect(response.status).toBe(404);
      expect(response.json().error).toMatchObject({ code: "not_found" });
    }
    for (const id of [sha256(Buffer.from("nobody's")), "..%2F..%2Fetc%2Fpasswd", "not-an-id"]) {
      expect((await agentApi.get(contentPath(id), { certificate: fleet })).status).toBe(404);
    }
  });

  it("answer 404 once the asset is deleted", async () => {
    const bytes = Buffer.from(`${tenant} short-lived`);
    const stored = await upload("short-lived.txt", bytes, "text/plain");
    const id = stored.json().assetId as string;
    expect((await agentApi.get(contentPath(id), { certificate: agent })).status).toBe(200);
    expect((await consoleApi.request("DELETE", `/api/v1/assets/${id}`, { token: operator })).status).toBe(
      200,
    );
    expect((await agentApi.get(contentPath(id), { certificate: agent })).status).toBe(404);
  });

  it("take no connection without a client certificate of a trusted CA", async () => {
    await expect(
      fetch(new URL(contentPath(assetId), agentApi.url), { signal: AbortSignal.timeout(10_000) }),
    ).rejects.toThrow();
  });
});
