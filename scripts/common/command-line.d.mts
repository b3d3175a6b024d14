import type { ParseArgsConfig, parseArgs } from "node:util";

export function parseCommandLine<T extends ParseArgsConfig>(
  usage: string,
  config: T,
): ReturnType<typeof parseArgs<T>>;

export function exitWithUsage(usage: string, mistake: string): never;
