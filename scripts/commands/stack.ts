/**
 * A function's logged stack trace, its frames mapped to Beacon's sources: `npm run stack -- <function> [--map
 * <file>] < trace`. Functions run without Node's `--enable-source-maps`, which would read and index the whole
 * map at every cold start (docs/measurements.md, "Source maps read offline"); each function's source map ships
 * beside its bundle (`index.mjs.map`) and is read here instead, when a trace is to be read.
 */
import { readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { repositoryRoot } from "../../infra/lib/paths.js";
import { bundleFunction, functionNames } from "../bench/function-bundles.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";

const USAGE = `Usage: npm run stack -- <function> [--map <index.mjs.map>] < trace

Reads a stack trace (or log lines holding one) on stdin and prints it with each frame of the function's bundle
(index.mjs:<line>:<column>) replaced by the source file, line and column it was built from.
  <function>  the function whose log it is: ${functionNames().join(", ")}
  --map       the source map deployed with the function (index.mjs.map in its code package); without it,
              the function is bundled from this checkout, as a deployment of it bundles it`;

/** A frame's place in a bundle, as Node prints it: `file:///var/task/index.mjs:1:2345`, or as a path. */
const bundleFrame = /(?:file:\/\/)?[^\s()"'\\]*index\.mjs:(\d+):(\d+)/g;

/**
 * `text` with every frame of the bundle whose map is `payload` replaced by its source's place; a source path is
 * given relative to the repository when it lies in it (`mapDir`, the map's folder, resolves the map's relative
 * paths), from `node_modules/` for a dependency. A frame the map does not cover is left as it was.
 */
export function mapStackTrace(text: string, payload: SourceMapPayload, mapDir: string): string {
  const sourceMap = new SourceMap(payload);
  return text.replace(bundleFrame, (frame, line: string, column: string) => {
    const origin = sourceMap.findOrigin(Number(line), Number(column));
    if (!("fileName" in origin)) return frame;
    return `${sourcePath(origin.fileName, mapDir)}:${origin.lineNumber}:${origin.columnNumber}`;
  });
}

function sourcePath(source: string, mapDir: string): string {
  const absolute = path.resolve(mapDir, source);
  const dependency = absolute.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  if (dependency >= 0) return absolute.slice(dependency + 1);
  const inRepository = path.relative(repositoryRoot, absolute);
  return inRepository.startsWith("..") ? source : inRepository;
}

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(USAGE, {
    allowPositionals: true,
    options: { map: { type: "string" } },
  });
  const [name] = positionals;
  if (positionals.length !== 1 || name === undefined || !functionNames().includes(name))
    exitWithUsage(USAGE, "name one function");
  const mapFile =
    values.map === undefined
      ? `${(await bundleFunction(name, path.join(repositoryRoot, ".beacon", "stack"))).file}.map`
      : path.resolve(values.map);
  const payload = JSON.parse(readFileSync(mapFile, "utf8")) as SourceMapPayload;
  process.stdout.write(mapStackTrace(readFileSync(0, "utf8"), payload, path.dirname(mapFile)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
