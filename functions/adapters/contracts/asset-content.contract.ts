import { createHash, randomBytes, randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { ASSET_UPLOAD_PART_BYTES, type AssetUploadRecord } from "../../core/assets/model.js";
import type { AssetContentStore } from "../../core/assets/ports.js";
import { MemoryAssetContent } from "../memory/asset-content.js";
import { contract } from "./contract.js";

const idOf = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A stream's bytes, read chunk by chunk as a download does; how many chunks came. */
async function drained(body: ReadableStream<Uint8Array>): Promise<{ bytes: Buffer; chunks: number }> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return { bytes: Buffer.concat(chunks), chunks: chunks.length };
}

const uploadOf = (bytes: Uint8Array, uploadId = randomUUID()): AssetUploadRecord => ({
  uploadId,
  name: "pump-model.onnx",
  sizeBytes: bytes.length,
  sha256: idOf(bytes),
  contentType: "application/x-onnx",
  createdAt: 1_764_460_800_000,
  createdBy: "operator@example.com",
});

/** What a caller does with a part URL: a plain HTTP PUT of the part's bytes (the fake takes it as S3 would). */
async function sendPart(store: AssetContentStore, url: string, bytes: Uint8Array): Promise<void> {
  if (store instanceof MemoryAssetContent) return store.receivePart(url, bytes);
  const response = await fetch(url, { method: "PUT", body: bytes });
  expect(response.status, await response.text()).toBe(200);
}

/** What a caller does with a download link: a plain GET (the fake answers it as S3 would). */
async function followDownload(store: AssetContentStore, url: string) {
  if (store instanceof MemoryAssetContent) return store.followDownload(url);
  const response = await fetch(url);
  if (response.status === 404) return undefined;
  expect(response.status).toBe(200);
  return {
    bytes: new Uint8Array(await response.arrayBuffer()),
    contentType: response.headers.get("content-type") ?? "",
    disposition: response.headers.get("content-disposition") ?? "",
  };
}

/** Assets' bytes per tenant and id: read back exactly, with their content type, and another tenant's never. */
export const assetContentContract = contract<AssetContentStore>("the asset content store", (the) => {
  it("serves bytes back exactly with the content type they were put with, under their tenant only", async () => {
    const store = the.subject;
    const bytes = Uint8Array.from([0, 1, 2, 0xff, 0xfe, 0x80, 0x0a, 0x0d]);
    const assetId = idOf(bytes);
    expect(await store.read(the.tenant, assetId)).toBeUndefined();

    await store.put(the.tenant, assetId, bytes, "application/x-model");
    const read = await store.read(the.tenant, assetId);
    expect(read).toMatchObject({ hash: assetId, contentType: "application/x-model" });
    expect(Buffer.from(read?.bytes ?? []).equals(Buffer.from(bytes))).toBe(true);
    expect(await store.read(`${the.tenant}-other`, assetId)).toBeUndefined();
  });

  it("keeps what it was given, whatever its caller does to the bytes afterwards, up to the asset limit", async () => {
    const store = the.subject;
    const bytes = randomBytes(4 * 1024 * 1024);
    const kept = Buffer.from(bytes);
    const assetId = idOf(bytes);
    await store.put(the.tenant, assetId, bytes, "application/octet-stream");
    bytes.fill(0);
    expect(Buffer.from((await store.read(the.tenant, assetId))?.bytes ?? []).equals(kept)).toBe(true);
  });

  it("keeps a text type's charset as given, puts the same bytes again harmlessly, and removes them, removing absent bytes being no error", async () => {
    const store = the.subject;
    const bytes = new TextEncoder().encode("pump-7 42.0\n");
    const assetId = idOf(bytes);
    await store.put(the.tenant, assetId, bytes, "text/plain; charset=utf-8");
    expect(await store.read(the.tenant, assetId)).toMatchObject({ contentType: "text/plain; charset=utf-8" });
    await store.put(the.tenant, assetId, bytes, "text/plain; charset=utf-8");
    await store.remove(the.tenant, assetId);
    expect(await store.read(the.tenant, assetId)).toBeUndefined();
    await store.remove(the.tenant, assetId);
    await store.remove(the.tenant, idOf(new Uint8Array([9])));
  });

  it("streams the bytes back exactly, in chunks, with their length and content type, under their tenant only", async () => {
    const store = the.subject;
    const bytes = randomBytes(5 * 1024 * 1024 + 3);
    const assetId = idOf(bytes);
    expect(await store.stream(the.tenant, assetId)).toBeUndefined();

    await store.put(the.tenant, assetId, bytes, "application/x-model");
    const streamed = await store.stream(the.tenant, assetId);
    expect(streamed).toMatchObject({
      hash: assetId,
      contentType: "application/x-model",
      length: bytes.length,
    });
    const read = await drained(streamed?.body ?? new ReadableStream());
    expect(read.bytes.equals(bytes)).toBe(true);
    expect(read.chunks).toBeGreaterThan(1);
    expect(await store.stream(`${the.tenant}-other`, assetId)).toBeUndefined();
  });

  it("lets go of a stream cancelled part way: more such streams than the client has connections, then one read whole", async () => {
    const store = the.subject;
    const bytes = randomBytes(1024 * 1024);
    const assetId = idOf(bytes);
    await store.put(the.tenant, assetId, bytes, "application/octet-stream");
    for (let opened = 0; opened < 60; opened += 1) {
      const streamed = await store.stream(the.tenant, assetId);
      const reader = streamed?.body.getReader();
      expect((await reader?.read())?.done).toBe(false);
      await reader?.cancel();
    }
    const whole = await store.stream(the.tenant, assetId);
    expect((await drained(whole?.body ?? new ReadableStream())).bytes.equals(bytes)).toBe(true);
  });

  it("says when the credentials its links are signed with expire, if they do: not before now", async () => {
    const expireAt = await the.subject.signingCredentialsExpireAt();
    if (expireAt !== undefined) expect(expireAt).toBeGreaterThan(Date.now());
  });

  it("hands out a link that serves the bytes by a plain GET, with their media type and saved under a name", async () => {
    const store = the.subject;
    const bytes = randomBytes(3000);
    const assetId = idOf(bytes);
    await store.put(the.tenant, assetId, bytes, "application/octet-stream");
    const download = { fileName: "pump-model.onnx", contentType: "application/x-onnx" };
    const served = await followDownload(store, await store.downloadUrl(the.tenant, assetId, download, 60));
    expect(Buffer.from(served?.bytes ?? []).equals(bytes)).toBe(true);
    expect(served?.contentType).toBe("application/x-onnx");
    expect(served?.disposition).toBe('attachment; filename="pump-model.onnx"');
    // Another tenant's link to the same id leads to nothing.
    expect(
      await followDownload(store, await store.downloadUrl(`${the.tenant}-other`, assetId, download, 60)),
    ).toBeUndefined();
  });

  it("stages an upload in parts that plain PUTs to its part URLs fill, assembles it to its real size and SHA-256, and makes it the asset", async () => {
    const store = the.subject;
    const bytes = randomBytes(ASSET_UPLOAD_PART_BYTES + 1234);
    const upload = uploadOf(bytes);
    await store.startUpload(the.tenant, upload);
    expect(await store.upload(the.tenant, upload.uploadId)).toEqual(upload);
    expect(await store.upload(`${the.tenant}-other`, upload.uploadId)).toBeUndefined();
    expect(await store.uploadedParts(the.tenant, upload.uploadId)).toEqual([]);

    const [first, second] = await store.partUrls(the.tenant, upload.uploadId, [1, 2], 600);
    await sendPart(store, second as string, bytes.subarray(ASSET_UPLOAD_PART_BYTES));
    await sendPart(store, first as string, randomBytes(ASSET_UPLOAD_PART_BYTES));
    // A part sent again replaces the one before, as a caller retrying a part does.
    await sendPart(store, first as string, bytes.subarray(0, ASSET_UPLOAD_PART_BYTES));
    expect(await store.uploadedParts(the.tenant, upload.uploadId)).toEqual([
      { partNumber: 1, sizeBytes: ASSET_UPLOAD_PART_BYTES },
      { partNumber: 2, sizeBytes: 1234 },
    ]);

    expect(await store.assemble(the.tenant, upload.uploadId)).toEqual({
      sizeBytes: bytes.length,
      sha256: idOf(bytes),
    });
    expect(await store.read(the.tenant, upload.sha256)).toBeUndefined();
    await store.promote(the.tenant, upload.uploadId, upload.sha256, upload.contentType);
    const read = await store.read(the.tenant, upload.sha256);
    expect(read).toMatchObject({ hash: upload.sha256, contentType: "application/x-onnx" });
    expect(Buffer.from(read?.bytes ?? []).equals(bytes)).toBe(true);
    expect(await store.upload(the.tenant, upload.uploadId)).toBeUndefined();
  });

  it("signs a part's URL again while the upload is staged: the new URL takes the part as the first would", async () => {
    const store = the.subject;
    const bytes = randomBytes(ASSET_UPLOAD_PART_BYTES + 10);
    const upload = uploadOf(bytes);
    await store.startUpload(the.tenant, upload);
    const [first] = await store.partUrls(the.tenant, upload.uploadId, [1, 2], 600);
    await sendPart(store, first as string, bytes.subarray(0, ASSET_UPLOAD_PART_BYTES));
    const [again] = await store.partUrls(the.tenant, upload.uploadId, [2], 600);
    await sendPart(store, again as string, bytes.subarray(ASSET_UPLOAD_PART_BYTES));
    expect(await store.assemble(the.tenant, upload.uploadId)).toEqual({
      sizeBytes: bytes.length,
      sha256: idOf(bytes),
    });
    await store.abortUpload(the.tenant, upload.uploadId);
  });

  it("aborts an upload, sent parts or assembled bytes, leaving nothing; aborting one that is gone is no error", async () => {
    const store = the.subject;
    const bytes = randomBytes(1000);
    const sent = uploadOf(bytes);
    await store.startUpload(the.tenant, sent);
    const [url] = await store.partUrls(the.tenant, sent.uploadId, [1], 600);
    await sendPart(store, url as string, bytes);
    await store.abortUpload(the.tenant, sent.uploadId);
    expect(await store.upload(the.tenant, sent.uploadId)).toBeUndefined();

    const assembled = uploadOf(bytes);
    await store.startUpload(the.tenant, assembled);
    const [assembledUrl] = await store.partUrls(the.tenant, assembled.uploadId, [1], 600);
    await sendPart(store, assembledUrl as string, bytes);
    expect(await store.assemble(the.tenant, assembled.uploadId)).toEqual({
      sizeBytes: 1000,
      sha256: idOf(bytes),
    });
    await store.abortUpload(the.tenant, assembled.uploadId);
    expect(await store.upload(the.tenant, assembled.uploadId)).toBeUndefined();
    expect(await store.read(the.tenant, idOf(bytes))).toBeUndefined();

    await store.abortUpload(the.tenant, assembled.uploadId);
    await store.abortUpload(the.tenant, randomUUID());
  });
});
