import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { run } from "./main.js";

/**
 * `beacon` run in this process with these arguments and a config folder of its own (`home`): its exit code and
 * what it wrote, for the CLI's unit tests.
 */
export async function beaconInProcess(args: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = "";
  let stderr = "";
  const home = mkdtempSync(path.join(tmpdir(), "beacon-cli-"));
  const code = await run(
    args,
    { out: (text) => (stdout += text), err: (text) => (stderr += text) },
    { XDG_CONFIG_HOME: home, ...env },
  );
  return { code, stdout, stderr, home };
}
