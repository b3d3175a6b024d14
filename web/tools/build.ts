/**
 * Builds the web console into a folder of static files, as `npm start` serves them and the CDK app will
 * deploy them: `npm run web:build -- <folder>`. A build whose inputs have not changed since the folder was
 * built is skipped, so a restart costs nothing.
 */
import { createHash } from "node:crypto";
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { exitWithUsage, parseCommandLine } from "../../scripts/common/command-line.mjs";
import { firstLoads } from "./bundle-budget.js";

const webDir = fileURLToPath(new URL("../", import.meta.url));
const repositoryRoot = path.dirname(webDir.replace(/\/$/, ""));
/**
 * Everything the build reads: the sources, the page, the build's configuration, the packages, and the core
 * files the flow designer shares with Beacon's own reading of flows.
 */
const INPUTS = [
  "web/src",
  "web/serving.ts",
  "web/index.html",
  "web/vite.config.ts",
  "package-lock.json",
  "functions/core/json.ts",
  "functions/core/errors.ts",
  "functions/core/flows/layout.ts",
];
const STAMP_FILE = ".build-stamp";

export interface WebBuild {
  dir: string;
  /** False when the folder already held a build of the same inputs. */
  built: boolean;
}

export async function buildWebConsole(outDir: string): Promise<WebBuild> {
  const stamp = await inputsHash();
  const current = await readFile(path.join(outDir, STAMP_FILE), "utf8").catch(() => undefined);
  if (current === stamp) return { dir: outDir, built: false };
  // Built beside the folder and swapped in whole: a server never sees half a build.
  const staging = `${outDir}.staging-${process.pid}`;
  await build({
    configFile: path.join(webDir, "vite.config.ts"),
    logLevel: "warn",
    build: { outDir: staging },
  });
  await writeFile(path.join(staging, STAMP_FILE), stamp);
  await rm(outDir, { recursive: true, force: true });
  await rename(staging, outDir);
  return { dir: outDir, built: true };
}

async function inputsHash(): Promise<string> {
  const hash = createHash("sha256");
  for (const input of INPUTS) {
    for (const file of await filesUnder(path.join(repositoryRoot, input))) {
      hash.update(path.relative(repositoryRoot, file));
      hash.update(await readFile(file));
    }
  }
  return hash.digest("hex");
}

async function filesUnder(target: string): Promise<string[]> {
  const entries = await readdir(target, { withFileTypes: true, recursive: true }).catch((error) => {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw error;
  });
  if (entries === undefined) return [target];
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const usage = `Usage: npm run web:build [-- <folder>]

Builds the web console into a folder of static files (default .beacon/web); skipped when nothing changed.`;
  const { positionals } = parseCommandLine(usage, { options: {}, allowPositionals: true });
  if (positionals.length > 1) exitWithUsage(usage, "give one folder at most");
  const outDir = path.resolve(positionals[0] ?? path.join(repositoryRoot, ".beacon", "web"));
  const started = Date.now();
  const { built } = await buildWebConsole(outDir);
  console.log(`${built ? "built" : "up to date:"} ${outDir} (${Date.now() - started} ms)`);
  for (const { page, gzipBytes } of await firstLoads(outDir)) {
    console.log(`  first load of ${page}: ${(gzipBytes / 1024).toFixed(1)} KB of JavaScript, gzipped`);
  }
}
