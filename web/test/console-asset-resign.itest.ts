/**
 * An upload in parts whose part link expires before the browser sends the part: storage (S3Proxy, which checks
 * a presigned URL's expiry) refuses it with 403, the Assets page has the part signed again
 * (`POST /assets/uploads/{uploadId}/parts`) and sends it once more, and the upload completes with the file's
 * SHA-256. A part refused again is a clear error and nothing is stored. Debian's Chromium against `npm start`,
 * whose part links live a few seconds (BEACON_ASSET_UPLOAD_LINK_SECONDS).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page, Route } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ASSET_UPLOAD_PART_BYTES } from "../../functions/core/assets/model.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { untilTrue } from "../../scripts/test-support/until.js";
import { api, pageProblems, signedIn, startConsole, stopConsole } from "./console-harness.js";

/** Long enough for a part sent at once to reach storage on a busy machine, short enough to wait out. */
const LINK_SECONDS = 15;
let folder: string;

/** A file of three parts (two whole, one short) of random bytes; its SHA-256. */
async function writtenFile(name: string): Promise<{ file: string; sha256: string }> {
  const bytes = randomBytes(2 * ASSET_UPLOAD_PART_BYTES + 1000);
  const file = path.join(folder, name);
  await writeFile(file, bytes);
  return { file, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** When a presigned URL stops working, by what it says: signed at X-Amz-Date, good for X-Amz-Expires seconds. */
function linkExpiry(url: URL): number {
  const signed = url.searchParams.get("X-Amz-Date") ?? "";
  const [, y, mo, d, h, mi, s] = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(signed) ?? [];
  return (
    Date.UTC(+(y ?? 0), +(mo ?? 1) - 1, +(d ?? 0), +(h ?? 0), +(mi ?? 0), +(s ?? 0)) +
    Number(url.searchParams.get("X-Amz-Expires")) * 1000
  );
}

/** Whether the request is a browser's PUT of part `partNumber` to a presigned URL (not its CORS preflight). */
const isPartPut = (partNumber: number) => (url: URL) =>
  url.searchParams.get("partNumber") === String(partNumber) && url.searchParams.has("X-Amz-Signature");

/**
 * What the page asked of storage and of the console API for its parts: each PUT's part number, signings' bodies.
 * (S3Proxy's refusal carries no CORS headers, so the page, and Playwright's responses with it, never read it.)
 */
function watchParts(page: Page) {
  const puts: string[] = [];
  const signings: unknown[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (request.method() === "PUT" && url.searchParams.has("partNumber"))
      puts.push(`part ${url.searchParams.get("partNumber")}`);
    if (request.method() === "POST" && url.pathname.endsWith("/parts")) signings.push(request.postDataJSON());
  });
  return { puts, signings };
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "beacon-asset-resign-"));
  await startConsole("web-console-asset-resign", {
    [EnvNames.assetUploadLinkSeconds]: String(LINK_SECONDS),
  });
}, 300_000);

afterAll(async () => {
  await stopConsole();
  await rm(folder, { recursive: true, force: true });
}, 60_000);

describe("an upload whose part link expires before the part is sent", () => {
  it("has the part signed again and sent once more, and completes with the file's SHA-256", async () => {
    const { file, sha256 } = await writtenFile("resigned-model.onnx");
    const page = await signedIn("operator", "/assets");
    await page.getByRole("heading", { name: "Assets", level: 1 }).waitFor();
    const { puts, signings } = watchParts(page);
    let held = false;
    // Part 2's first PUT waits until its link has expired, then goes on to storage, which refuses it.
    await page.route(isPartPut(2), async (route: Route) => {
      const url = new URL(route.request().url());
      if (route.request().method() === "PUT" && !held) {
        held = true;
        const expiry = linkExpiry(url);
        await untilTrue("part 2's link to expire", () => Date.now() > expiry + 1000, 120_000);
      }
      await route.continue();
    });
    await page.getByLabel("File").setInputFiles(file);
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page.getByText(`as ${sha256.slice(0, 12)}`).waitFor({ timeout: 300_000 });
    expect(puts.filter((put) => put === "part 2")).toHaveLength(2);
    expect(signings).toEqual([{ partNumbers: [2] }]);
    const stored = await api<{ assetId: string; sizeBytes: number }>(`/assets/${sha256}`);
    expect(stored.body).toMatchObject({ assetId: sha256, sizeBytes: 2 * ASSET_UPLOAD_PART_BYTES + 1000 });
    await page.context().close();
  }, 600_000);

  it("refused again by a freshly signed link, is a clear error, and nothing is stored", async () => {
    const { file, sha256 } = await writtenFile("refused-model.onnx");
    const page = await signedIn("operator", "/assets");
    await page.getByRole("heading", { name: "Assets", level: 1 }).waitFor();
    const { signings } = watchParts(page);
    const webOrigin = new URL(page.url()).origin;
    // Storage refuses every PUT of part 2, as it would links signed by credentials that no longer work.
    await page.route(isPartPut(2), async (route: Route) => {
      if (route.request().method() !== "PUT") return route.continue();
      await route.fulfill({
        status: 403,
        headers: { "access-control-allow-origin": webOrigin, "content-type": "application/xml" },
        body: "<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>",
      });
    });
    await page.getByLabel("File").setInputFiles(file);
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: "refused part 2 twice, the second time by a freshly signed link (403)" })
      .waitFor({ timeout: 300_000 });
    expect(signings).toEqual([{ partNumbers: [2] }]);
    expect((await api(`/assets/${sha256}`)).status).toBe(404);
    await page.context().close();
  }, 600_000);

  it("leaves no problem on the page", () => {
    expect(pageProblems).toEqual([]);
  });
});
