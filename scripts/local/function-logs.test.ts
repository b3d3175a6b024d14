import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FunctionLog, readableLine, terminalLevelFrom } from "./function-logs.js";

describe("terminalLevelFrom", () => {
  it("shows warnings and errors unless told otherwise", () => {
    expect(terminalLevelFrom(undefined)).toBe("warn");
    expect(terminalLevelFrom("")).toBe("warn");
    expect(terminalLevelFrom("DEBUG")).toBe("debug");
    expect(terminalLevelFrom("error")).toBe("error");
  });

  it("refuses a level it does not know, naming the choices", () => {
    expect(() => terminalLevelFrom("verbose")).toThrow(
      "BEACON_LOG_LEVEL=verbose: expected one of debug, info, warn, error",
    );
  });
});

describe("readableLine", () => {
  const at = "2026-03-01T09:05:07.042Z";
  const clock = (() => {
    const time = new Date(at);
    const two = (value: number) => String(value).padStart(2, "0");
    return `${two(time.getHours())}:${two(time.getMinutes())}:${two(time.getSeconds())}.042`;
  })();

  it("gives time, level, function and message, then the record's own fields", () => {
    const record = {
      level: "WARN",
      message: "cache unavailable; answered from DynamoDB",
      timestamp: at,
      service: "beacon-local",
      sampling_rate: 0,
      tenant: "dev",
      agentId: "edge-1",
      error: "Error: Connection is closed.",
    };
    expect(readableLine(record, "agent-api")).toBe(
      `${clock} WARN  agent-api: cache unavailable; answered from DynamoDB  tenant=dev agentId=edge-1 error="Error: Connection is closed."`,
    );
  });

  it("shows an error field by its name and message, not its stack", () => {
    const record = {
      level: "ERROR",
      message: "heartbeat failed; answered with no operations",
      timestamp: at,
      error: { name: "TimeoutError", location: "file.js:1", message: "timed out", stack: "TimeoutError: …" },
    };
    expect(readableLine(record, "agent-api")).toBe(
      `${clock} ERROR agent-api: heartbeat failed; answered with no operations  error="TimeoutError: timed out"`,
    );
  });

  it("keeps a long field to one short value", () => {
    const line = readableLine(
      { level: "INFO", message: "m", timestamp: at, body: "x".repeat(500) },
      "sweeper",
    );
    expect(line.length).toBeLessThan(200);
    expect(line).toContain("…");
  });
});

describe("FunctionLog", () => {
  let dir: string;
  let terminal: string[];
  let log: FunctionLog;
  const fileLines = () =>
    readFileSync(log.file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "beacon-function-log-test-"));
    terminal = [];
    log = FunctionLog.open({
      file: path.join(dir, "logs", "functions.jsonl"),
      terminalLevel: "warn",
      terminal: (line) => terminal.push(line),
    });
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("puts everything a function writes in the file, and its warnings and errors on the terminal", async () => {
    // Real Powertools instances, writing to stdout and stderr as they do on Lambda.
    const logger = new Logger({ serviceName: "beacon-local", logLevel: "INFO" });
    const metrics = new Metrics({ namespace: "Beacon", serviceName: "beacon-local" });
    await log.run("agent-api", async () => {
      logger.info("agent registered", { agentClass: "default" });
      await Promise.resolve();
      logger.warn("cache unavailable; answered from DynamoDB", { tenant: "dev" });
      metrics.addMetric("CacheFallbacks", MetricUnit.Count, 1);
      metrics.publishStoredMetrics();
    });
    log.run("sweeper", () => logger.error("rollout look failed", { error: new Error("gone") }));
    log.close();

    const lines = fileLines();
    expect(lines.map((line) => [line.function_name, line.level ?? "metrics", line.message])).toEqual([
      ["agent-api", "INFO", "agent registered"],
      ["agent-api", "WARN", "cache unavailable; answered from DynamoDB"],
      ["agent-api", "metrics", undefined],
      ["sweeper", "ERROR", "rollout look failed"],
    ]);
    expect(lines[2]).toMatchObject({ CacheFallbacks: 1, _aws: { CloudWatchMetrics: expect.any(Array) } });
    expect(terminal).toEqual([
      expect.stringMatching(/ WARN {2}agent-api: cache unavailable; answered from DynamoDB {2}tenant=dev$/),
      expect.stringMatching(/ ERROR sweeper: rollout look failed {2}error="Error: gone"$/),
    ]);
  });

  it("keeps a function's plain text as a record, stderr's as a warning", async () => {
    log.run("console-api", () => {
      process.stdout.write("a library's note\n");
      process.stderr.write("a library's complaint\n");
    });
    log.close();
    expect(fileLines()).toEqual([
      expect.objectContaining({ function_name: "console-api", level: "INFO", message: "a library's note" }),
      expect.objectContaining({
        function_name: "console-api",
        level: "WARN",
        message: "a library's complaint",
      }),
    ]);
    expect(terminal).toEqual([expect.stringContaining("WARN  console-api: a library's complaint")]);
  });

  it("adds another process's lines to the stack's file, each whole, neither overwriting the other", () => {
    // As the functions process joins the file `npm start` opened: two descriptors on one file.
    const joined = FunctionLog.open({
      file: log.file,
      terminalLevel: "warn",
      join: true,
      terminal: () => {},
    });
    log.run("agent-api", () => process.stdout.write("first\n"));
    joined.run("stream-consumer", () => process.stdout.write("second\n"));
    log.run("agent-api", () => process.stdout.write("third\n"));
    joined.close();
    log.close();
    expect(fileLines().map((line) => [line.function_name, line.message])).toEqual([
      ["agent-api", "first"],
      ["stream-consumer", "second"],
      ["agent-api", "third"],
    ]);
  });

  it("empties the file it opens unless told to join it", () => {
    log.run("agent-api", () => process.stdout.write("from the last start\n"));
    log.close();
    log = FunctionLog.open({ file: log.file, terminalLevel: "warn", terminal: () => {} });
    log.close();
    expect(readFileSync(log.file, "utf8")).toBe("");
  });

  it("leaves what is written outside an invocation alone", async () => {
    // Passes through to this test's own output.
    process.stdout.write(`${JSON.stringify({ level: "ERROR", message: "the stack's own line" })}\n`);
    log.close();
    expect(readFileSync(log.file, "utf8")).toBe("");
    expect(terminal).toEqual([]);
  });
});
