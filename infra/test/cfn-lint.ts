import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "../lib/paths.js";

const environment = join(repositoryRoot, ".beacon", "tools", "cfn-lint");
const executable = join(environment, "bin", "cfn-lint");

/** Installs cfn-lint from PyPI into a virtual environment of its own, once; later calls only check it is there. */
export function ensureCfnLint(): string {
  if (!existsSync(executable)) {
    execFileSync("python3", ["-m", "venv", environment], { stdio: "inherit" });
    execFileSync(
      join(environment, "bin", "pip"),
      ["install", "--quiet", "--disable-pip-version-check", "cfn-lint>=1.58,<2"],
      { stdio: "inherit" },
    );
  }
  return executable;
}

export interface CfnLintResult {
  readonly exitCode: number | null;
  readonly findings: unknown[];
}

export function cfnLint(templatePaths: string[]): CfnLintResult {
  // W3005 flags a DependsOn beside a reference to the same resource: CDK's own constructs write both on purpose.
  const run = spawnSync(
    ensureCfnLint(),
    ["--format", "json", "--ignore-checks", "W3005", "--", ...templatePaths],
    {
      encoding: "utf8",
    },
  );
  if (run.error) throw run.error;
  return { exitCode: run.status, findings: run.stdout.trim() ? JSON.parse(run.stdout) : [] };
}
