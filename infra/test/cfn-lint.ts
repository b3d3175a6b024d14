import { spawnSync } from "node:child_process";
import { pythonTool } from "../../scripts/python-tool.js";

export interface CfnLintResult {
  readonly exitCode: number | null;
  readonly findings: unknown[];
}

export function cfnLint(templatePaths: string[]): CfnLintResult {
  // W3005 flags a DependsOn beside a reference to the same resource: CDK's own constructs write both on purpose.
  const run = spawnSync(
    pythonTool("cfn-lint"),
    ["--format", "json", "--ignore-checks", "W3005", "--", ...templatePaths],
    {
      encoding: "utf8",
    },
  );
  if (run.error) throw run.error;
  return { exitCode: run.status, findings: run.stdout.trim() ? JSON.parse(run.stdout) : [] };
}
