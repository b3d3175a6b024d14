/**
 * What a browser downloads of JavaScript before the console shows a page: the entry chunk, the chunk of
 * the page it opens on, and every chunk those import statically, each gzipped as it is served. Read from the
 * build's manifest, so it counts what the build made, not what the sources suggest.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";

/** The budget for the console's first load. */
export const FIRST_LOAD_BUDGET_BYTES = 200 * 1024;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

export interface FirstLoad {
  /** The page's source module (`src/pages/fleet.tsx`). */
  page: string;
  files: string[];
  gzipBytes: number;
}

/** The first load of every page the entry opens lazily, largest first. */
export async function firstLoads(buildDir: string): Promise<FirstLoad[]> {
  const manifest = JSON.parse(
    await readFile(path.join(buildDir, ".vite", "manifest.json"), "utf8"),
  ) as Record<string, ManifestChunk>;
  const entryKey = Object.keys(manifest).find((key) => manifest[key]?.isEntry);
  if (entryKey === undefined) throw new Error(`${buildDir} has no entry chunk in its manifest`);
  const closure = (key: string, into = new Set<string>()): Set<string> => {
    if (into.has(key)) return into;
    into.add(key);
    for (const imported of manifest[key]?.imports ?? []) closure(imported, into);
    return into;
  };
  const pages = manifest[entryKey]?.dynamicImports ?? [];
  const loads = await Promise.all(
    pages.map(async (page) => {
      const files = [...closure(page, closure(entryKey))].map((key) => manifest[key]?.file as string);
      const sizes = await Promise.all(
        files.map(async (file) => gzipSync(await readFile(path.join(buildDir, file)), { level: 9 }).length),
      );
      return { page, files, gzipBytes: sizes.reduce((sum, size) => sum + size, 0) };
    }),
  );
  return loads.sort((a, b) => b.gzipBytes - a.gzipBytes);
}
