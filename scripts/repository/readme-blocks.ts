/**
 * A page's shell blocks (the README's, or a page's under docs/) as one bash script, so that a test can run
 * them in order, as a reader would in one terminal, against a running local stack. A block is run as written
 * unless the comment line just above its fence says otherwise:
 *
 *   <!-- readme-test: skip (why) -->     not run (it starts the stack, or runs the tests themselves)
 *   <!-- readme-test: background -->     started in the background, as a second terminal would run it,
 *                                        and stopped when the script ends
 */

/**
 * The pages whose shell blocks the README test runs, in this order, each in a shell of its own on one stack: a
 * page sets up the variables its blocks use, and may count on what the pages before it did on the stack (the
 * README's first heartbeat registers `probe-agent-1`, which the console API's examples use). Every page under
 * docs/ is here.
 */
export const PAGES_IN_ORDER = [
  "README.md",
  "docs/getting-started.md",
  "docs/agents.md",
  "docs/console-api.md",
  "docs/web-console.md",
  "docs/cli.md",
  "docs/fleet-as-code.md",
  "docs/rollouts.md",
  "docs/migrating.md",
  "docs/events.md",
  "docs/metrics.md",
  "docs/usage.md",
  "docs/architecture.md",
  "docs/deploying.md",
  "docs/benchmarks.md",
  "docs/measurements.md",
  "docs/capacity.md",
  "docs/contributing.md",
] as const;

export type BlockMode = "run" | "background" | "skip";

export interface ShellBlock {
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly mode: BlockMode;
  readonly text: string;
  /** Why a skipped block is not run. */
  readonly reason?: string;
}

const SHELL_FENCE = /^```(sh|bash|shell)\s*$/;
/** A closing fence has nothing after its backticks (CommonMark), so "```sh" inside a block does not close it. */
const CLOSING_FENCE = /^```\s*$/;
const MARKER = /^<!--\s*readme-test:\s*(skip|background)\s*(?:\((.+)\))?\s*-->$/;

/** The shell blocks of a page; `page` (its path) names it in errors. */
export function shellBlocks(page: string, markdown: string): ShellBlock[] {
  const lines = markdown.split("\n");
  const blocks: ShellBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    if (line.startsWith("<!--") && line.includes("readme-test") && !MARKER.test(line)) {
      throw new Error(`${page} line ${index + 1}: unreadable readme-test marker: ${line}`);
    }
    if (line.startsWith("```") && !SHELL_FENCE.test(line)) {
      index = closingFence(page, lines, index);
      continue;
    }
    if (!SHELL_FENCE.test(line)) continue;
    const end = closingFence(page, lines, index);
    const marker = MARKER.exec(lines[index - 1] ?? "");
    const mode = (marker?.[1] as BlockMode | undefined) ?? "run";
    if (mode === "skip" && marker?.[2] === undefined) {
      throw new Error(`${page} line ${index}: a skipped block says why: <!-- readme-test: skip (why) -->`);
    }
    blocks.push({
      line: index + 1,
      mode,
      text: lines.slice(index + 1, end).join("\n"),
      ...(marker?.[2] === undefined ? {} : { reason: marker[2] }),
    });
    index = end;
  }
  return blocks;
}

function closingFence(page: string, lines: string[], opening: number): number {
  for (let index = opening + 1; index < lines.length; index++) {
    if (CLOSING_FENCE.test(lines[index] ?? "")) return index;
  }
  throw new Error(`${page} line ${opening + 1}: a code block is never closed`);
}

export interface ScriptOptions {
  /** The page's path, which the script's progress and failure lines name. */
  readonly page: string;
  /** Literal replacements made in every block, e.g. the default ports by a test stack's. */
  readonly replacements: ReadonlyArray<readonly [string, string]>;
  /** Where each background block's output goes (`<dir>/background-<line>.log`) and its pid is kept. */
  readonly backgroundDir: string;
}

/**
 * One bash script of every block that runs: it stops at the first failing command, naming the block, and
 * records each background block's process group in `<backgroundDir>/pids` for the caller to stop.
 */
export function shellScript(blocks: readonly ShellBlock[], options: ScriptOptions): string {
  const replaced = (text: string) =>
    options.replacements.reduce((result, [from, to]) => result.replaceAll(from, to), text);
  const parts = [
    "set -euo pipefail",
    // Job control gives every background block a process group of its own, so it can be stopped whole.
    "set -m",
    `trap 'echo "${options.page}: the block at line $BLOCK_LINE failed (exit $?)" >&2' ERR`,
  ];
  for (const block of blocks) {
    if (block.mode === "skip") continue;
    parts.push("", `BLOCK_LINE=${block.line}`, `echo "▶ ${options.page} line ${block.line}"`);
    if (block.mode === "run") {
      parts.push(replaced(block.text));
    } else {
      const log = `${options.backgroundDir}/background-${block.line}.log`;
      parts.push(
        `{\n${replaced(block.text)}\n} > '${log}' 2>&1 &`,
        `echo $! >> '${options.backgroundDir}/pids'`,
      );
    }
  }
  parts.push("", `echo "${everyBlockRan(options.page)}"`);
  return `${parts.join("\n")}\n`;
}

/** The last line a page's script prints, once every block of it ran. */
export const everyBlockRan = (page: string) => `▶ every shell block of ${page} ran`;
