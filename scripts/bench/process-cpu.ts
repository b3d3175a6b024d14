/**
 * CPU time and memory of the processes a benchmark started, read from /proc: the emulators, the load and the
 * counting proxies run in processes of their own, so that what they cost is named apart from Beacon's.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** A process as /proc/<pid>/stat tells it: its parent and the CPU time it used, user and system, in ticks. */
export interface ProcessStat {
  pid: number;
  ppid: number;
  cpuTicks: number;
}

/** Parses /proc/<pid>/stat; the command name in parentheses may hold spaces and parentheses itself. */
export function parseStat(text: string): ProcessStat {
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // After the name: state (3), ppid (4), …, utime (14), stime (15), counted from 1 with pid and name.
  return {
    pid: Number.parseInt(text, 10),
    ppid: Number(fields[1]),
    cpuTicks: Number(fields[11]) + Number(fields[12]),
  };
}

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
const PAGE_BYTES = Number(execFileSync("getconf", ["PAGESIZE"], { encoding: "utf8" }).trim());

const readOrUndefined = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    // The process ended between listing and reading.
    return undefined;
  }
};

/**
 * The local stack's backends by their command lines, as the benchmarks name them: DynamoDB Local by its main
 * class (its jars' folder is spelled in lower case).
 */
export const BACKEND_PROCESSES: [RegExp, string][] = [
  [/kinesalite/, "kinesalite"],
  [/dynamodbv2\.local/, "DynamoDB Local"],
  [/redis-server/, "redis-server"],
];

/** Names a command line by the first of `names` it matches; the shells that run the emulators under a watchdog, never. */
export const processNamer =
  (names: [RegExp, string][]) =>
  (commandLine: string): string | undefined =>
    /^(\S*\/)?(ba)?sh /.test(commandLine)
      ? undefined
      : names.find(([pattern]) => pattern.test(commandLine))?.[1];

/** A descendant process a benchmark names: the name its command line was given, and what /proc/<pid>/stat says. */
export interface NamedProcess {
  name: string;
  stat: ProcessStat;
}

/**
 * The descendants of process `root` that `nameOf` names from their command lines; a process it names nothing is
 * left out (its descendants are still looked at).
 */
export function namedDescendants(
  root: number,
  nameOf: (commandLine: string) => string | undefined,
): NamedProcess[] {
  const stats: ProcessStat[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const text = readOrUndefined(`/proc/${entry}/stat`);
    if (text !== undefined) stats.push(parseStat(text));
  }
  const children = new Map<number, ProcessStat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const named: NamedProcess[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      const commandLine = readOrUndefined(`/proc/${child.pid}/cmdline`)?.replaceAll("\0", " ") ?? "";
      const name = nameOf(commandLine);
      if (name !== undefined) named.push({ name, stat: child });
      visit(child.pid);
    }
  };
  visit(root);
  return named;
}

/**
 * The CPU milliseconds used so far by the descendants of process `root`, added up by the name `nameOf` gives
 * each from its command line.
 */
export function descendantsCpuMs(
  root: number,
  nameOf: (commandLine: string) => string | undefined,
): Map<string, number> {
  const totals = new Map<string, number>();
  for (const { name, stat } of namedDescendants(root, nameOf))
    totals.set(name, (totals.get(name) ?? 0) + (stat.cpuTicks * 1000) / TICKS_PER_SECOND);
  return totals;
}

/** The resident memory of process `pid` in bytes (/proc/<pid>/statm), 0 once it has ended. */
export function residentBytes(pid: number): number {
  const pages = Number(readOrUndefined(`/proc/${pid}/statm`)?.split(" ")[1] ?? 0);
  return pages * PAGE_BYTES;
}
