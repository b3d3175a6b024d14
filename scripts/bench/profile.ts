/**
 * Reads a V8 CPU profile (what `--cpu-prof` and the inspector's Profiler write) into the lines
 * `npm run bench` prints: self time by where it is spent and by function, largest first.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { SourceMap } from "node:module";
import path from "node:path";

/** Where a profiled function is: its script's URL, and its 0-based line and column there. */
export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber?: number;
}

/**
 * Where a frame's code was written, for code that was bundled: its source's path and 0-based line (through the
 * bundle's source map); undefined to keep the frame as the profile names it.
 */
export type OriginalFrame = (frame: CallFrame) => { url: string; lineNumber: number } | undefined;

/** A frame of the bundle `bundle`, its source, package file or project file, as `bundle`'s source map names it. */
export function bundleSources(bundle: string): OriginalFrame {
  const mapFile = `${bundle}.map`;
  if (!existsSync(mapFile)) return () => undefined;
  const map = new SourceMap(JSON.parse(readFileSync(mapFile, "utf8")));
  return ({ url, lineNumber, columnNumber }) => {
    if (!url.endsWith(bundle)) return undefined;
    const entry = map.findEntry(lineNumber, columnNumber ?? 0);
    if (!("originalSource" in entry)) return undefined;
    return { url: path.resolve(path.dirname(bundle), entry.originalSource), lineNumber: entry.originalLine };
  };
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
}

/** V8's own entries, which are no JavaScript function; idle time is no CPU time and is left out. */
const VM_ENTRIES = new Set(["(garbage collector)", "(program)", "(root)"]);
const IDLE = "(idle)";

/**
 * Where code at `url` lives: a package in node_modules, a folder of the project, a Node.js built-in module, or a
 * function's bundle (its `index.mjs` or one of its chunks, which hold esbuild's helpers) where no source map named
 * the code's source.
 */
function areaOf(url: string): string | undefined {
  if (url === "") return undefined;
  const functionBundle = /\/bundles\/([^/]+)\/(?:index|chunks\/[^/]+)\.mjs$/.exec(url);
  if (functionBundle) return `the ${functionBundle[1]} bundle`;
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1] as string;
  const builtIn = /^node:(?:internal\/)?([^/]+)/.exec(url);
  if (builtIn) return `node:${builtIn[1]}`;
  const projectFolder = /\/((?:functions|scripts|schemas)\/[^/]+)\//.exec(url);
  return projectFolder ? (projectFolder[1] as string) : url;
}

/**
 * Self time by where it is spent (Node.js built-ins and native code count for the package or project folder
 * that called them, when one did) and by function, largest first, in percent of the time the CPU was busy.
 */
export function summarizeProfile(
  value: unknown,
  originalFrame: OriginalFrame = () => undefined,
): { byArea: string[]; byFunction: string[] } {
  const profile = value as Profile;
  const located = (frame: CallFrame): CallFrame => ({ ...frame, ...originalFrame(frame) });
  const parents = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node);
  const busy = profile.nodes.filter(
    (node) => node.callFrame.functionName !== IDLE && (node.hitCount ?? 0) > 0,
  );
  const totalHits = busy.reduce((sum, node) => sum + (node.hitCount ?? 0), 0);
  const area = new Map<string, number>();
  const functions = new Map<string, number>();
  const add = (into: Map<string, number>, key: string, hits: number) =>
    into.set(key, (into.get(key) ?? 0) + hits);
  for (const node of busy) {
    const hits = node.hitCount ?? 0;
    const { functionName } = node.callFrame;
    if (VM_ENTRIES.has(functionName)) {
      add(area, functionName, hits);
      add(functions, functionName, hits);
      continue;
    }
    let builtIn: string | undefined;
    let owner: string | undefined;
    for (let frame: ProfileNode | undefined = node; frame && !owner; frame = parents.get(frame.id)) {
      const frameArea = areaOf(located(frame.callFrame).url);
      if (frameArea?.startsWith("node:")) builtIn ??= frameArea;
      else owner = frameArea;
    }
    add(area, owner ?? builtIn ?? "(native)", hits);
    const { url, lineNumber } = located(node.callFrame);
    const file =
      url === "" ? "(native)" : url.replace(/^.*\/(node_modules|functions|scripts|schemas)\//, "$1/");
    add(functions, `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`, hits);
  }
  const lines = (into: Map<string, number>) =>
    [...into]
      .sort((a, b) => b[1] - a[1])
      .map(([key, hits]) => `${((100 * hits) / totalHits).toFixed(1).padStart(5)} %  ${key}`);
  return { byArea: lines(area), byFunction: lines(functions) };
}

/**
 * Starts profiling this process's CPU; `stop` ends it, writes the profile to `file` (`.cpuprofile`, for
 * Chrome's DevTools) and returns it.
 */
export async function startCpuProfile(file: string): Promise<{ stop(): Promise<unknown> }> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return {
    async stop() {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
      return profile;
    },
  };
}

/** The profile's summary as the benchmarks print it: the areas, then the functions, largest first. */
export function profileLines(
  profile: unknown,
  originalFrame?: OriginalFrame,
  areas = 12,
  functions = 15,
): string[] {
  const summary = summarizeProfile(profile, originalFrame);
  return [
    "self time by where it is spent:",
    ...summary.byArea.slice(0, areas).map((line) => `  ${line}`),
    "top functions by self time:",
    ...summary.byFunction.slice(0, functions).map((line) => `  ${line}`),
  ];
}
