import { describe, expect, it } from "vitest";
import { compareVersions, inRange, isVersion, rangeProblems } from "./versions.js";

describe("versions", () => {
  it("compare part by part as numbers, a missing part as 0", () => {
    expect(compareVersions("2.3.0", "2.3.0")).toBe(0);
    expect(compareVersions("2.10.0", "2.9.1")).toBe(1);
    expect(compareVersions("0.15.0", "1.0.0")).toBe(-1);
    expect(compareVersions("2.3", "2.3.0")).toBe(0);
    expect(compareVersions("v1.2.3", "1.2.3")).toBe(0);
    expect(compareVersions("1.2.3+build.7", "1.2.3")).toBe(0);
  });

  it("put a pre-release before its release, its identifiers compared as semantic versioning says", () => {
    expect(compareVersions("1.0.0-SNAPSHOT", "1.0.0")).toBe(-1);
    expect(compareVersions("2.0.0", "2.0.0-rc.1")).toBe(1);
    expect(compareVersions("1.0.0-alpha", "1.0.0-alpha.1")).toBe(-1);
    expect(compareVersions("1.0.0-alpha.1", "1.0.0-alpha.beta")).toBe(-1);
    expect(compareVersions("1.0.0-beta.2", "1.0.0-beta.11")).toBe(-1);
    expect(compareVersions("1.0.0-rc.1", "1.0.0-beta.11")).toBe(1);
    expect(compareVersions("1.0.0-SNAPSHOT", "0.99.0")).toBe(1);
  });

  it("read nothing else as a version", () => {
    for (const text of ["", "latest", "1..2", "1.x", "-1.0"]) {
      expect(isVersion(text)).toBe(false);
      expect(compareVersions(text, "1.0.0")).toBeUndefined();
    }
  });

  it("lie in a range from atLeast to below, or exactly one; an unreadable version in none that bounds", () => {
    const twoX = { atLeast: "2.0.0", below: "3.0.0" };
    expect(inRange("2.0.0", twoX)).toBe(true);
    expect(inRange("2.3.0", twoX)).toBe(true);
    expect(inRange("3.0.0", twoX)).toBe(false);
    // A pre-release of 3.0.0 orders before it, as semantic versioning has it.
    expect(inRange("3.0.0-SNAPSHOT", twoX)).toBe(true);
    expect(inRange("2.0.0-SNAPSHOT", twoX)).toBe(false);
    expect(inRange("1.28.1", { below: "2" })).toBe(true);
    expect(inRange("1.0.0", { exactly: "1.0" })).toBe(true);
    expect(inRange(undefined, twoX)).toBe(false);
    expect(inRange("unknown", { atLeast: "1.0.0" })).toBe(false);
    expect(inRange(undefined, {})).toBe(true);
  });

  it("tell what is wrong with a range a person wrote", () => {
    expect(rangeProblems({ atLeast: "2.0.0", below: "3.0.0" })).toEqual([]);
    expect(rangeProblems({})).toEqual(["a version range needs atLeast, below or exactly"]);
    expect(rangeProblems({ atLeast: "two" })).toEqual(['"atLeast" is not a version']);
    expect(rangeProblems({ atLeast: "3.0.0", below: "2.0.0" })).toEqual([
      "no version is at least 3.0.0 and below 2.0.0",
    ]);
    expect(rangeProblems({ atLeast: "2.0.0", below: "2.0.0" })).toHaveLength(1);
    expect(rangeProblems({ exactly: "1.0.0", below: "2.0.0" })).toEqual([
      "exactly stands alone, without atLeast or below",
    ]);
  });
});
