/**
 * A function's logged stack trace, its frames mapped to Beacon's sources: `npm run stack -- <function> [--code
 * <folder>] < trace`. Functions run without Node's `--enable-source-maps`, which would read and index the whole
 * map at every cold start (docs/measurements.md, "Source maps read offline"); each file of a function's code
 * package ships with its source map beside it (`index.mjs.map`, `chunks/….mjs.map`), read here instead, when a
 * trace is to be read.
 */
import { existsSync, readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { repositoryRoot } from "../../infra/lib/paths.js";
import { bundleFunction, functionNames } from "../bench/function-bundles.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";

const USAGE = `Usage: npm run stack -- <function> [--code <folder>] < trace

Reads a stack trace (or log lines holding one) on stdin and prints it with each frame of the function's code
(index.mjs:<line>:<column>, chunks/<name>.mjs:<line>:<column>) replaced by the source file, line and column it
was built from.
  <function>  the function whose log it is: ${functionNames().join(", ")}
  --code      the code package deployed with the function, unzipped; without it, the function is bundled
              from this checkout, as a deployment of it bundles it`;

/**
 * A frame's place in a function's code, as Node prints it: `file:///var/task/index.mjs:1:2345`, or
 * `/var/task/chunks/issuer-4DZ2.mjs:1:80`; the file is named relative to the code package's folder.
 */
const codeFrame = /(?:file:\/\/)?[^\s()"'\\]*?((?:chunks\/[\w.-]+|index)\.mjs):(\d+):(\d+)/g;

/**
 * `text` with every frame of the code package in `codeDirectory` replaced by its source's place, through the
 * map beside the frame's file; a source path is given relative to the repository when it lies in it, from
 * `node_modules/` for a dependency. A frame no map covers is left as it was.
 */
export function mapStackTrace(text: string, codeDirectory: string): string {
  const maps = new Map<string, SourceMap | undefined>();
  const mapOf = (file: string) => {
    if (!maps.has(file)) {
      const mapFile = path.join(codeDirectory, `${file}.map`);
      maps.set(
        file,
        existsSync(mapFile)
          ? new SourceMap(JSON.parse(readFileSync(mapFile, "utf8")) as SourceMapPayload)
          : undefined,
      );
    }
    return maps.get(file);
  };
  return text.replace(codeFrame, (frame, file: string, line: string, column: string) => {
    const origin = mapOf(file)?.findOrigin(Number(line), Number(column));
    if (origin === undefined || !("fileName" in origin)) return frame;
    const mapDir = path.dirname(path.join(codeDirectory, file));
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
    options: { code: { type: "string" } },
  });
  const [name] = positionals;
  if (positionals.length !== 1 || name === undefined || !functionNames().includes(name))
    exitWithUsage(USAGE, "name one function");
  const codeDirectory =
    values.code === undefined
      ? path.dirname((await bundleFunction(name, path.join(repositoryRoot, ".beacon", "stack"))).file)
      : path.resolve(values.code);
  process.stdout.write(mapStackTrace(readFileSync(0, "utf8"), codeDirectory));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
