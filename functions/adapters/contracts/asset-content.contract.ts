import { createHash, randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import type { AssetContentStore } from "../../core/assets/ports.js";
import { contract } from "./contract.js";

const idOf = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A stream's bytes, read chunk by chunk as a download does; how many chunks came. */
async function drained(body: ReadableStream<Uint8Array>): Promise<{ bytes: Buffer; chunks: number }> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return { bytes: Buffer.concat(chunks), chunks: chunks.length };
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
});
