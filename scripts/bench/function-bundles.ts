/**
 * Every Beacon function bundled as the CDK app bundles it for a deployment (infra/lib/beacon-function.ts's
 * `beaconEsbuildOptions`, read here, not restated): each `functions/<name>/handler.ts` to a minified ES module
 * for Node 22 with the SDK inside, with its size as Lambda stores it and as it travels compressed.
 */
import { readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { beaconEsbuildOptions } from "../../infra/lib/beacon-function.js";
import { repositoryRoot } from "../../infra/lib/paths.js";

/**
 * The agent API's bundle, minified, at most 1.05 MB: Lambda loads and parses all of it at every cold start. It
 * was 1 MB until secrets by reference brought the Parameter Store client (79 kB), which cost no measurable init
 * time (docs/measurements.md, "Cold starts").
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
  /** The bundle's ES module, `index.mjs` as NodejsFunction names it. */
  file: string;
  /** Minified bytes, the source map left out (it is a file of its own). */
  bytes: number;
  gzipBytes: number;
}

/** Bundles `functions/<name>/handler.ts` into `outDir/<name>/index.mjs`, with its source map beside it. */
export async function bundleFunction(name: string, outDir: string): Promise<FunctionBundle> {
  const file = path.join(outDir, name, "index.mjs");
  await build({
    ...beaconEsbuildOptions,
    logLevel: "warning",
    entryPoints: [path.join(functionsDir, name, "handler.ts")],
    outfile: file,
  });
  const code = await readFile(file);
  return { name, file, bytes: code.length, gzipBytes: gzipSync(code).length };
}
