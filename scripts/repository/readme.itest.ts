/**
 * The README and the pages under docs/ run as written: `npm start` on ports of its own, then every shell
 * block of each page in order, as a reader would type them, the pages in PAGES_IN_ORDER's order, each in a
 * bash shell of its own from the checkout's root. Only the default ports in the blocks are replaced by the
 * test stack's. A block fails its page at its first failing command; a page's background blocks are stopped
 * when its shell ends.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../local/ports.js";
import { type LocalStack, repositoryRoot, startLocalStack, tail } from "../test-support/local-stack.js";
import { everyBlockRan, PAGES_IN_ORDER, shellBlocks, shellScript } from "./readme-blocks.js";

const STACK_READY_TIMEOUT_MS = 240_000;
const PAGE_TIMEOUT_MS = 15 * 60_000;

let stack: LocalStack;
let receiverPort: number;
/** The folder of the page whose shell runs now: its background blocks' logs and process groups. */
let backgroundDir: string | undefined;

function stopBackgroundBlocks(): void {
  if (!backgroundDir) return;
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

function backgroundLogs(dir: string): string {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".log"))
    .map((name) => `--- ${name}\n${tail(readFileSync(path.join(dir, name), "utf8"), 20)}`)
    .join("\n");
}

const blocksOf = (page: string) => shellBlocks(page, readFileSync(path.join(repositoryRoot, page), "utf8"));

beforeAll(async () => {
  stack = await startLocalStack("readme-test", {
    readyTimeoutMs: STACK_READY_TIMEOUT_MS,
    env: { BEACON_SWEEPER_INTERVAL_SECONDS: "5" },
  });
  receiverPort = await findFreePort();
}, STACK_READY_TIMEOUT_MS + 10_000);

afterAll(async () => {
  stopBackgroundBlocks();
  await stack?.stop();
}, 60_000);

describe("the README and the pages under docs/", () => {
  it("have shell blocks that run", () => {
    const running = PAGES_IN_ORDER.flatMap(blocksOf).filter((block) => block.mode === "run");
    expect(running.length).toBeGreaterThan(10);
  });

  for (const page of PAGES_IN_ORDER) {
    it(
      `${page} runs top to bottom: every shell block in order, against npm start`,
      async () => {
        const { ports } = stack;
        const name = page.replaceAll("/", "-").replace(/\.md$/, "");
        backgroundDir = path.join(stack.localDir, "readme", name);
        mkdirSync(backgroundDir, { recursive: true });
        const scriptPath = path.join(stack.localDir, `readme-${name}.sh`);
        writeFileSync(
          scriptPath,
          shellScript(blocksOf(page), {
            page,
            replacements: [
              ["127.0.0.1:8443", `127.0.0.1:${ports.agent}`],
              ["127.0.0.1:8080", `127.0.0.1:${ports.console}`],
              ["127.0.0.1:8081", `127.0.0.1:${ports.web}`],
              // The webhook receiver the events page starts.
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
        const report = `${tail(output)}\n${backgroundLogs(backgroundDir)}`;
        expect(exitCode, report).toBe(0);
        expect(output, report).toContain(everyBlockRan(page));
      },
      PAGE_TIMEOUT_MS,
    );
  }
});
