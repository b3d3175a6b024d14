// The command line of every `npm run` command (and of setup, which runs before node_modules exists: so plain
// JavaScript, typed by command-line.d.mts): node:util's parseArgs with --help (-h) added, and a mistake in the
// command line told in one line with the usage instead of a stack trace.
import { parseArgs } from "node:util";

/**
 * The options and positionals `config` describes, read from this process's arguments. Asked for help, it prints
 * `usage` and exits 0; given an option it does not know, a value it cannot take or an argument it does not expect,
 * it exits as exitWithUsage does.
 */
export function parseCommandLine(usage, config) {
  let parsed;
  try {
    parsed = parseArgs({ ...config, options: { ...config.options, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    if (!String(error?.code).startsWith("ERR_PARSE_ARGS")) throw error;
    exitWithUsage(usage, error.message);
  }
  if (parsed.values.help) {
    console.log(usage);
    process.exit(0);
  }
  delete parsed.values.help;
  return parsed;
}

/** Ends the command over a mistake in its command line: the mistake in one line, then the usage; exit 2. */
export function exitWithUsage(usage, mistake) {
  console.error(`${mistake}\n\n${usage}`);
  process.exit(2);
}
