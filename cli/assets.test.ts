import { closeSync, ftruncateSync, mkdtempSync, openSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_ASSET_BYTES } from "../functions/core/assets/model.js";
import { linkRefused, PartRefused } from "../web/src/api/parts-upload.js";
import { assetSizeProblem, partRange } from "../web/src/asset-parts.js";
import { progressLine, resourceItem } from "./assets.js";
import { completionWords } from "./completion.js";
import { ExitCode } from "./exit.js";
import { beaconInProcess } from "./in-process.js";
import { beaconProgram } from "./program.js";

const MiB = 1024 * 1024;

/** A sparse file of `bytes` bytes: its size without writing them. */
function fileOf(bytes: number): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "beacon-assets-")), "model.onnx");
  const handle = openSync(file, "w");
  ftruncateSync(handle, bytes);
  closeSync(handle);
  return file;
}

describe("an upload's planning", () => {
  it("takes a file of 1 byte to the API's limit, and names the limit for one over it or an empty one", () => {
    expect(assetSizeProblem("a.bin", 1)).toBeUndefined();
    expect(assetSizeProblem("a.bin", MAX_ASSET_BYTES)).toBeUndefined();
    expect(assetSizeProblem("a.bin", MAX_ASSET_BYTES + 1)).toBe(
      `a.bin is 100.0 MiB (${MAX_ASSET_BYTES + 1} bytes): an asset is at most 100.0 MiB (${MAX_ASSET_BYTES} bytes).`,
    );
    expect(assetSizeProblem("a.bin", 0)).toMatch(/a\.bin is empty/);
  });

  it("reads each part from its own offset in the file, the last one short", () => {
    const upload = { partBytes: 8 * MiB };
    expect(partRange(upload, { partNumber: 1, sizeBytes: 8 * MiB })).toEqual({ start: 0, end: 8 * MiB });
    expect(partRange(upload, { partNumber: 2, sizeBytes: 4 * MiB })).toEqual({
      start: 8 * MiB,
      end: 12 * MiB,
    });
  });

  it("signs a part again when storage refused its link (403) or gave no answer, and for nothing else", () => {
    expect(linkRefused(new PartRefused(2, 403, "Forbidden"))).toBe(true);
    expect(linkRefused(new PartRefused(2, 0, ""))).toBe(true);
    expect(linkRefused(new PartRefused(2, 500, "Internal Server Error"))).toBe(false);
    expect(linkRefused(new PartRefused(2, 400, "Bad Request"))).toBe(false);
    expect(linkRefused(new Error("ECONNRESET"))).toBe(false);
  });

  it("names a resource set's entries by id, or id and folder", () => {
    expect(resourceItem("ab12")).toEqual({ assetId: "ab12" });
    expect(resourceItem("ab12:models/v2")).toEqual({ assetId: "ab12", path: "models/v2" });
    expect(resourceItem("ab12:")).toEqual({ assetId: "ab12", path: "" });
  });

  it("shows progress as a line rewritten in place", () => {
    expect(progressLine("hashing", 6 * MiB, 12 * MiB)).toBe("\rHashing 6.0 MiB of 12.0 MiB (50%)");
    expect(progressLine("sending", 12 * MiB, 12 * MiB)).toBe("\rSending 12.0 MiB of 12.0 MiB (100%)");
  });
});

describe("beacon assets", () => {
  // A deployment that cannot be reached: any request would exit 1, so exit 2 says none was made.
  const unreachable = { BEACON_URL: "http://127.0.0.1:9", BEACON_TOKEN: "token" };

  it("refuses a file one byte over the limit before anything is sent, naming the limit", async () => {
    const { code, stderr } = await beaconInProcess(
      ["assets", "upload", fileOf(MAX_ASSET_BYTES + 1)],
      unreachable,
    );
    expect(code).toBe(ExitCode.usage);
    expect(stderr).toContain(`an asset is at most 100.0 MiB (${MAX_ASSET_BYTES} bytes)`);
  });

  it("refuses a missing file, and more than 4 parts at once, before any request", async () => {
    const missing = await beaconInProcess(["assets", "upload", "/no/such/model.onnx"], unreachable);
    expect(missing).toMatchObject({ code: ExitCode.usage });
    expect(missing.stderr).toMatch(/Cannot read \/no\/such\/model.onnx: ENOENT/);
    const parallel = await beaconInProcess(["assets", "upload", fileOf(10), "--parallel", "5"], unreachable);
    expect(parallel).toMatchObject({ code: ExitCode.usage });
    expect(parallel.stderr).toMatch(/--parallel is 1 to 4/);
  });

  it("completes its commands and options", () => {
    const words = completionWords(
      beaconProgram({ io: { out: () => undefined, err: () => undefined }, env: {}, exitCode: 0 }),
    );
    expect(words.get("")).toContain("assets");
    expect(words.get("assets")).toEqual(
      expect.arrayContaining(["list", "show", "upload", "download", "delete", "--json"]),
    );
    expect(words.get("assets upload")).toEqual(
      expect.arrayContaining(["--name", "--content-type", "--parallel", "--json"]),
    );
    expect(words.get("classes")).toEqual(expect.arrayContaining(["resources", "set-resources"]));
  });
});
