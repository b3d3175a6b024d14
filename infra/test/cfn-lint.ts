import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { pythonTool } from "../../scripts/build/python-tool.js";

const execFileAsync = promisify(execFile);

export interface CfnLintResult {
  readonly exitCode: number;
  readonly findings: unknown[];
}

/** Runs cfn-lint (installed by setup into `.beacon/tools/cfn-lint`) on templates, without blocking the worker. */
export async function cfnLint(templatePaths: string[]): Promise<CfnLintResult> {
  // W3005 flags a DependsOn beside a reference to the same resource: CDK's own constructs write both on purpose.
  const args = ["--format", "json", "--ignore-checks", "W3005", "--", ...templatePaths];
  const findingsIn = (stdout: string) => (stdout.trim() ? JSON.parse(stdout) : []);
  try {
    const { stdout } = await execFileAsync(pythonTool("cfn-lint"), args, { maxBuffer: 64 * 1024 * 1024 });
    return { exitCode: 0, findings: findingsIn(stdout) };
  } catch (error) {
    const { code, stdout } = error as { code?: unknown; stdout?: string };
    if (typeof code !== "number") throw error;
    return { exitCode: code, findings: findingsIn(stdout ?? "") };
  }
}
