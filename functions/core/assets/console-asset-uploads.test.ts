import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { consoleHarness as harness } from "../../../scripts/test-support/console-harness.js";
import type { Principal, Role } from "../identity/principal.js";
import {
  ASSET_UPLOAD_PART_BYTES,
  ASSET_UPLOAD_TTL_SECONDS,
  MAX_ASSET_BYTES,
  signedLinkSeconds,
} from "./model.js";

const as = (tenant: string, role: Role = "operator"): Principal => ({
  tenant,
  role,
  subject: `${tenant}-user`,
});
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Bytes of two parts and a bit: every part rule (full parts, a short last one) is in play. */
const bytes = new Uint8Array(2 * ASSET_UPLOAD_PART_BYTES + 10).map((_, index) => index % 251);

interface Started {
  uploadId: string;
  expiresAt: string;
  parts: { partNumber: number; sizeBytes: number; url: string }[];
}

function uploads(tenant = "acme") {
  const context = harness();
  const { api, assetContent } = context;
  const start = async (declared: Record<string, unknown> = {}, role: Role = "operator") => {
    const result = await api.assets.startUpload(as(tenant, role), {
      name: "pump-model.onnx",
      sizeBytes: bytes.length,
      sha256: sha256(bytes),
      contentType: "application/octet-stream",
      ...declared,
    });
    return result.body as Started;
  };
  const send = (started: Started, content = bytes) => {
    for (const part of started.parts) {
      const from = (part.partNumber - 1) * ASSET_UPLOAD_PART_BYTES;
      assetContent.receivePart(part.url, content.subarray(from, from + part.sizeBytes));
    }
  };
  const complete = (started: Started, on = tenant) => api.assets.completeUpload(as(on), started.uploadId);
  return { ...context, start, send, complete };
}

describe("an asset uploaded in parts", () => {
  it("is declared, sent in parts of the part size, and becomes the asset only once its bytes are checked", async () => {
    const { start, send, complete, api, assets, assetContent } = uploads();
    const started = await start();
    expect(started.parts.map(({ partNumber, sizeBytes }) => [partNumber, sizeBytes])).toEqual([
      [1, ASSET_UPLOAD_PART_BYTES],
      [2, ASSET_UPLOAD_PART_BYTES],
      [3, 10],
    ]);
    expect(assets.records.size).toBe(0);
    send(started);
    const completed = await complete(started);
    expect(completed).toMatchObject({
      status: 201,
      body: { assetId: sha256(bytes), name: "pump-model.onnx", sizeBytes: bytes.length, usedBy: [] },
    });
    expect(assetContent.uploads.size).toBe(0);
    expect(Buffer.from((await assetContent.read("acme", sha256(bytes)))?.bytes ?? []).equals(bytes)).toBe(
      true,
    );
    await expect(api.assets.completeUpload(as("acme"), started.uploadId)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("is refused up front when over the limit, and nothing is staged", async () => {
    const { start, assetContent } = uploads();
    await expect(start({ sizeBytes: MAX_ASSET_BYTES + 1 })).rejects.toMatchObject({
      code: "payload_too_large",
    });
    expect(assetContent.uploads.size).toBe(0);
    expect((await start({ sizeBytes: MAX_ASSET_BYTES })).parts).toHaveLength(
      Math.ceil(MAX_ASSET_BYTES / ASSET_UPLOAD_PART_BYTES),
    );
  });

  it.each([
    ["no name", { name: undefined }, "invalid_request"],
    ["a name with a folder", { name: "../pump" }, "invalid_request"],
    ["no size", { sizeBytes: undefined }, "invalid_request"],
    ["a size of 0", { sizeBytes: 0 }, "invalid_request"],
    ["a fractional size", { sizeBytes: 1.5 }, "invalid_request"],
    ["no digest", { sha256: undefined }, "invalid_request"],
    ["an upper-case digest", { sha256: sha256(bytes).toUpperCase() }, "invalid_request"],
    ["a form's media type", { contentType: "multipart/form-data" }, "unsupported_media_type"],
  ])("is refused with %s, and nothing is staged", async (_, declared, code) => {
    const { start, assetContent } = uploads();
    await expect(start(declared)).rejects.toMatchObject({ code });
    expect(assetContent.uploads.size).toBe(0);
  });

  it("is refused to a viewer", async () => {
    const { start, assetContent } = uploads();
    await expect(start({}, "viewer")).rejects.toMatchObject({ code: "forbidden" });
    expect(assetContent.uploads.size).toBe(0);
  });

  it("of other bytes than declared is removed, and nothing is stored", async () => {
    const { start, send, complete, assets, assetContent } = uploads();
    const started = await start();
    const other = Uint8Array.from(bytes);
    other[5] = (other[5] ?? 0) ^ 1;
    send(started, other);
    await expect(complete(started)).rejects.toMatchObject({
      code: "asset_upload_mismatch",
      message: expect.stringContaining(`not the ${bytes.length} with SHA-256 ${sha256(bytes)}`),
    });
    expect(assets.records.size).toBe(0);
    expect(assetContent.uploads.size).toBe(0);
    expect(assetContent.objects.size).toBe(0);
  });

  it("with a part of the wrong size is removed; with a part missing it waits for it", async () => {
    const { start, send, complete, assetContent } = uploads();
    const short = await start();
    assetContent.receivePart(short.parts[0]?.url as string, bytes.subarray(0, 100));
    await expect(complete(short)).rejects.toMatchObject({
      code: "asset_upload_mismatch",
      message: expect.stringContaining("part 1 has 100 bytes"),
    });
    expect(assetContent.uploads.size).toBe(0);

    const waiting = await start();
    send({ ...waiting, parts: waiting.parts.slice(0, 1) });
    await expect(complete(waiting)).rejects.toMatchObject({
      code: "asset_upload_incomplete",
      message: expect.stringContaining("Parts 2, 3 of 3 are not uploaded yet"),
    });
    send(waiting);
    expect(await complete(waiting)).toMatchObject({ status: 201 });
  });

  it("is its tenant's alone: another tenant can neither complete nor abort it", async () => {
    const { start, send, complete, api } = uploads();
    const started = await start();
    send(started);
    await expect(complete(started, "globex")).rejects.toMatchObject({ code: "not_found" });
    await expect(api.assets.abortUpload(as("globex"), started.uploadId)).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await complete(started)).toMatchObject({ status: 201 });
  });

  it("is aborted with its parts, and is then gone", async () => {
    const { start, send, api, assetContent } = uploads();
    const started = await start();
    send(started);
    expect(await api.assets.abortUpload(as("acme"), started.uploadId)).toMatchObject({
      body: { uploadId: started.uploadId, aborted: true },
    });
    expect(assetContent.uploads.size).toBe(0);
    await expect(api.assets.completeUpload(as("acme"), started.uploadId)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("of bytes the tenant has as an asset is refused up front, naming the asset", async () => {
    const { start, send, complete } = uploads();
    const first = await start();
    send(first);
    await complete(first);
    await expect(start({ name: "other-name.onnx" })).rejects.toMatchObject({
      code: "asset_exists",
      message: expect.stringContaining("named pump-model.onnx"),
    });
  });
});

describe("an upload's presigned links", () => {
  const now = Date.UTC(2026, 10, 30, 12);

  it("last as long as wanted under credentials that do not expire or outlive them", () => {
    expect(signedLinkSeconds(now, 3600, undefined)).toBe(3600);
    expect(signedLinkSeconds(now, 3600, now + 2 * 3600_000)).toBe(3600);
    expect(signedLinkSeconds(now, 3600, now + 3600_000)).toBe(3600);
  });

  it("end when the credentials that sign them expire, in whole seconds, never under one", () => {
    expect(signedLinkSeconds(now, 3600, now + 600_500)).toBe(600);
    expect(signedLinkSeconds(now, 3600, now + 999)).toBe(1);
    expect(signedLinkSeconds(now, 3600, now - 5_000)).toBe(1);
  });

  it("say they expire an hour on, or when the store's signing credentials do if sooner", async () => {
    const { start, clock, assetContent } = uploads();
    const hourOn = await start();
    expect(Date.parse(hourOn.expiresAt)).toBe(clock.now() + ASSET_UPLOAD_TTL_SECONDS * 1000);
    assetContent.credentialsExpireAt = clock.now() + 20 * 60_000;
    const sooner = await start({ name: "pump-model-2.onnx" });
    expect(Date.parse(sooner.expiresAt)).toBe(clock.now() + 20 * 60_000);
  });
});

describe("an upload's parts signed again", () => {
  const signAgain = (
    context: ReturnType<typeof uploads>,
    started: Started,
    partNumbers: unknown,
    on = "acme",
  ) => context.api.assets.signParts(as(on), started.uploadId, { partNumbers });

  it("get fresh URLs, good for the link lifetime from now, and the upload completes with them", async () => {
    const context = uploads();
    const { start, send, complete, clock, assetContent } = context;
    const started = await start();
    send({ ...started, parts: started.parts.slice(0, 1) });
    clock.advance(50 * 60_000);
    const signed = await signAgain(context, started, [2, 3]);
    const body = signed.body as Started;
    expect(body.uploadId).toBe(started.uploadId);
    expect(body.parts.map(({ partNumber, sizeBytes }) => [partNumber, sizeBytes])).toEqual([
      [2, ASSET_UPLOAD_PART_BYTES],
      [3, 10],
    ]);
    expect(Date.parse(body.expiresAt)).toBe(clock.now() + ASSET_UPLOAD_TTL_SECONDS * 1000);
    assetContent.credentialsExpireAt = clock.now() + 5 * 60_000;
    const capped = (await signAgain(context, started, [3])).body as Started;
    expect(Date.parse(capped.expiresAt)).toBe(clock.now() + 5 * 60_000);
    send(body);
    expect(await complete(started)).toMatchObject({ status: 201, body: { assetId: sha256(bytes) } });
  });

  it("are refused with a 400 naming the upload's parts when none, unknown or repeated, and nothing changes", async () => {
    const context = uploads();
    const started = await context.start();
    for (const partNumbers of [undefined, [], [0], [4], [1.5], ["1"], [2, 2]])
      await expect(signAgain(context, started, partNumbers)).rejects.toMatchObject({
        code: "invalid_request",
      });
    await expect(signAgain(context, started, [4])).rejects.toThrow(/from 1 to 3/);
    expect(await context.assetContent.uploadedParts("acme", started.uploadId)).toEqual([]);
  });

  it("are refused for an upload completed, aborted, another tenant's or never started, and to a viewer", async () => {
    const context = uploads();
    const { start, send, complete, api } = context;
    const started = await start();
    const aborted = await start({ name: "other-name.onnx" });
    await expect(signAgain(context, started, [1], "other")).rejects.toMatchObject({ code: "not_found" });
    await expect(
      api.assets.signParts(as("acme", "viewer"), started.uploadId, { partNumbers: [1] }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      api.assets.signParts(as("acme"), "never-started", { partNumbers: [1] }),
    ).rejects.toMatchObject({ code: "not_found" });
    send(started);
    await complete(started);
    await expect(signAgain(context, started, [1])).rejects.toMatchObject({ code: "not_found" });
    await api.assets.abortUpload(as("acme"), aborted.uploadId);
    await expect(signAgain(context, aborted, [1])).rejects.toMatchObject({ code: "not_found" });
  });
});
