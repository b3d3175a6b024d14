import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const scripts: Record<string, string> = JSON.parse(readFileSync(`${root}package.json`, "utf8")).scripts;

/**
 * Every file of this repository a package.json script runs, with the arguments the script gives it: each
 * `tsx <file> …` and `node <file> …` of its command (setup's among them); the other tools' (biome, tsc, cdk,
 * vitest) answer --help themselves.
 */
const entries = Object.entries(scripts).flatMap(([name, command]) =>
  command.split("&&").flatMap((part) => {
    const words = part.trim().split(/\s+/);
    const runner = words.findIndex((word) => word === "tsx" || word === "node");
    return runner === -1 ? [] : [{ name, runner: words[runner] as string, args: words.slice(runner + 1) }];
  }),
);

function run(
  runner: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [command, prefix] =
    runner === "tsx" ? [process.execPath, ["--import", "tsx"]] : [process.execPath, []];
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...prefix, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A line of a Node stack trace. */
const STACK_LINE = /^\s+at .+[:(]/m;

/** Each spawn loads a script's modules (the AWS SDK among them): seconds on a busy machine. */
const SPAWN_TIMEOUT_MS = 120_000;

describe("every npm run command's command line", () => {
  it("finds the files package.json's scripts run", () => {
    expect(entries.map(({ name }) => name)).toEqual(
      expect.arrayContaining(["start", "test", "agents", "bench:rate"]),
    );
  });

  it.each(entries)(
    "$name ($runner $args) answers --help with its usage",
    async ({ runner, args }) => {
      const { code, stdout, stderr } = await run(runner, [...args, "--help"]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(stdout).toMatch(/^Usage: /);
    },
    SPAWN_TIMEOUT_MS,
  );

  it.each(entries)(
    "$name ($runner $args) refuses an option it does not know in one line and its usage",
    async ({ runner, args }) => {
      const { code, stdout, stderr } = await run(runner, [...args, "--no-such-option"]);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toMatch(/^Unknown option '--no-such-option'.*\n\nUsage: /);
      expect(stderr).not.toMatch(STACK_LINE);
    },
    SPAWN_TIMEOUT_MS,
  );

  it("takes -h for --help, as every command reads its command line with the same helper", async () => {
    const setup = entries.find(({ runner }) => runner === "node");
    if (!setup) throw new Error("no package.json script runs setup");
    const { code, stdout } = await run(setup.runner, [...setup.args, "-h"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: /);
  });
});
