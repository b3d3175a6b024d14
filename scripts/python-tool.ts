import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const toolsDir = fileURLToPath(new URL("../.beacon/tools/", import.meta.url));

/**
 * Installs a Python command-line tool from PyPI into a virtual environment of its own under
 * `.beacon/tools/<name>`, once; later calls only check that its executable is there. Returns its path.
 */
export function ensurePythonTool(name: string, requirement: string, executable = name): string {
  const environment = join(toolsDir, name);
  const path = join(environment, "bin", executable);
  if (!existsSync(path)) {
    execFileSync("python3", ["-m", "venv", environment], { stdio: "inherit" });
    execFileSync(
      join(environment, "bin", "pip"),
      ["install", "--quiet", "--disable-pip-version-check", requirement],
      { stdio: "inherit" },
    );
  }
  return path;
}
