import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Schemas } from "../web/src/api/client.js";
import { UsageError } from "./exit.js";
import { comparable, matchVersion, unifiedDiff, versionSpec } from "./flows-diff.js";

/** What GNU diff -u says of the two texts, its two header lines (they carry file times) left out. */
function gnuDiff(from: string, to: string, context: number): string {
  const folder = mkdtempSync(path.join(tmpdir(), "beacon-diff-"));
  writeFileSync(path.join(folder, "a"), from);
  writeFileSync(path.join(folder, "b"), to);
  try {
    execFileSync("diff", [`-U${context}`, "a", "b"], { cwd: folder, encoding: "utf8" });
    return "";
  } catch (error) {
    return ((error as { stdout: string }).stdout ?? "").split("\n").slice(2).join("\n");
  }
}

const hunks = (diff: string) => diff.split("\n").slice(2).join("\n");

describe("flows diff", () => {
  it("names a version by its hash, the start of it, or v3", () => {
    const hash = "ab".repeat(32);
    expect(versionSpec(hash)).toEqual({ hash });
    expect(versionSpec(hash.toUpperCase())).toEqual({ hash });
    expect(versionSpec("abab12")).toEqual({ prefix: "abab12" });
    expect(versionSpec("v3")).toEqual({ version: 3 });
    expect(versionSpec("V12")).toEqual({ version: 12 });
    for (const wrong of ["abc", "v0", "v", "3.1", "latest", `${hash}0`]) {
      expect(() => versionSpec(wrong), wrong).toThrow(UsageError);
    }
  });

  it("finds the one version a name means, or says why none or which several", () => {
    const version = (hash: string, number: number) => ({ hash, version: number }) as Schemas["FlowVersion"];
    const versions = [version(`aaaa1${"0".repeat(59)}`, 1), version(`aaaa2${"0".repeat(59)}`, 2)];
    expect(matchVersion("pumps", "v2", versions)).toBe(versions[1]);
    expect(matchVersion("pumps", "aaaa1", versions)).toBe(versions[0]);
    expect(matchVersion("pumps", versions[1]?.hash as string, versions)).toBe(versions[1]);
    expect(() => matchVersion("pumps", "v3", versions)).toThrow("Class pumps has no flow version v3");
    expect(() => matchVersion("pumps", "aaaa", versions)).toThrow(
      "aaaa names 2 versions of class pumps (aaaa10000000…, aaaa20000000…): give more of the hash",
    );
  });

  it("compares JSON indented, line by line, and YAML as it was uploaded", () => {
    expect(comparable('{"a":[1,2],"b":{}}', "application/json")).toBe(
      '{\n  "a": [\n    1,\n    2\n  ],\n  "b": {}\n}\n',
    );
    expect(comparable("a: 1\n", "application/yaml")).toBe("a: 1\n");
    expect(comparable("{broken", "application/json")).toBe("{broken");
  });

  it("writes the hunks GNU diff -u writes", () => {
    const lines = (count: number, changed: Record<number, string> = {}) =>
      Array.from({ length: count }, (_, line) => `${changed[line] ?? `line ${line}`}\n`).join("");
    const cases: [string, string, number][] = [
      [lines(20), lines(20, { 3: "three", 15: "fifteen" }), 3],
      [lines(20), lines(20, { 3: "three", 8: "eight" }), 3],
      [lines(5), lines(8), 2],
      [lines(8), lines(3), 0],
      ["", lines(2), 3],
      [lines(2), "", 3],
      ["a\nb", "a\nc", 3],
      ["a\nb\n", "a\nb", 1],
    ];
    for (const [from, to, context] of cases) {
      const ours = unifiedDiff({ label: "a", text: from }, { label: "b", text: to }, context);
      expect(hunks(ours), JSON.stringify([from, to, context])).toBe(gnuDiff(from, to, context));
    }
  });

  it("labels the two sides and writes nothing for the same content", () => {
    const diff = unifiedDiff(
      { label: "pumps v1 aaaa", text: "x\n" },
      { label: "pumps v2 bbbb", text: "y\n" },
    );
    expect(diff).toBe("--- pumps v1 aaaa\n+++ pumps v2 bbbb\n@@ -1 +1 @@\n-x\n+y\n");
    expect(unifiedDiff({ label: "a", text: "same\n" }, { label: "b", text: "same\n" })).toBe("");
  });
});
