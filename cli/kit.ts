/**
 * What every `beacon` command is given: its context's client, output as a table or `--json`, paging options
 * and argument parsers, so that each group of commands can live in its own file.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { type ConsoleClient, consoleClient } from "../web/src/api/client.js";
import { configPath, readConfig, resolveContext } from "./config.js";
import { UsageError } from "./exit.js";
import { type Io, json } from "./output.js";

export interface Environment {
  io: Io;
  env: NodeJS.ProcessEnv;
  /** What a command's outcome sets, for `rollouts watch`: 0 unless told. */
  exitCode: number;
}

export interface GlobalOptions {
  context?: string;
  json?: boolean;
}

export interface CommandKit {
  environment: Environment;
  io: Io;
  configFile: string;
  globals(command: Command): GlobalOptions;
  /** The console API of the command's context, signed in. */
  client(command: Command): ConsoleClient;
  /** The data as JSON with --json, else as people read it. */
  show<T>(command: Command, data: T, human: (data: T) => string): void;
  /** As show, and on stderr how to ask for the next page when there is one. */
  page<T extends { nextCursor?: string }>(command: Command, data: T, human: (data: T) => string): void;
  /** Adds --limit and --cursor. */
  paging(command: Command): Command;
}

export function commandKit(environment: Environment): CommandKit {
  const { io, env } = environment;
  const configFile = configPath(env);
  const globals = (command: Command) => command.optsWithGlobals<GlobalOptions>();
  const show = <T>(command: Command, data: T, human: (data: T) => string) => {
    io.out(`${globals(command).json ? json(data) : human(data)}\n`);
  };
  return {
    environment,
    io,
    configFile,
    globals,
    client(command) {
      const resolved = resolveContext(readConfig(configFile), env, globals(command).context);
      if (!resolved.token) throw new UsageError("Not signed in: beacon login, or set BEACON_TOKEN");
      return consoleClient({ baseUrl: resolved.url, token: resolved.token });
    },
    show,
    page(command, data, human) {
      show(command, data, human);
      if (!globals(command).json && data.nextCursor)
        io.err(`More: the same with --cursor ${data.nextCursor}\n`);
    },
    paging: (command) =>
      command
        .option("--limit <n>", "page size, at most 100", integer(1))
        .option("--cursor <cursor>", "the page after the one that named this cursor"),
  };
}

/** A whole number of at least `min`, for options such as --limit. */
export function integer(min: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < min)
      throw new InvalidArgumentError(`expected a whole number ≥ ${min}`);
    return number;
  };
}

/** A file's text, or a usage error naming the file and why it could not be read. */
export function readContent(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw unreadable(file, error);
  }
}

/** A file's size, or a usage error naming the file and why it could not be read. */
export function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch (error) {
    throw unreadable(file, error);
  }
}

const unreadable = (file: string, error: unknown) =>
  new UsageError(`Cannot read ${path.resolve(file)}: ${(error as NodeJS.ErrnoException).code ?? error}`);
