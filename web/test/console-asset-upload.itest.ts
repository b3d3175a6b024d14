/**
 * An asset of the largest size uploaded through the Assets page: read for its SHA-256 and sent in parts straight
 * to storage (S3Proxy, by CORS) by the console API's presigned URLs, each stage with its progress, then listed
 * with its size and id; a file one byte over the limit refused before anything is sent, nothing stored. Debian's
 * Chromium against `npm start`; the files are written to a temporary folder, never held by the test whole.
 */
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ASSET_BYTES } from "../../functions/core/assets/model.js";
import { api, capture, pageProblems, signedIn, startConsole, stopConsole } from "./console-harness.js";

const MiB = 1024 * 1024;
let folder: string;

/** A file of `size` varied bytes, written a MiB at a time; its SHA-256. */
async function writtenFile(name: string, size: number): Promise<{ file: string; sha256: string }> {
  const file = path.join(folder, name);
  const hash = createHash("sha256");
  const out = createWriteStream(file);
  for (let offset = 0; offset < size; offset += MiB) {
    const chunk = Buffer.alloc(Math.min(MiB, size - offset), offset / MiB);
    // The MiB's number in its first bytes, where it has room for them (the last may be one byte).
    if (chunk.length >= 4) chunk.writeUInt32BE(offset / MiB, 0);
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise((resolve) => out.once("drain", () => resolve(undefined)));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return { file, sha256: hash.digest("hex") };
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "beacon-asset-upload-"));
  await startConsole("web-console-asset-upload");
}, 300_000);

afterAll(async () => {
  await stopConsole();
  await rm(folder, { recursive: true, force: true });
}, 60_000);

describe("an asset of the largest size, in the browser", () => {
  it("is read for its SHA-256, sent in parts with progress, and listed with its size and id", async () => {
    const { file, sha256 } = await writtenFile("pump-model.onnx", MAX_ASSET_BYTES);
    const page = await signedIn("operator", "/assets");
    await page.getByRole("heading", { name: "Assets", level: 1 }).waitFor();
    await page.getByLabel("File").setInputFiles(file);
    // Each stage's progress is on screen for as long as it lasts, which can be less than a poll: the page
    // records every label its progress bar has had.
    await page.evaluate(() => {
      type Node = { parentElement: Node | null; textContent: string | null };
      const scope = globalThis as unknown as {
        progressSeen: string[];
        document: { body: unknown; querySelector(selector: string): Node | null };
        MutationObserver: new (
          callback: () => void,
        ) => { observe(target: unknown, options: Record<string, boolean>): void };
      };
      const seen: string[] = [];
      scope.progressSeen = seen;
      new scope.MutationObserver(() => {
        const label = scope.document.querySelector("progress")?.parentElement?.textContent?.trim();
        if (label && seen.at(-1) !== label) seen.push(label);
      }).observe(scope.document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
    });
    const begun = performance.now();
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page
      .getByText(`Stored pump-model.onnx (100.0 MiB) as ${sha256.slice(0, 12)}…`)
      .waitFor({ timeout: 600_000 });
    console.info(
      `a ${MAX_ASSET_BYTES}-byte asset uploaded by the page in ${((performance.now() - begun) / 1000).toFixed(1)} s`,
    );
    const seen = await page.evaluate(
      () => (globalThis as unknown as { progressSeen: string[] }).progressSeen,
    );
    expect(seen.some((label) => /^Reading for its SHA-256: [\d.]+ \w+ of 100\.0 MiB$/.test(label))).toBe(
      true,
    );
    expect(seen.some((label) => /^Uploading [\d.]+ \w+ of 100\.0 MiB$/.test(label))).toBe(true);
    const bar = page.getByRole("progressbar");
    expect(await bar.getAttribute("value")).toBe(String(MAX_ASSET_BYTES));
    const row = page.getByRole("row").filter({ hasText: "pump-model.onnx" });
    await row.getByText("100.0 MiB").waitFor();
    expect(await row.getByText(sha256.slice(0, 12)).getAttribute("title")).toBe(sha256);
    await capture(page, "asset-upload");
    expect((await api<{ sizeBytes: number }>(`/assets/${sha256}`)).body.sizeBytes).toBe(MAX_ASSET_BYTES);
    await page.context().close();
  }, 900_000);

  it("one byte over the limit is refused before anything is sent, and nothing is stored", async () => {
    const { file, sha256 } = await writtenFile("too-large.bin", MAX_ASSET_BYTES + 1);
    const page = await signedIn("operator", "/assets");
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.method() !== "GET") sent.push(`${request.method()} ${request.url()}`);
    });
    await page.getByLabel("File").setInputFiles(file);
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "an asset is at most 100.0 MiB" }).waitFor();
    expect(sent).toEqual([]);
    expect((await api(`/assets/${sha256}`)).status).toBe(404);
    await page.context().close();
  }, 300_000);

  it("leaves no problem on the page", () => {
    expect(pageProblems).toEqual([]);
  });
});
