import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MemoryAssetContent } from "../../adapters/memory/asset-content.js";
import { MemoryHotState } from "../../adapters/memory/hot-state.js";
import { MemoryRevocationList } from "../../adapters/memory/revocation-list.js";
import type { AgentCredential } from "../identity/credentials.js";
import type { StreamedContent } from "../ports.js";
import { makeContentDownload } from "./content-download.js";

const credential: AgentCredential = { kind: "fleet", tenant: "t1", fleetName: "plant", serialNumber: "A1" };

/** Assets as the agent API downloads them: streamed from the store, each stream's cancellation counted. */
async function harness() {
  const content = new MemoryAssetContent();
  const bytes = randomBytes(300 * 1024);
  const assetId = createHash("sha256").update(bytes).digest("hex");
  await content.put("t1", assetId, bytes, "application/x-model");
  const cancelled: string[] = [];
  const download = makeContentDownload<string, StreamedContent>({
    read: async (agent, id) => {
      const streamed = await content.stream(agent.tenant, id);
      if (!streamed) return undefined;
      const reader = streamed.body.getReader();
      const counted = new ReadableStream<Uint8Array>({
        pull: async (controller) => {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: async (reason) => {
          cancelled.push(id);
          await reader.cancel(reason);
        },
      });
      return { ...streamed, body: counted };
    },
    isId: (id) => /^[0-9a-f]{64}$/.test(id),
    what: "asset",
    revocations: new MemoryRevocationList(),
    hotState: new MemoryHotState(),
  });
  return { download, bytes, assetId, cancelled };
}

describe("an agent downloading an asset as a stream", () => {
  it("gets the stream with its length and content type, and the bytes through it", async () => {
    const { download, bytes, assetId, cancelled } = await harness();
    const outcome = await download(credential, assetId, '"other"');
    expect(outcome).toMatchObject({
      notModified: false,
      tag: `"${assetId}"`,
      content: { hash: assetId, contentType: "application/x-model", length: bytes.length },
    });
    const chunks: Uint8Array[] = [];
    for await (const chunk of outcome.content?.body ?? new ReadableStream()) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect(cancelled).toEqual([]);
  });

  it("lets go of the stream unread when the agent holds the bytes already", async () => {
    const { download, assetId, cancelled } = await harness();
    expect(await download(credential, assetId, `W/"${assetId}"`)).toMatchObject({ notModified: true });
    expect(cancelled).toEqual([assetId]);
  });
});
