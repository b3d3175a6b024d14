import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { removeStateFoldersOfEndedProcesses } from "./local-stack.js";

let parent: string | undefined;

afterEach(() => {
  if (parent) rmSync(parent, { recursive: true, force: true });
});

/** The id of a process that has ended: one started and waited for. */
function endedProcessId(): number {
  const { pid, status } = spawnSync(process.execPath, ["-e", ""]);
  expect(status).toBe(0);
  return pid as number;
}

it("removes the state folders of ended processes only, and only those of its name", () => {
  parent = mkdtempSync(path.join(tmpdir(), "beacon-state-"));
  const ended = endedProcessId();
  const folders = {
    endedStack: `metrics-${ended}`,
    runningStack: `metrics-${process.pid}`,
    otherName: `soak-${ended}`,
    notAProcess: `metrics-${ended}x`,
  };
  for (const folder of Object.values(folders)) {
    mkdirSync(path.join(parent, folder));
    writeFileSync(path.join(parent, folder, "functions.log"), "kept state\n");
  }
  // A file is no stack's folder, whatever its name.
  const file = `metrics-${endedProcessId()}`;
  writeFileSync(path.join(parent, file), "");

  removeStateFoldersOfEndedProcesses(parent, "metrics");

  expect(existsSync(path.join(parent, folders.endedStack))).toBe(false);
  expect(readdirSync(parent).sort()).toEqual(
    [folders.runningStack, folders.otherName, folders.notAProcess, file].sort(),
  );
});
