import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { everyBlockRan, PAGES_IN_ORDER, shellBlocks, shellScript } from "./readme-blocks.js";

const markdown = [
  "# Title",
  "",
  "```sh",
  "echo one",
  "```",
  "",
  "```properties",
  "a=b",
  "```",
  "",
  "<!-- readme-test: skip (starts the stack) -->",
  "```sh",
  "npm start",
  "```",
  "",
  "<!-- readme-test: background -->",
  "```bash",
  "npm run agents",
  "```",
  "",
  "```",
  "```sh inside a plain block is not a shell block",
  "```",
].join("\n");

describe("a page's shell blocks", () => {
  it("are found with their lines and markers, and other code blocks are left out", () => {
    expect(shellBlocks("README.md", markdown)).toEqual([
      { line: 3, mode: "run", text: "echo one" },
      { line: 12, mode: "skip", text: "npm start", reason: "starts the stack" },
      { line: 17, mode: "background", text: "npm run agents" },
    ]);
  });

  it("refuse a skip without a reason, a marker they cannot read, and an unclosed block", () => {
    expect(() => shellBlocks("README.md", "<!-- readme-test: skip -->\n```sh\nx\n```")).toThrow(/says why/);
    expect(() => shellBlocks("README.md", "<!-- readme-test: sometimes -->\n```sh\nx\n```")).toThrow(
      /unreadable/,
    );
    expect(() => shellBlocks("docs/agents.md", "```sh\nx\n")).toThrow(
      /^docs\/agents\.md line 1: .*never closed/,
    );
  });

  it("become one script that runs blocks in order, starts background ones apart and replaces what it is told", () => {
    const script = shellScript(
      shellBlocks("docs/agents.md", `${markdown}\n\n\`\`\`sh\ncurl https://127.0.0.1:8443/x\n\`\`\``),
      {
        page: "docs/agents.md",
        replacements: [["127.0.0.1:8443", "127.0.0.1:18443"]],
        backgroundDir: "/tmp/bg",
      },
    );
    expect(script).toContain("set -euo pipefail");
    expect(script).not.toContain("npm start");
    expect(script.indexOf("echo one")).toBeLessThan(script.indexOf("npm run agents"));
    expect(script).toContain("{\nnpm run agents\n} > '/tmp/bg/background-17.log' 2>&1 &");
    expect(script).toContain("echo $! >> '/tmp/bg/pids'");
    expect(script).toContain("curl https://127.0.0.1:18443/x");
    expect(script).toContain('echo "▶ docs/agents.md line 3"');
    expect(script).toContain("docs/agents.md: the block at line $BLOCK_LINE failed");
    expect(script.trimEnd().endsWith(`echo "${everyBlockRan("docs/agents.md")}"`)).toBe(true);
  });
});

describe("the pages the README test runs", () => {
  it("are the README, first, and every page under docs/", () => {
    const docs = readdirSync(new URL("../../docs/", import.meta.url)).filter((name) => name.endsWith(".md"));
    expect(PAGES_IN_ORDER[0]).toBe("README.md");
    expect(PAGES_IN_ORDER.slice(1).toSorted()).toEqual(docs.map((name) => `docs/${name}`).toSorted());
  });
});
