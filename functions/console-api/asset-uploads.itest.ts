/**
 * Assets uploaded in parts end to end on the local stack: declared to the console's gateway, their parts sent
 * by plain HTTP PUTs to the presigned URLs it hands out, straight to S3 (S3Proxy, whose SigV4 query
 * authentication checks each URL), then completed: the bytes are read back whole for their size and SHA-256
 * before the asset is recorded. Refused uploads store nothing, in the asset's place or in the staging prefix.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { ASSET_UPLOAD_PART_BYTES, ASSET_UPLOADS_PREFIX, MAX_ASSET_BYTES } from "../core/assets/model.js";
import { makeS3Client } from "../runtime/aws-clients/s3.js";
import { EnvNames } from "../shared/env-names.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
const env = inject("beaconEnv");
const s3 = makeS3Client(env);

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

interface StartedUpload {
  uploadId: string;
  partBytes: number;
  parts: { partNumber: number; sizeBytes: number; url: string }[];
}

/** A tenant of its own, with an operator's token. */
async function freshTenant() {
  const tenant = `uploads-${randomUUID().slice(0, 8)}`;
  return { tenant, token: await consoleApi.token({ tenant, role: "operator" }) };
}

function start(token: string, declared: Record<string, unknown>) {
  return consoleApi.request("POST", "/api/v1/assets/uploads", {
    token,
    body: { contentType: "application/octet-stream", ...declared },
  });
}

/** The error body's code and message. */
const errorOf = (response: { json(): unknown }) =>
  (response.json() as { error: { code: string; message: string } }).error;

const complete = (token: string, uploadId: string) =>
  consoleApi.request("POST", `/api/v1/assets/uploads/${uploadId}/complete`, { token });

/** Each part by a plain HTTP PUT to its URL, as curl or a browser sends it: no credentials, no other header. */
async function sendParts(started: StartedUpload, bytes: Uint8Array, concurrency = 2): Promise<void> {
  const queue = [...started.parts];
  const worker = async () => {
    for (let part = queue.shift(); part; part = queue.shift()) {
      const from = (part.partNumber - 1) * started.partBytes;
      const response = await fetch(part.url, {
        method: "PUT",
        body: bytes.subarray(from, from + part.sizeBytes),
      });
      expect(response.status, await response.text()).toBe(200);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** What the bucket holds for the tenant, as its assets and as staged uploads: what was stored, whatever the API says. */
async function storedKeys(tenant: string): Promise<string[]> {
  const keys: string[] = [];
  for (const prefix of [`${tenant}/`, `${ASSET_UPLOADS_PREFIX}/${tenant}/`]) {
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket: env[EnvNames.assetBucket] as string, Prefix: prefix }),
    );
    keys.push(...(listed.Contents ?? []).map((object) => object.Key as string));
  }
  return keys.sort();
}

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
  s3.destroy();
});

describe("an asset uploaded in parts to presigned URLs", () => {
  it("of the largest size (100 MiB) is sent by plain PUTs, checked at completion, and listed with its size and id", async () => {
    const { tenant, token } = await freshTenant();
    const model = randomBytes(MAX_ASSET_BYTES);
    const begun = performance.now();
    const started = await start(token, {
      name: "big-model.onnx",
      sizeBytes: model.length,
      sha256: sha256(model),
    });
    expect(started.status, started.body).toBe(201);
    const upload = started.json() as unknown as StartedUpload;
    expect(upload.partBytes).toBe(ASSET_UPLOAD_PART_BYTES);
    expect(upload.parts).toHaveLength(Math.ceil(MAX_ASSET_BYTES / ASSET_UPLOAD_PART_BYTES));
    // The URLs are S3's own, presigned (SigV4 in the query), for the tenant's staging prefix.
    const partUrl = new URL(upload.parts[0]?.url as string);
    expect(partUrl.pathname).toContain(`/${ASSET_UPLOADS_PREFIX}/${tenant}/${upload.uploadId}/`);
    expect(partUrl.searchParams.get("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
    expect(partUrl.searchParams.get("partNumber")).toBe("1");
    expect(await storedKeys(tenant)).not.toContain(`${tenant}/assets/${sha256(model)}`);

    await sendParts(upload, model);
    const completed = await complete(token, upload.uploadId);
    const seconds = (performance.now() - begun) / 1000;
    expect(completed.status, completed.body).toBe(201);
    expect(completed.json()).toMatchObject({
      assetId: sha256(model),
      name: "big-model.onnx",
      sizeBytes: MAX_ASSET_BYTES,
      contentType: "application/octet-stream",
    });
    console.info(
      `a ${MAX_ASSET_BYTES}-byte asset uploaded in ${upload.parts.length} parts in ${seconds.toFixed(1)} s`,
    );

    const listed = await consoleApi.request("GET", "/api/v1/assets", { token });
    expect(listed.json().items).toEqual([
      expect.objectContaining({ assetId: sha256(model), name: "big-model.onnx", sizeBytes: MAX_ASSET_BYTES }),
    ]);
    // Only the asset is left: the staged upload is gone.
    expect(await storedKeys(tenant)).toEqual([`${tenant}/assets/${sha256(model)}`]);
    expect((await complete(token, upload.uploadId)).status).toBe(404);

    // Downloaded whole through the console API's redirect to the bucket, far past what a Lambda answer carries.
    const download = await fetch(new URL(`/api/v1/assets/${sha256(model)}/content`, consoleApi.url), {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(120_000),
    });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="big-model.onnx"');
    const downloaded = createHash("sha256");
    let downloadedBytes = 0;
    for await (const chunk of download.body ?? []) {
      downloaded.update(chunk);
      downloadedBytes += chunk.length;
    }
    expect({ bytes: downloadedBytes, sha256: downloaded.digest("hex") }).toEqual({
      bytes: MAX_ASSET_BYTES,
      sha256: sha256(model),
    });
  });

  it("one byte over the limit is refused up front, and nothing is stored", async () => {
    const { tenant, token } = await freshTenant();
    const refused = await start(token, {
      name: "too-large.bin",
      sizeBytes: MAX_ASSET_BYTES + 1,
      sha256: sha256(Buffer.from("any")),
    });
    expect(refused.status, refused.body).toBe(413);
    expect(errorOf(refused)).toMatchObject({ code: "payload_too_large" });
    expect(errorOf(refused).message).toContain(String(MAX_ASSET_BYTES));
    expect(await storedKeys(tenant)).toEqual([]);
  });

  it("whose bytes are not those declared is refused at completion, removed, and nothing is stored", async () => {
    const { tenant, token } = await freshTenant();
    const bytes = randomBytes(ASSET_UPLOAD_PART_BYTES + 4096);
    const declared = sha256(randomBytes(32));
    const started = await start(token, {
      name: "wrong-digest.bin",
      sizeBytes: bytes.length,
      sha256: declared,
    });
    expect(started.status, started.body).toBe(201);
    const upload = started.json() as unknown as StartedUpload;
    await sendParts(upload, bytes);
    const refused = await complete(token, upload.uploadId);
    expect(refused.status, refused.body).toBe(422);
    expect(errorOf(refused)).toMatchObject({ code: "asset_upload_mismatch" });
    expect(errorOf(refused).message).toContain(sha256(bytes));
    expect(errorOf(refused).message).toContain(declared);
    expect(await storedKeys(tenant)).toEqual([]);
    expect((await consoleApi.request("GET", "/api/v1/assets", { token })).json().items).toEqual([]);
    expect((await complete(token, upload.uploadId)).status).toBe(404);
  });

  it("waits for a missing part, and is aborted with everything sent", async () => {
    const { tenant, token } = await freshTenant();
    const bytes = randomBytes(ASSET_UPLOAD_PART_BYTES + 10);
    const started = await start(token, {
      name: "abandoned.bin",
      sizeBytes: bytes.length,
      sha256: sha256(bytes),
    });
    const upload = started.json() as unknown as StartedUpload;
    await sendParts({ ...upload, parts: upload.parts.slice(0, 1) }, bytes);
    const waiting = await complete(token, upload.uploadId);
    expect(waiting.status, waiting.body).toBe(409);
    expect(errorOf(waiting)).toMatchObject({ code: "asset_upload_incomplete" });
    const aborted = await consoleApi.request("DELETE", `/api/v1/assets/uploads/${upload.uploadId}`, {
      token,
    });
    expect(aborted.status, aborted.body).toBe(200);
    expect(aborted.json()).toEqual({ uploadId: upload.uploadId, aborted: true });
    expect(await storedKeys(tenant)).toEqual([]);
    expect((await complete(token, upload.uploadId)).status).toBe(404);
  });

  it("has the parts still to send signed again, by its tenant's operator only, and completes with them", async () => {
    const owner = await freshTenant();
    const other = await freshTenant();
    const bytes = randomBytes(ASSET_UPLOAD_PART_BYTES + 4096);
    const upload = (
      await start(owner.token, { name: "resigned.bin", sizeBytes: bytes.length, sha256: sha256(bytes) })
    ).json() as unknown as StartedUpload;
    await sendParts({ ...upload, parts: upload.parts.slice(0, 1) }, bytes);
    const signAgain = (token: string, body: unknown, uploadId = upload.uploadId) =>
      consoleApi.request("POST", `/api/v1/assets/uploads/${uploadId}/parts`, { token, body });

    const signed = await signAgain(owner.token, { partNumbers: [2] });
    expect(signed.status, signed.body).toBe(200);
    const { parts, expiresAt } = signed.json() as { parts: StartedUpload["parts"]; expiresAt: string };
    expect(parts).toEqual([{ partNumber: 2, sizeBytes: 4096, url: expect.any(String) }]);
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());

    const outOfRange = await signAgain(owner.token, { partNumbers: [3] });
    expect(outOfRange.status, outOfRange.body).toBe(400);
    expect(errorOf(outOfRange).message).toContain("from 1 to 2");
    expect((await signAgain(owner.token, { partNumbers: [] })).status).toBe(400);
    expect((await signAgain(other.token, { partNumbers: [2] })).status).toBe(404);
    const viewer = await consoleApi.token({ tenant: owner.tenant, role: "viewer" });
    expect((await signAgain(viewer, { partNumbers: [2] })).status).toBe(403);
    expect((await signAgain(owner.token, { partNumbers: [2] }, randomUUID())).status).toBe(404);

    await sendParts({ ...upload, parts }, bytes);
    expect((await complete(owner.token, upload.uploadId)).status).toBe(201);
    const finished = await signAgain(owner.token, { partNumbers: [2] });
    expect(finished.status, finished.body).toBe(404);
    expect(errorOf(finished)).toMatchObject({ code: "not_found" });
    expect(await storedKeys(other.tenant)).toEqual([]);
  });

  it("is its tenant's alone: another tenant's operator can neither complete nor abort it, and a viewer cannot start one", async () => {
    const owner = await freshTenant();
    const other = await freshTenant();
    const bytes = randomBytes(1024);
    const upload = (
      await start(owner.token, { name: "mine.bin", sizeBytes: bytes.length, sha256: sha256(bytes) })
    ).json() as unknown as StartedUpload;
    await sendParts(upload, bytes);
    const completedByOther = await complete(other.token, upload.uploadId);
    expect(completedByOther.status, completedByOther.body).toBe(404);
    expect(
      (
        await consoleApi.request("DELETE", `/api/v1/assets/uploads/${upload.uploadId}`, {
          token: other.token,
        })
      ).status,
    ).toBe(404);
    expect(await storedKeys(other.tenant)).toEqual([]);
    const viewer = await consoleApi.token({ tenant: owner.tenant, role: "viewer" });
    expect(
      (await start(viewer, { name: "v.bin", sizeBytes: 1, sha256: sha256(Buffer.from("v")) })).status,
    ).toBe(403);
    expect((await complete(owner.token, upload.uploadId)).status).toBe(201);
  });
});
