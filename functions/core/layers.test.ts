import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * biome.json holds core's layers: one override a core folder, whose import restriction allows the folders of
 * the layers below it (`!../<folder>/**`) and forbids every other (`../*` + `/**`). Lint holds the code to
 * them; this holds the rules themselves to the folders that exist and to an order without circles.
 */
const coreDir = path.dirname(fileURLToPath(import.meta.url));
const biome = JSON.parse(readFileSync(path.join(coreDir, "..", "..", "biome.json"), "utf8"));

interface ImportPattern {
  group: string[];
}
interface Override {
  includes: string[];
  linter?: { rules?: { style?: { noRestrictedImports?: { options?: { patterns?: ImportPattern[] } } } } };
}

const folders = readdirSync(coreDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** Each core folder's override, by folder: the folders it may import, or undefined where it has none. */
function layerRules(): Map<string, string[][]> {
  const rules = new Map<string, string[][]>();
  for (const override of biome.overrides as Override[]) {
    const folder = override.includes
      .map((glob) => /^functions\/core\/([^/*]+)\/\*\*$/.exec(glob)?.[1])
      .find((name) => name !== undefined);
    if (!folder) continue;
    const groups = override.linter?.rules?.style?.noRestrictedImports?.options?.patterns ?? [];
    const layerGroups = groups.filter((pattern) => pattern.group.includes("../*/**"));
    rules.set(
      folder,
      layerGroups.map((pattern) =>
        pattern.group.flatMap((glob) => /^!\.\.\/([^/]+)\/\*\*$/.exec(glob)?.[1] ?? []),
      ),
    );
  }
  return rules;
}

describe("core's layers in biome.json", () => {
  const rules = layerRules();

  it("place every core folder in exactly one layer rule, and name no folder that does not exist", () => {
    expect([...rules.keys()].sort()).toEqual(folders);
    for (const [folder, groups] of rules) {
      expect(groups, `${folder}'s override`).toHaveLength(1);
      for (const allowed of groups[0] ?? [])
        expect(folders, `${folder} allows ${allowed}`).toContain(allowed);
    }
  });

  it("let no folder import one that may import it back, directly or round a circle", () => {
    const allowed = new Map([...rules].map(([folder, groups]) => [folder, groups[0] ?? []]));
    function reaches(from: string, to: string, seen = new Set<string>()): boolean {
      for (const next of allowed.get(from) ?? []) {
        if (next === to) return true;
        if (seen.has(next)) continue;
        seen.add(next);
        if (reaches(next, to, seen)) return true;
      }
      return false;
    }
    for (const folder of folders) expect(reaches(folder, folder), `${folder} reaches itself`).toBe(false);
  });
});
