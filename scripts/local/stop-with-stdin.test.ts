import { spawn } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";
import { repositoryRoot } from "../test-support/local-stack.js";
import { STOP_WHEN_STDIN_CLOSES_ENV_NAME } from "./stop-with-stdin.js";

const FIXTURE = path.join(repositoryRoot, "scripts/test-support/fixtures/stop-with-stdin/stack.fixture.ts");
const TSX = path.join(repositoryRoot, "node_modules/.bin/tsx");

/** The fixture with a pipe on its stdin, as the process that starts a stack holds one. */
function startFixture(env: NodeJS.ProcessEnv) {
  const child = spawn(TSX, [FIXTURE], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

it("stops when the pipe on its stdin closes, as it does when the process holding it ends", async () => {
  const stack = startFixture({ [STOP_WHEN_STDIN_CLOSES_ENV_NAME]: "1" });
  await expect.poll(stack.output, { timeout: 30_000 }).toContain("running");

  stack.child.stdin.end();

  expect(await stack.exited).toBe(0);
  expect(stack.output()).toContain("stopping");
  expect(stack.output()).not.toContain("stdin ended");
});

it("goes on when its stdin closes and the environment did not ask for the stop (Ctrl-D in a terminal)", async () => {
  const stack = startFixture({ [STOP_WHEN_STDIN_CLOSES_ENV_NAME]: undefined });
  await expect.poll(stack.output, { timeout: 30_000 }).toContain("running");

  stack.child.stdin.end();
  await expect.poll(stack.output, { timeout: 30_000 }).toContain("stdin ended");

  expect(stack.child.exitCode).toBeNull();
  expect(stack.output()).not.toContain("stopping");
  stack.child.kill("SIGTERM");
  await stack.exited;
});
