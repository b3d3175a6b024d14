/**
 * What the functions running in this process write, handled as Lambda's runtime hands a function's
 * stdout and stderr to CloudWatch Logs: every line written during an invocation (Powertools' JSON log
 * records, its EMF metric lines) goes whole to a JSON-lines file, tagged with the function's name; the
 * terminal gets one readable line for each log record at or above a level. What is written outside an
 * invocation (the local stack's own messages) is left alone.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export const TerminalLevels = ["debug", "info", "warn", "error"] as const;
export type TerminalLevel = (typeof TerminalLevels)[number];

/** The function log of a local stack whose local folder (local-dir.ts) is `dir`. */
export const functionLogIn = (dir: string): string => path.join(dir, "logs", "functions.jsonl");

/** The variable that sets what the terminal shows. */
export const LOG_LEVEL_ENV_NAME = "BEACON_LOG_LEVEL";
const DEFAULT_TERMINAL_LEVEL: TerminalLevel = "warn";

/** Powertools' levels, in order; a record's `level` is one of these. */
const POWERTOOLS_LEVELS = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "CRITICAL"];
const severityOf = (level: unknown): number => {
  const index = POWERTOOLS_LEVELS.indexOf(String(level).toUpperCase());
  return index === -1 ? POWERTOOLS_LEVELS.indexOf("INFO") : index;
};

/** The terminal level `value` names (BEACON_LOG_LEVEL), warn when unset. */
export function terminalLevelFrom(value: string | undefined): TerminalLevel {
  if (value === undefined || value === "") return DEFAULT_TERMINAL_LEVEL;
  const level = value.toLowerCase();
  if (!(TerminalLevels as readonly string[]).includes(level))
    throw new Error(`${LOG_LEVEL_ENV_NAME}=${value}: expected one of ${TerminalLevels.join(", ")}`);
  return level as TerminalLevel;
}

type LogRecord = Record<string, unknown>;

/** Keys every Powertools record carries, or the runtime adds: the readable line leaves them out. */
const COMMON_KEYS = new Set([
  "level",
  "message",
  "timestamp",
  "service",
  "sampling_rate",
  "xray_trace_id",
  "function_name",
  "function_arn",
  "function_memory_size",
  "function_request_id",
  "cold_start",
]);
const MAX_VALUE_LENGTH = 160;

/** `12:04:05.123 WARN  agent-api: cache unavailable; answered from DynamoDB  tenant=dev error="…"` */
export function readableLine(record: LogRecord, functionName: string): string {
  const level = String(record.level ?? "INFO").padEnd(5);
  const fields = Object.entries(record)
    .filter(([key, value]) => !COMMON_KEYS.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${readableValue(value)}`);
  const message = `${clockTime(record.timestamp)} ${level} ${functionName}: ${String(record.message ?? "")}`;
  return fields.length === 0 ? message : `${message}  ${fields.join(" ")}`;
}

function clockTime(timestamp: unknown): string {
  const parsed = typeof timestamp === "string" ? new Date(timestamp) : new Date();
  const time = Number.isNaN(parsed.getTime()) ? new Date() : parsed;
  const two = (value: number) => String(value).padStart(2, "0");
  return `${two(time.getHours())}:${two(time.getMinutes())}:${two(time.getSeconds())}.${String(time.getMilliseconds()).padStart(3, "0")}`;
}

function readableValue(value: unknown): string {
  const text =
    typeof value === "string"
      ? value
      : isErrorRecord(value)
        ? `${value.name}: ${value.message}`
        : JSON.stringify(value);
  const short = text.length > MAX_VALUE_LENGTH ? `${text.slice(0, MAX_VALUE_LENGTH - 1)}…` : text;
  return /^[^\s"=]+$/.test(short) ? short : JSON.stringify(short);
}

/** How Powertools writes an error given as a field. */
function isErrorRecord(value: unknown): value is { name: string; message: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as LogRecord).name === "string" &&
    typeof (value as LogRecord).message === "string"
  );
}

/** A line that is not JSON (a library's console output) is kept as a record: stderr's as a warning. */
function recordOf(line: string, stream: "stdout" | "stderr"): LogRecord {
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as LogRecord;
  } catch {
    // Not JSON: kept as text below.
  }
  return { level: stream === "stderr" ? "WARN" : "INFO", message: line, timestamp: new Date().toISOString() };
}

/** EMF metric lines (CloudWatch turns them into metrics) are for the file only. */
const isMetricLine = (record: LogRecord): boolean => "_aws" in record;

export interface FunctionLogOptions {
  /** The JSON-lines file, created (with its folder) or emptied. */
  file: string;
  /**
   * Adds to the file another process of the same stack opened, instead of emptying it: each line is appended whole,
   * so that the processes' lines do not overwrite one another.
   */
  join?: boolean;
  /** Log records at or above this level also reach the terminal. */
  terminalLevel: TerminalLevel;
  /** Where readable lines go; this process's own stdout by default. */
  terminal?: (line: string) => void;
}

interface Invocation {
  functionName: string;
  log: FunctionLog;
}

const invocations = new AsyncLocalStorage<Invocation>();

/** The process's own writes, kept when the functions' output is first taken, for what is not theirs. */
let ownWrites: { stdout: NodeJS.WriteStream["write"]; stderr: NodeJS.WriteStream["write"] } | undefined;

function takeFunctionOutput(): NonNullable<typeof ownWrites> {
  if (ownWrites) return ownWrites;
  const own = {
    stdout: process.stdout.write.bind(process.stdout),
    stderr: process.stderr.write.bind(process.stderr),
  };
  for (const stream of ["stdout", "stderr"] as const) {
    // Powertools writes through a Console of its own on these streams, so the streams are where to take it.
    process[stream].write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const invocation = invocations.getStore();
      if (!invocation) return (own[stream] as (...args: unknown[]) => boolean)(chunk, ...rest);
      invocation.log.write(Buffer.from(chunk).toString("utf8"), invocation.functionName, stream);
      const done = rest.find((argument) => typeof argument === "function") as (() => void) | undefined;
      if (done) process.nextTick(done);
      return true;
    }) as NodeJS.WriteStream["write"];
  }
  ownWrites = own;
  return own;
}

export class FunctionLog {
  private readonly threshold: number;

  private constructor(
    readonly file: string,
    readonly terminalLevel: TerminalLevel,
    /** Written synchronously, as a function's stdout is: a line is in the file once its request is answered. */
    private readonly fd: number,
    private readonly terminal: (line: string) => void,
  ) {
    this.threshold = severityOf(terminalLevel);
  }

  static open(options: FunctionLogOptions): FunctionLog {
    const own = takeFunctionOutput();
    mkdirSync(path.dirname(options.file), { recursive: true });
    const { O_WRONLY, O_CREAT, O_APPEND, O_TRUNC } = constants;
    const fd = openSync(options.file, O_WRONLY | O_CREAT | O_APPEND | (options.join ? 0 : O_TRUNC));
    const terminal = options.terminal ?? ((line: string) => own.stdout(`${line}\n`));
    return new FunctionLog(options.file, options.terminalLevel, fd, terminal);
  }

  /** The level functions log at: everything the terminal shows, and at least INFO for the file. */
  get powertoolsLogLevel(): "DEBUG" | "INFO" {
    return this.terminalLevel === "debug" ? "DEBUG" : "INFO";
  }

  /** Runs one invocation of `functionName`: what it writes, to its last asynchronous step, is this log's. */
  run<T>(functionName: string, invocation: () => T): T {
    return invocations.run({ functionName, log: this }, invocation);
  }

  write(text: string, functionName: string, stream: "stdout" | "stderr"): void {
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      const record = recordOf(line, stream);
      writeSync(this.fd, `${JSON.stringify({ function_name: functionName, ...record })}\n`);
      if (isMetricLine(record)) continue;
      if (severityOf(record.level) >= this.threshold) this.terminal(readableLine(record, functionName));
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * A function log of a harness or tool (tests, the benchmark): in a folder of its own under the system's
 * temporary folder, errors on the terminal. `close` removes the folder.
 */
export function openTemporaryFunctionLog(): { log: FunctionLog; close(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), "beacon-function-logs-"));
  const log = FunctionLog.open({ file: functionLogIn(dir), terminalLevel: "error" });
  return {
    log,
    close() {
      log.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A function log file's records with this message, for tests that check what a function logged. */
export const loggedRecords = (file: string, message: string): Record<string, unknown>[] =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.message === message);
