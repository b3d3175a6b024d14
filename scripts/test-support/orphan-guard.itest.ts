/**
 * The orphan guard (orphan-guard.ts) as CI meets it: a vitest killed by a signal it cannot pass on leaves no
 * test worker and no backend a worker started.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { isRunning, repositoryRoot } from "./local-stack.js";
import { until, untilTrue } from "./until.js";

const CONFIG = path.join(repositoryRoot, "scripts/test-support/fixtures/orphan-guard/vitest.config.ts");
const VITEST = path.join(repositoryRoot, "node_modules/vitest/vitest.mjs");

const answers = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = createConnection({ host: hostname, port: Number(port) });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

it("ends a test worker whose vitest was killed, and the Redis it started with it", async () => {
  const report = path.join(mkdtempSync(path.join(tmpdir(), "beacon-orphan-guard-")), "worker.json");
  const vitest = spawn(process.execPath, [VITEST, "run", "--config", CONFIG], {
    cwd: repositoryRoot,
    env: { ...process.env, ORPHAN_GUARD_REPORT: report },
    stdio: "ignore",
  });
  let workerPid: number | undefined;
  try {
    const worker = await until(
      "the fixture's worker to start its Redis",
      async () =>
        existsSync(report)
          ? (JSON.parse(readFileSync(report, "utf8")) as { url: string; pid: number })
          : undefined,
      90_000,
    );
    workerPid = worker.pid;
    expect(await answers(worker.url)).toBe(true);

    vitest.kill("SIGKILL");
    await untilTrue("the orphaned worker to end", () => !isRunning(worker.pid), 30_000);
    await untilTrue("its Redis to stop", async () => !(await answers(worker.url)), 30_000);
  } finally {
    vitest.kill("SIGKILL");
    // Without the guard, the worker would be left: ended here, its backends with it.
    if (workerPid !== undefined && isRunning(workerPid)) process.kill(workerPid, "SIGTERM");
  }
}, 180_000);
