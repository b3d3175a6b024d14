/**
 * Every Beacon function bundled as the CDK app bundles it for a deployment (infra/lib/beacon-function.ts's
 * `functionBuildOptions`, read here, not restated): each `functions/<name>/handler.ts` to a minified ES module
 * for Node 22 with the SDK inside and the chunks it imports on first use, with the size a cold start loads as
 * Lambda stores it and as it travels compressed.
 */
import { readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { functionBuildOptions } from "../../infra/lib/beacon-function.js";
import { repositoryRoot } from "../../infra/lib/paths.js";

/**
 * What the agent API's cold start loads (`index.mjs` and the chunks it imports statically), minified, at most
 * 1.05 MB: V8 compiles all of it at every cold start. It was 1 MB until secrets by reference brought the
 * Parameter Store client (79 kB), which cost no measurable init time (docs/measurements.md, "Cold starts").
 */
export const AGENT_API_BUNDLE_LIMIT_BYTES = 1_050_000;

const functionsDir = path.join(repositoryRoot, "functions");

/** The functions a deployment ships: each folder of functions/ with a handler.ts. */
export const functionNames = (): string[] =>
  readdirSync(functionsDir)
    .filter((name) => statSync(path.join(functionsDir, name, "handler.ts"), { throwIfNoEntry: false }))
    .sort();

export interface FunctionBundle {
  name: string;
  /** The module Lambda loads, `index.mjs`, in the folder of its code package. */
  file: string;
  /** Minified bytes of `index.mjs` and the chunks it imports statically: what every cold start loads. */
  bytes: number;
  gzipBytes: number;
  /** Minified bytes of the chunks loaded only when a dynamic import reaches them. */
  chunkBytes: number;
  /** The source files (the project's and its packages', as esbuild names them) a cold start loads. */
  sourcesAtStart: string[];
}

/**
 * Bundles `functions/<name>/handler.ts` into `outDir/<name>/`: `index.mjs`, its chunks under `chunks/`, each
 * with its source map beside it.
 */
export async function bundleFunction(name: string, outDir: string): Promise<FunctionBundle> {
  const folder = path.join(outDir, name);
  const { metafile } = await build({
    ...functionBuildOptions(path.join(functionsDir, name, "handler.ts"), folder),
    logLevel: "warning",
    metafile: true,
  });
  const outputs = new Map(
    Object.entries(metafile.outputs).map(([file, output]) => [path.resolve(file), output] as const),
  );
  const file = path.join(folder, "index.mjs");
  const loaded = new Set<string>();
  const load = (module: string) => {
    if (loaded.has(module)) return;
    loaded.add(module);
    for (const { path: imported, kind } of outputs.get(module)?.imports ?? []) {
      if (kind === "import-statement" && outputs.has(path.resolve(imported))) load(path.resolve(imported));
    }
  };
  load(file);
  const codeOf = (files: string[]) => Promise.all(files.map((module) => readFile(module)));
  const atStart = Buffer.concat(await codeOf([...loaded]));
  const chunks = [...outputs.keys()].filter((module) => module.endsWith(".mjs") && !loaded.has(module));
  const chunkBytes = (await codeOf(chunks)).reduce((sum, code) => sum + code.length, 0);
  const sourcesAtStart = [...loaded].flatMap((module) => Object.keys(outputs.get(module)?.inputs ?? {}));
  return {
    name,
    file,
    bytes: atStart.length,
    gzipBytes: gzipSync(atStart).length,
    chunkBytes,
    sourcesAtStart,
  };
}
