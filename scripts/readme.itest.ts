/**
 * The README runs as written: `npm start` on ports of its own, then every shell block of the README in
 * order, in one bash shell from the checkout's root, as a reader would type them. Only the default ports
 * in the blocks are replaced by the test stack's. A block fails the test at its first failing command.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "./local/ports.js";
import { readmeBlocks, readmeScript } from "./readme-blocks.js";
import { type LocalStack, repositoryRoot, startLocalStack, tail } from "./test-support/local-stack.js";

const STACK_READY_TIMEOUT_MS = 240_000;
const README_TIMEOUT_MS = 15 * 60_000;

let stack: LocalStack;
let backgroundDir: string;

function stopBackgroundBlocks(): void {
  const pidsFile = path.join(backgroundDir, "pids");
  if (!existsSync(pidsFile)) return;
  for (const pid of readFileSync(pidsFile, "utf8").split("\n").filter(Boolean)) {
    try {
      process.kill(-Number(pid), "SIGTERM");
    } catch {
      // Already ended.
    }
  }
}

function backgroundLogs(): string {
  if (!existsSync(backgroundDir)) return "";
  return readdirSync(backgroundDir)
    .filter((name) => name.endsWith(".log"))
    .map((name) => `--- ${name}\n${tail(readFileSync(path.join(backgroundDir, name), "utf8"), 20)}`)
    .join("\n");
}

beforeAll(async () => {
  stack = await startLocalStack("readme-test", {
    readyTimeoutMs: STACK_READY_TIMEOUT_MS,
    env: { BEACON_SWEEPER_INTERVAL_SECONDS: "5" },
  });
  backgroundDir = path.join(stack.localDir, "readme");
  mkdirSync(backgroundDir, { recursive: true });
}, STACK_READY_TIMEOUT_MS + 10_000);

afterAll(async () => {
  if (backgroundDir) stopBackgroundBlocks();
  await stack?.stop();
}, 60_000);

describe("the README", () => {
  it(
    "runs top to bottom: every shell block in order, against npm start",
    async () => {
      const blocks = readmeBlocks(readFileSync(path.join(repositoryRoot, "README.md"), "utf8"));
      expect(blocks.filter((block) => block.mode === "run").length).toBeGreaterThan(10);
      const { ports } = stack;
      const receiverPort = await findFreePort();
      const scriptPath = path.join(stack.localDir, "readme.sh");
      writeFileSync(
        scriptPath,
        readmeScript(blocks, {
          replacements: [
            ["127.0.0.1:8443", `127.0.0.1:${ports.agent}`],
            ["127.0.0.1:8080", `127.0.0.1:${ports.console}`],
            ["127.0.0.1:8081", `127.0.0.1:${ports.web}`],
            // The webhook receiver the README starts.
            ["127.0.0.1:9443", `127.0.0.1:${receiverPort}`],
            ["127.0.0.1/9443", `127.0.0.1/${receiverPort}`],
            ["--port 9443", `--port ${receiverPort}`],
          ],
          backgroundDir,
        }),
      );
      const shell = spawn("bash", [scriptPath], {
        cwd: repositoryRoot,
        env: stack.env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      let output = "";
      shell.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      shell.stderr?.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      const exitCode = await new Promise<number | null>((resolve) => shell.once("close", resolve));
      stopBackgroundBlocks();
      const report = `${tail(output)}\n${backgroundLogs()}`;
      expect(exitCode, report).toBe(0);
      expect(output, report).toContain("▶ every README block ran");
    },
    README_TIMEOUT_MS,
  );
});
