import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));

/** A relative path that climbs at least one folder, as it appears in code, docs or configuration. */
const CLIMBING_PATH = /(?<![\w.])((?:\.\.\/)+)([\w@$-][\w@$./-]*)?/g;

function trackedTextFiles(): string[] {
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: repositoryRoot, encoding: "utf8" })
    .split("\0")
    .filter((file) => file !== "");
  return files.filter((file) => !file.startsWith("schemas/c2/examples/") && !isBinary(file));
}

function isBinary(file: string): boolean {
  return readFileSync(path.join(repositoryRoot, file)).subarray(0, 8_000).includes(0);
}

const inside = (target: string) => {
  const relative = path.relative(repositoryRoot, target);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
};

/**
 * Every place a tracked file names a path outside the repository: relative to the file itself (imports,
 * URLs from import.meta.url) and relative to the repository root (commands run from it, as in the README).
 */
function referencesOutside(file: string, text: string): string[] {
  const found: string[] = [];
  const fileDir = path.dirname(path.join(repositoryRoot, file));
  text.split("\n").forEach((line, index) => {
    for (const match of line.matchAll(CLIMBING_PATH)) {
      const reference = match[0];
      // A glob (biome.json's import restrictions, `../*/**`) matches import specifiers; it names no file.
      if (line[(match.index ?? 0) + reference.length] === "*") continue;
      if (inside(path.resolve(fileDir, reference)) || inside(path.resolve(repositoryRoot, reference)))
        continue;
      found.push(`${file}:${index + 1}: ${reference}`);
    }
  });
  return found;
}

describe("the repository", () => {
  it("reads nothing outside itself: no tracked file names a path above its root", () => {
    const outside = trackedTextFiles().flatMap((file) =>
      referencesOutside(file, readFileSync(path.join(repositoryRoot, file), "utf8")),
    );
    expect(outside).toEqual([]);
  });

  it("would notice a file that did", () => {
    // Built, not written out: this file is tracked too, and must not name such a path itself.
    const above = `${"../".repeat(4)}shared/c2/x.json`;
    expect(referencesOutside("functions/core/test/fixtures.ts", `new URL("${above}")`)).toEqual([
      `functions/core/test/fixtures.ts:1: ${above}`,
    ]);
    const besideRoot = `${"../"}shared/c2/examples/a.json`;
    expect(referencesOutside("README.md", `curl --data @${besideRoot}`)).toEqual([
      `README.md:1: ${besideRoot}`,
    ]);
    expect(referencesOutside("functions/agent-api/handler.ts", 'import "../shared/config.js";')).toEqual([]);
    expect(referencesOutside("biome.json", '"group": ["../*/**", "!../c2/**"]')).toEqual([]);
  });
});
