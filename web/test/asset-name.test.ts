import { describe, expect, it } from "vitest";
import { assetNameProblem, suggestedAssetName } from "../src/asset-name.js";

describe("an asset's name", () => {
  it("is a file name the API takes, or a problem in words", () => {
    expect(assetNameProblem("calibration.bin")).toBeUndefined();
    expect(assetNameProblem("a".repeat(128))).toBeUndefined();
    for (const name of ["", ".hidden", "two..dots", "with space.csv", "a".repeat(129), "dir/file"]) {
      expect(assetNameProblem(name)).toMatch(/cannot be an asset's name: use 1 to 128 letters/);
    }
  });

  it("is suggested from the file's own name", () => {
    expect(suggestedAssetName("calibration.bin")).toBe("calibration.bin");
    expect(suggestedAssetName("my lookup (v2).csv")).toBe("my-lookup-v2-.csv");
    expect(suggestedAssetName(".env..local")).toBe("env.local");
    for (const name of ["my lookup (v2).csv", ".env..local", "é".repeat(300)]) {
      const suggested = suggestedAssetName(name);
      if (suggested !== "") expect(assetNameProblem(suggested)).toBeUndefined();
    }
  });
});
