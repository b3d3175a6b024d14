import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const toolsDir = fileURLToPath(new URL("../../.beacon/tools/", import.meta.url));

/**
 * The path of a Python command-line tool that `node scripts/build/setup.mjs` installed from PyPI into its own
 * virtual environment under `.beacon/tools/<name>`. Throws, naming that command, when it is not there.
 */
export function pythonTool(name: string, executable = name): string {
  const path = join(toolsDir, name, "bin", executable);
  if (!existsSync(path)) {
    throw new Error(`${name} is not installed in .beacon/tools/${name}: run node scripts/build/setup.mjs`);
  }
  return path;
}
